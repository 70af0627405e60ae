package dev.sovereign.engine.internal.jdbc;

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
 * Every actor's lease for the operators' snapshots, read incrementally, for both backends: every row only the first
 * time, after an actor was added, or when most rows changed; otherwise only the lease rows whose change marker
 * ({@code actor_leases.change_seq}, {@code lease_tombstones}) is above what the previous snapshot saw, replaced in a
 * copy of the previous list. Every lease write carries the marker (the schema refuses one that does not), so the
 * result equals a full read; see docs/decisions/0414-lease-change-marker.md. The cursor a snapshot keeps is the
 * dialect's ({@link Dialect#leaseChangeCursor}): SQLite's lease change counter, whose writes commit one at a time; on
 * PostgreSQL a lease write is marked with its own transaction's id and the cursor is one less than the oldest
 * transaction still running when the snapshot was taken, so every row a later snapshot sees that this one did not is
 * marked above it (decision 0923: some rows are read twice, none is missed).
 *
 * <p>Ordered by actor id in byte order ({@link Dialect#byteOrder}), whatever the database's collation. The backend
 * hands over the reads (its own connection and kept statements, decision 0511) and says how it tells that an actor
 * was added ({@link ActorsAdded}). Holds what the last snapshot knew (its baseline); not thread-safe: its reader
 * serialises every use, inside the snapshot's read transaction.
 */
public final class JdbcAdminLeases {
    /**
     * What moves, besides the count of actors, when one is added: SQLite's {@code max(rowid)} (the two together
     * change whenever one is); 0 where no role but the ledger's owner may delete an actor, so the count alone tells
     * (PostgreSQL).
     */
    @FunctionalInterface
    public interface ActorsAdded {
        long marker(JdbcReads q) throws SQLException;
    }

    /**
     * Below this many actors a snapshot never switches to a full read because most rows changed: either way costs
     * well under a millisecond, and the incremental path stays the one exercised.
     */
    public static final int FULL_READ_MIN_ROWS = 512;

    public static final String COUNT_CHANGED_SQL = "SELECT count(*) FROM actor_leases WHERE change_seq > ?";

    /** The lease columns after the actor of the row prefixed by {@code row}, the holder joined (decision 0511). */
    private static String columns(Dialect d, String row) {
        return LeaseSql.readerColumns(d, row);
    }

    private static String holderOf(String row) {
        return LeaseSql.holderJoin(row);
    }

    /** Every actor with its lease (free: the lease columns null), in byte order of the actor's id. */
    public static String allLeasesSql(Dialect d) {
        return "SELECT a.id, " + columns(d, "l.") + " FROM actors a LEFT JOIN actor_leases l ON l.actor_id = a.id "
                + holderOf("l.") + " ORDER BY " + d.byteOrder("a.id");
    }

    /**
     * The actors whose lease changed after a given marker (the three parameters), each with its current lease: the
     * lease rows marked later, then the actors released later whose row is gone (free; a row there again would be
     * marked later still, so it is in the first part). UNION ALL and no join back for the first part: with every row
     * changed this costs about what a full read does, where a UNION of actor ids joined back cost half as much again.
     */
    public static String changedLeasesSql(Dialect d) {
        return "SELECT l.actor_id, " + columns(d, "l.") + " FROM actor_leases l " + holderOf("l.")
                + " WHERE l.change_seq > ?"
                + " UNION ALL SELECT t.actor_id, " + columns(d, "j.")
                + " FROM lease_tombstones t LEFT JOIN actor_leases j ON j.actor_id = t.actor_id " + holderOf("j.")
                + " WHERE t.change_seq > ? AND (j.actor_id IS NULL OR j.change_seq <= ?)";
    }

    /**
     * The sessions that keep leases alive (decision 0509): each process holding an attached lease, with its last
     * heartbeat. A beat moves every attached lease's effective expiry without writing the lease rows, so a snapshot
     * re-reads the attached rows of each session whose beat is not the one the previous snapshot saw.
     */
    public static String sessionsSql(Dialect d) {
        return "SELECT p.identity, p.heartbeat_at FROM processes p WHERE EXISTS"
                + " (SELECT 1 FROM actor_leases l WHERE l.process_identity = p.identity AND " + d.isTrue("l.attached")
                + ")";
    }

    /**
     * One session's attached leases, in the columns of {@link #changedLeasesSql}, except those marked after the given
     * marker (the changed rows, read already).
     */
    public static String sessionLeasesSql(Dialect d) {
        return "SELECT l.actor_id, " + columns(d, "l.") + " FROM actor_leases l " + holderOf("l.")
                + " WHERE l.process_identity = ? AND " + d.isTrue("l.attached") + " AND l.change_seq <= ?";
    }

    /**
     * The leases of one snapshot, kept to make the next one incremental.
     *
     * @param actorCount   {@code count(*)} of actors when read
     * @param actorsMarker the backend's {@link ActorsAdded} marker when read
     * @param lastChange   the lease change cursor when read ({@link Dialect#leaseChangeCursor}): every lease row
     *                     written or deleted later carries a higher marker
     * @param sessions     each process holding an attached lease, with its last heartbeat, when read
     * @param rows         every actor's lease, by actor id (unmodifiable)
     * @param positions    each actor's index in {@code rows} (never changed once built)
     * @param held         how many of {@code rows} each holder holds (never changed once built)
     */
    public record Baseline(
            long actorCount,
            long actorsMarker,
            long lastChange,
            Map<String, Long> sessions,
            List<LeaseRow> rows,
            Map<String, Integer> positions,
            Map<String, Integer> held) {}

    /** One read: the new baseline, how many lease rows it read, whether it read every row. */
    public record Read(Baseline baseline, int rowsRead, boolean full) {}

    private final ActorsAdded actorsAdded;
    private final String cursor;
    private final boolean cursorMovesWithEveryWrite;
    private final String allLeases;
    private final String changedLeases;
    private final String sessions;
    private final String sessionLeases;
    private Baseline baseline;

    public JdbcAdminLeases(Dialect dialect, ActorsAdded actorsAdded) {
        this.actorsAdded = actorsAdded;
        this.cursor = dialect.leaseChangeCursor();
        this.cursorMovesWithEveryWrite = dialect.leaseCursorMovesWithEveryWrite();
        this.allLeases = allLeasesSql(dialect);
        this.changedLeases = changedLeasesSql(dialect);
        this.sessions = sessionsSql(dialect);
        this.sessionLeases = sessionLeasesSql(dialect);
    }

    /**
     * Every actor with its lease: the hot path of a busy console (10,000 actors). Only the first snapshot, one after
     * an actor was added, or one after most rows changed, reads every row; otherwise only the rows whose lease change
     * marker is above the one the previous snapshot saw (renewed, granted, taken over, or released: a tombstone) and
     * the attached rows of each session that beat since are read and replaced in a copy of the previous list. Called
     * inside the snapshot's read transaction, the cursor read before the rows (on PostgreSQL's READ COMMITTED each
     * statement has its own snapshot: an earlier cursor is only lower, so a row can be read twice, never missed). A row equal to the previous
     * snapshot's is that same object, so the console's comparisons are mostly identity checks. The new baseline is
     * kept only by {@link #keep}, after the snapshot's transaction committed.
     */
    public Read read(JdbcReads q, List<ProcessRow> processes) throws SQLException {
        // separate statements: each alone is optimised (about 10 us for 10,000 actors on SQLite), together in one
        // SELECT they scan the table (about 400 us)
        long actorCount = q.scalarLong("SELECT count(*) FROM actors");
        long actorsMarker = actorsAdded.marker(q);
        long lastChange = q.scalarLong(cursor);
        Map<String, Long> beats = sessions(q);
        Baseline before = baseline;
        Holders holders = new Holders(q, processes);
        if (before == null
                || before.actorCount() != actorCount
                || before.actorsMarker() != actorsMarker
                || lastChange < before.lastChange()) {
            return fullRead(q, before, holders, actorCount, actorsMarker, lastChange, beats);
        }
        List<String> beaten = new ArrayList<>();
        beats.forEach((process, beat) -> {
            if (!beat.equals(before.sessions().get(process))) {
                beaten.add(process);
            }
        });
        boolean marked = lastChange != before.lastChange() || !cursorMovesWithEveryWrite;
        if (!marked && beaten.isEmpty()) {
            return new Read(before, 0, false);
        }
        if (actorCount >= FULL_READ_MIN_ROWS && rowsToReread(q, before, marked, beaten) * 2 > actorCount) {
            // most rows changed (every holder's heartbeat came round): replacing them one by one in the previous
            // list costs about a third more than reading them all in order
            return fullRead(q, before, holders, actorCount, actorsMarker, lastChange, beats);
        }
        List<LeaseRow> changed = new ArrayList<>();
        if (marked) {
            changed.addAll(q.query(
                    changedLeases,
                    rs -> leaseRow(rs, holders),
                    before.lastChange(),
                    before.lastChange(),
                    before.lastChange()));
        }
        for (String process : beaten) {
            changed.addAll(q.query(sessionLeases, rs -> leaseRow(rs, holders), process, before.lastChange()));
        }
        List<LeaseRow> rows = new ArrayList<>(before.rows());
        Map<String, Integer> held = new HashMap<>(before.held());
        for (LeaseRow row : changed) {
            Integer at = before.positions().get(row.actor());
            if (at == null) {
                // an actor the previous full read did not see (cannot happen while actors are only added): read
                // everything rather than guess
                return fullRead(q, before, holders, actorCount, actorsMarker, lastChange, beats);
            }
            LeaseRow previous = rows.get(at);
            count(held, previous, -1);
            count(held, row, +1);
            rows.set(at, row.equals(previous) ? previous : row);
        }
        return new Read(
                new Baseline(actorCount, actorsMarker, lastChange, beats, List.copyOf(rows), before.positions(), held),
                changed.size(),
                false);
    }

    /** The rows marked after the baseline, plus the leases the previous snapshot saw each beaten session hold. */
    private static long rowsToReread(JdbcReads q, Baseline before, boolean marked, List<String> beaten)
            throws SQLException {
        long rows = marked ? q.scalarLong(COUNT_CHANGED_SQL, before.lastChange()) : 0;
        for (String process : beaten) {
            rows += before.held().getOrDefault(process, 0);
        }
        return rows;
    }

    private Map<String, Long> sessions(JdbcReads q) throws SQLException {
        Map<String, Long> beats = new HashMap<>();
        q.query(sessions, rs -> beats.put(rs.getString(1), rs.getLong(2)));
        return Map.copyOf(beats);
    }

    /** Makes {@code read} the baseline of the next snapshot (once its transaction committed). */
    public void keep(Read read) {
        baseline = read.baseline();
    }

    private Read fullRead(
            JdbcReads q,
            Baseline before,
            Holders holders,
            long actorCount,
            long actorsMarker,
            long lastChange,
            Map<String, Long> beats)
            throws SQLException {
        List<LeaseRow> rows = q.query(allLeases, rs -> {
            LeaseRow row = leaseRow(rs, holders);
            Integer at = before == null ? null : before.positions().get(row.actor());
            return at != null && row.equals(before.rows().get(at))
                    ? before.rows().get(at)
                    : row;
        });
        Map<String, Integer> positions = new HashMap<>(rows.size() * 2);
        Map<String, Integer> held = new HashMap<>();
        for (LeaseRow row : rows) {
            positions.put(row.actor(), positions.size());
            count(held, row, +1);
        }
        // positions and held are never changed from here on (an incremental read copies held)
        return new Read(
                new Baseline(actorCount, actorsMarker, lastChange, beats, List.copyOf(rows), positions, held),
                rows.size(),
                true);
    }

    /** Adds {@code delta} to the count of {@code row}'s holder, if it has one (a count of 0 is removed). */
    private static void count(Map<String, Integer> held, LeaseRow row, int delta) {
        if (row.holder() != null) {
            held.merge(row.holder().identity(), delta, (a, b) -> a + b == 0 ? null : a + b);
        }
    }

    /** One row of the lease statements: actor, then the lease columns (null: free). */
    private static LeaseRow leaseRow(ResultSet rs, Holders holders) throws SQLException {
        String actor = rs.getString(1);
        String holder = rs.getString(2);
        if (holder == null) {
            return LeaseRow.free(actor);
        }
        return new LeaseRow(
                actor,
                holders.ref(holder),
                rs.getLong(3),
                rs.getLong(4),
                rs.getLong(5),
                rs.getLong(6),
                rs.getLong(7),
                rs.getLong(8));
    }

    /**
     * The processes with how many lease rows name each, counted from this snapshot's own lease list (the same read
     * transaction, kept up to date with it) instead of one subquery per process.
     */
    public static List<ProcessRow> withLeaseCounts(List<ProcessRow> processes, Map<String, Integer> held) {
        List<ProcessRow> out = new ArrayList<>(processes.size());
        for (ProcessRow p : processes) {
            out.add(new ProcessRow(
                    p.process(),
                    p.kind(),
                    p.startedAt(),
                    p.heartbeatAt(),
                    p.heartbeatIntervalMs(),
                    p.stoppedAt(),
                    held.getOrDefault(p.process().identity(), 0),
                    p.activeAttempts(),
                    p.lastClaim()));
        }
        return out;
    }

    /** Holders by identity: the snapshot's own process rows, one query for any other (stopped long ago). */
    private static final class Holders {
        private final JdbcReads q;
        private final Map<String, ProcessRef> known = new HashMap<>();

        Holders(JdbcReads q, List<ProcessRow> processes) {
            this.q = q;
            for (ProcessRow p : processes) {
                known.put(p.process().identity(), p.process());
            }
        }

        ProcessRef ref(String identity) throws SQLException {
            ProcessRef ref = known.get(identity);
            if (ref == null) {
                ref = q.one(
                                "SELECT p.label AS p_label, p.pid AS p_pid, p.host AS p_host FROM processes p"
                                        + " WHERE p.identity = ?",
                                rs -> JdbcAdminRows.ref(rs, identity),
                                identity)
                        .orElse(ProcessRef.unknown(identity));
                known.put(identity, ref);
            }
            return ref;
        }
    }
}
