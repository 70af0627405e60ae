package dev.sovereign.engine.internal.sqlite;

import dev.sovereign.engine.internal.jdbc.Dialect;
import dev.sovereign.engine.internal.jdbc.LeaseSql;
import dev.sovereign.engine.admin.LeaseRow;
import dev.sovereign.engine.admin.ProcessRef;
import dev.sovereign.engine.admin.ProcessRow;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Every actor's lease for the operators' snapshots, read incrementally: every row only the first time, after
 * an actor was added, or when most rows changed; otherwise only the lease rows whose change marker
 * ({@code actor_leases.change_seq}, {@code lease_tombstones}) is above what the previous snapshot saw, replaced
 * in a copy of the previous list. Every lease write carries the marker (a trigger refuses one that does not),
 * so the result equals a full read; see docs/decisions/0414-lease-change-marker.md.
 *
 * <p>Holds what the last snapshot knew (its baseline); not thread-safe: its {@link SqliteAdminReader}
 * serialises every use, inside the snapshot's read transaction.
 */
final class AdminLeases {
    /** The lease columns after the actor of the row prefixed by {@code row}, the holder joined ({@link #holderOf}). */
    private static String columns(String row) {
        return LeaseSql.readerColumns(Dialect.SQLITE, row);
    }

    private static String holderOf(String row) {
        return LeaseSql.holderJoin(row);
    }

    /**
     * The actors whose lease changed after a given marker (the three parameters), each with its
     * current lease: the lease rows marked later, then the actors released later whose row is gone
     * (free; a row there again would be marked later still, so it is in the first part). UNION ALL
     * and no join back for the first part: with every row changed this costs about what a full read
     * does, where a UNION of actor ids joined back cost half as much again.
     */
    static final String CHANGED_LEASES_SQL = "SELECT l.actor_id, " + columns("l.")
            + " FROM actor_leases l " + holderOf("l.") + " WHERE l.change_seq > ?"
            + " UNION ALL SELECT t.actor_id, " + columns("j.")
            + " FROM lease_tombstones t LEFT JOIN actor_leases j ON j.actor_id = t.actor_id " + holderOf("j.")
            + " WHERE t.change_seq > ? AND (j.actor_id IS NULL OR j.change_seq <= ?)";

    /**
     * Below this many actors a snapshot never switches to a full read because most rows changed:
     * either way costs well under a millisecond, and the incremental path stays the one exercised.
     */
    static final int FULL_READ_MIN_ROWS = 512;

    static final String COUNT_CHANGED_SQL = "SELECT count(*) FROM actor_leases WHERE change_seq > ?";

    static final String ALL_LEASES_SQL = "SELECT a.id, " + columns("l.")
            + " FROM actors a LEFT JOIN actor_leases l ON l.actor_id = a.id " + holderOf("l.") + " ORDER BY a.id";

    /**
     * The sessions that keep leases alive (decision 0509): each process holding an attached lease, with its
     * last heartbeat. A beat moves every attached lease's effective expiry without writing the lease rows, so
     * a snapshot re-reads the attached rows of each session whose beat is not the one the previous snapshot saw.
     */
    static final String SESSIONS_SQL = "SELECT p.identity, p.heartbeat_at FROM processes p WHERE EXISTS"
            + " (SELECT 1 FROM actor_leases l WHERE l.process_identity = p.identity AND l.attached = 1)";

    /**
     * One session's attached leases, in the columns of {@link #CHANGED_LEASES_SQL}, except those marked after the
     * given marker (the changed rows, read already).
     */
    static final String SESSION_LEASES_SQL = "SELECT l.actor_id, " + columns("l.")
            + " FROM actor_leases l " + holderOf("l.")
            + " WHERE l.process_identity = ? AND l.attached = 1 AND l.change_seq <= ?";

    /**
     * The leases of one snapshot, kept to make the next one incremental.
     *
     * @param actorCount    {@code count(*)} of actors when read
     * @param actorMaxRowid {@code max(rowid)} of actors when read (actors are only ever added, so
     *                      the two together change whenever one is)
     * @param lastChange    the lease change counter when read: every lease row written or deleted
     *                      later carries a higher marker
     * @param sessions      each process holding an attached lease, with its last heartbeat, when read
     * @param rows          every actor's lease, by actor id (unmodifiable)
     * @param positions     each actor's index in {@code rows} (never changed once built)
     * @param held          how many of {@code rows} each holder holds (never changed once built)
     */
    record Baseline(long actorCount, long actorMaxRowid, long lastChange, Map<String, Long> sessions,
                    List<LeaseRow> rows, Map<String, Integer> positions, Map<String, Integer> held) {
    }

    /** One read: the new baseline, how many lease rows it read, whether it read every row. */
    record Read(Baseline baseline, int rowsRead, boolean full) {
    }

    private final ReadConnection db;
    private Baseline baseline;

    AdminLeases(ReadConnection db) {
        this.db = db;
    }

    /**
     * Every actor with its lease: the hot path of a busy console (10,000 actors). Only the first
     * snapshot, one after an actor was added, or one after most rows changed, reads every row;
     * otherwise only the rows whose lease change marker is above the one the previous snapshot saw
     * (renewed, granted, taken over, or released: a tombstone) are read and replaced in a copy of
     * the previous list. Called inside the snapshot's read transaction, so the counter and the rows
     * agree. A row equal to the previous snapshot's is that same object, so the console's comparisons
     * are mostly identity checks. The new baseline is kept only by {@link #keep}, after the snapshot's
     * transaction committed.
     */
    Read read(List<ProcessRow> processes) throws SQLException {
        // two statements: each alone is optimised (about 10 us for 10,000 actors), the two in one
        // SELECT scan the table (about 400 us)
        long actorCount = db.scalar("SELECT count(*) FROM actors");
        long actorMaxRowid = db.scalar("SELECT coalesce(max(rowid), 0) FROM actors");
        long lastChange = db.scalar("SELECT last_change FROM lease_change_counter WHERE id = 1");
        Map<String, Long> sessions = sessions();
        Baseline before = baseline;
        Holders holders = new Holders(processes);
        if (before == null || before.actorCount() != actorCount || before.actorMaxRowid() != actorMaxRowid
                || lastChange < before.lastChange()) {
            return fullRead(before, holders, actorCount, actorMaxRowid, lastChange, sessions);
        }
        List<String> beaten = new ArrayList<>();
        sessions.forEach((process, beat) -> {
            if (!beat.equals(before.sessions().get(process))) {
                beaten.add(process);
            }
        });
        if (lastChange == before.lastChange() && beaten.isEmpty()) {
            return new Read(before, 0, false);
        }
        if (actorCount >= FULL_READ_MIN_ROWS && rowsToReread(before, lastChange, beaten) * 2 > actorCount) {
            // most rows changed (every holder's heartbeat came round): replacing them one by one in the previous
            // list costs about a third more than reading them all in order
            return fullRead(before, holders, actorCount, actorMaxRowid, lastChange, sessions);
        }
        List<LeaseRow> rows = new ArrayList<>(before.rows());
        Map<String, Integer> held = new HashMap<>(before.held());
        int read = 0;
        if (lastChange != before.lastChange()) {
            int replaced = db.walk(CHANGED_LEASES_SQL, rs -> replace(rs, rows, held, before, holders),
                    before.lastChange(), before.lastChange(), before.lastChange());
            if (replaced < 0) {
                return fullRead(before, holders, actorCount, actorMaxRowid, lastChange, sessions);
            }
            read += replaced;
        }
        for (String process : beaten) {
            int replaced = db.walk(SESSION_LEASES_SQL, rs -> replace(rs, rows, held, before, holders), process,
                    before.lastChange());
            if (replaced < 0) {
                return fullRead(before, holders, actorCount, actorMaxRowid, lastChange, sessions);
            }
            read += replaced;
        }
        return new Read(new Baseline(actorCount, actorMaxRowid, lastChange, sessions, List.copyOf(rows),
                before.positions(), held), read, false);
    }

    /**
     * Replaces in {@code rows} each row of {@code rs} (actor first, then the lease columns); how many it
     * read, or -1 for an actor the previous full read did not see (cannot happen while actors are only added:
     * the caller reads everything rather than guess).
     */
    private static int replace(ResultSet rs, List<LeaseRow> rows, Map<String, Integer> held, Baseline before,
                               Holders holders) throws SQLException {
        int read = 0;
        while (rs.next()) {
            read++;
            Integer at = before.positions().get(rs.getString(1));
            if (at == null) {
                return -1;
            }
            LeaseRow row = leaseRow(rs, holders);
            LeaseRow previous = rows.get(at);
            count(held, previous, -1);
            count(held, row, +1);
            rows.set(at, row.equals(previous) ? previous : row);
        }
        return read;
    }

    /** The rows marked after the baseline, plus the leases the previous snapshot saw each beaten session hold. */
    private long rowsToReread(Baseline before, long lastChange, List<String> beaten) throws SQLException {
        long rows = lastChange == before.lastChange() ? 0 : db.scalar(COUNT_CHANGED_SQL, before.lastChange());
        for (String process : beaten) {
            rows += before.held().getOrDefault(process, 0);
        }
        return rows;
    }

    private Map<String, Long> sessions() throws SQLException {
        return db.walk(SESSIONS_SQL, rs -> {
            Map<String, Long> sessions = new HashMap<>();
            while (rs.next()) {
                sessions.put(rs.getString(1), rs.getLong(2));
            }
            return Map.copyOf(sessions);
        });
    }

    /** Makes {@code read} the baseline of the next snapshot (once its transaction committed). */
    void keep(Read read) {
        baseline = read.baseline();
    }

    private Read fullRead(Baseline before, Holders holders, long actorCount, long actorMaxRowid, long lastChange,
                          Map<String, Long> sessions) throws SQLException {
        int expected = before == null ? 16 : before.rows().size() + 16;
        List<LeaseRow> rows = new ArrayList<>(expected);
        Map<String, Integer> positions = new HashMap<>(expected * 2);
        Map<String, Integer> held = new HashMap<>();
        db.walk(ALL_LEASES_SQL, rs -> {
            while (rs.next()) {
                LeaseRow row = leaseRow(rs, holders);
                if (before != null) {
                    Integer at = before.positions().get(row.actor());
                    if (at != null && row.equals(before.rows().get(at))) {
                        row = before.rows().get(at);
                    }
                }
                positions.put(row.actor(), rows.size());
                rows.add(row);
                count(held, row, +1);
            }
            return null;
        });
        // positions and held are never changed from here on (an incremental read copies held)
        return new Read(new Baseline(actorCount, actorMaxRowid, lastChange, sessions, List.copyOf(rows), positions,
                held), rows.size(), true);
    }

    /** Adds {@code delta} to the count of {@code row}'s holder, if it has one (a count of 0 is removed). */
    private static void count(Map<String, Integer> held, LeaseRow row, int delta) {
        if (row.holder() != null) {
            held.merge(row.holder().identity(), delta, (a, b) -> a + b == 0 ? null : a + b);
        }
    }

    /** One row of {@link #ALL_LEASES_SQL} or {@link #CHANGED_LEASES_SQL}: actor, then the lease columns (null: free). */
    private static LeaseRow leaseRow(ResultSet rs, Holders holders) throws SQLException {
        String actor = rs.getString(1);
        String holder = rs.getString(2);
        if (holder == null) {
            return LeaseRow.free(actor);
        }
        return new LeaseRow(actor, holders.ref(holder), rs.getLong(3), rs.getLong(4), rs.getLong(5), rs.getLong(6),
                rs.getLong(7), rs.getLong(8));
    }

    /**
     * The processes with how many lease rows name each, counted from this snapshot's own lease list
     * (the same read transaction, kept up to date with it) instead of one subquery per process.
     */
    static List<ProcessRow> withLeaseCounts(List<ProcessRow> processes, Map<String, Integer> held) {
        List<ProcessRow> out = new ArrayList<>(processes.size());
        for (ProcessRow p : processes) {
            out.add(new ProcessRow(p.process(), p.kind(), p.startedAt(), p.heartbeatAt(), p.heartbeatIntervalMs(),
                    p.stoppedAt(), held.getOrDefault(p.process().identity(), 0), p.activeAttempts(), p.lastClaim()));
        }
        return out;
    }

    /** Holders by identity: the snapshot's own process rows, one query for any other (stopped long ago). */
    private final class Holders {
        private final Map<String, ProcessRef> known = new HashMap<>();

        Holders(List<ProcessRow> processes) {
            for (ProcessRow p : processes) {
                known.put(p.process().identity(), p.process());
            }
        }

        ProcessRef ref(String identity) throws SQLException {
            ProcessRef ref = known.get(identity);
            if (ref == null) {
                List<ProcessRef> found = db.query("SELECT p.label AS p_label, p.pid AS p_pid, p.host AS p_host"
                        + " FROM processes p WHERE p.identity = ?", rs -> ReadConnection.ref(rs, identity), identity);
                ref = found.isEmpty() ? ProcessRef.unknown(identity) : found.get(0);
                known.put(identity, ref);
            }
            return ref;
        }
    }
}
