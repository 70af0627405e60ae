package dev.sovereign.engine.internal.postgres;

import dev.sovereign.engine.internal.jdbc.Dialect;
import dev.sovereign.engine.internal.jdbc.LeaseSql;
import dev.sovereign.engine.internal.jdbc.JdbcTx;
import dev.sovereign.engine.admin.LeaseRow;
import dev.sovereign.engine.admin.ProcessRef;
import dev.sovereign.engine.admin.ProcessRow;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Every actor's lease for the operators' snapshots, read incrementally by the lease change marker exactly as
 * SQLite's reader does (decision 0414; the same contract, this backend's SQL): every row the first time, after an
 * actor was added, or when most rows changed; otherwise only the rows whose {@code change_seq} (or tombstone) is
 * above the counter the previous snapshot saw. Why that is complete on PostgreSQL too: every lease write locks
 * {@code lease_change_counter} and bumps it in its own transaction (the guard refuses a row without that
 * transaction's value), so lease writes commit in counter order, and a snapshot that saw the counter at
 * {@code v} saw every row marked {@code <= v}.
 *
 * <p>Actors are only ever added (no role but the owner may delete one), so their count alone tells that one was.
 * Ordered by actor id in byte order ({@code COLLATE "C"}), as SQLite orders them, whatever the database's
 * collation. Not thread-safe: its {@link PgAdminReader} serialises every use, inside the snapshot's transaction.
 */
final class PgAdminLeases {
    /** The lease columns after the actor of the row prefixed by {@code row}, the holder joined ({@link #holderOf}). */
    private static String columns(String row) {
        return LeaseSql.readerColumns(Dialect.POSTGRES, row);
    }

    private static String holderOf(String row) {
        return LeaseSql.holderJoin(row);
    }

    static final String ALL_LEASES_SQL = "SELECT a.id, " + columns("l.")
            + " FROM actors a LEFT JOIN actor_leases l ON l.actor_id = a.id " + holderOf("l.")
            + " ORDER BY a.id COLLATE \"C\"";
    /** The rows marked later, then the actors released later whose row is gone (free). */
    static final String CHANGED_LEASES_SQL = "SELECT l.actor_id, " + columns("l.")
            + " FROM actor_leases l " + holderOf("l.") + " WHERE l.change_seq > ?"
            + " UNION ALL SELECT t.actor_id, " + columns("j.")
            + " FROM lease_tombstones t LEFT JOIN actor_leases j ON j.actor_id = t.actor_id " + holderOf("j.")
            + " WHERE t.change_seq > ? AND (j.actor_id IS NULL OR j.change_seq <= ?)";
    /**
     * The sessions that keep leases alive (decision 0509): each process holding an attached lease, with its last
     * heartbeat. A beat moves every attached lease's effective expiry without writing the lease rows, so a snapshot
     * re-reads the attached rows of each session whose beat is not the one the previous snapshot saw.
     */
    private static final String SESSIONS_SQL = "SELECT p.identity, p.heartbeat_at FROM processes p WHERE EXISTS"
            + " (SELECT 1 FROM actor_leases l WHERE l.process_identity = p.identity AND l.attached)";
    /** One session's attached leases not marked after the given marker (those the changed rows read already). */
    static final String SESSION_LEASES_SQL = "SELECT l.actor_id, " + columns("l.")
            + " FROM actor_leases l " + holderOf("l.") + " WHERE l.process_identity = ? AND l.attached"
            + " AND l.change_seq <= ?";
    private static final String COUNT_ACTORS_SQL = "SELECT count(*) FROM actors";
    private static final String LAST_CHANGE_SQL = "SELECT last_change FROM lease_change_counter WHERE id = 1";
    private static final String COUNT_CHANGED_SQL = "SELECT count(*) FROM actor_leases WHERE change_seq > ?";
    /** As SQLite's: below this many actors a snapshot never switches to a full read because most rows changed. */
    static final int FULL_READ_MIN_ROWS = 512;

    /** One read: every actor's lease (by actor id), who holds how many, the rows read, and what the next read needs. */
    record Read(long actorCount, long lastChange, Map<String, Long> sessions, List<LeaseRow> rows,
                Map<String, Integer> positions, Map<String, Integer> held, int rowsRead) {
    }

    private Read baseline;
    /**
     * The statements every snapshot runs, prepared once per connection and kept (not one {@code prepareStatement}
     * per snapshot); dropped when the reader's connection was replaced after a loss, closed by {@link #close}.
     */
    private final Map<String, PreparedStatement> kept = new HashMap<>();
    private Connection keptOn;
    private long prepared;

    Read read(JdbcTx tx, List<ProcessRow> processes) throws SQLException {
        long actorCount = scalar(tx, COUNT_ACTORS_SQL);
        long lastChange = scalar(tx, LAST_CHANGE_SQL);
        Map<String, Long> sessions = new HashMap<>();
        query(tx, SESSIONS_SQL, rs -> sessions.put(rs.getString(1), rs.getLong(2)));
        Read before = baseline;
        Map<String, ProcessRef> holders = new HashMap<>();
        processes.forEach(p -> holders.put(p.process().identity(), p.process()));
        if (before == null || before.actorCount() != actorCount || lastChange < before.lastChange()) {
            return fullRead(tx, before, holders, actorCount, lastChange, sessions);
        }
        List<String> beaten = new ArrayList<>();
        sessions.forEach((process, beat) -> {
            if (!beat.equals(before.sessions().get(process))) {
                beaten.add(process);
            }
        });
        if (lastChange == before.lastChange() && beaten.isEmpty()) {
            return new Read(actorCount, lastChange, before.sessions(), before.rows(), before.positions(), before.held(), 0);
        }
        long toReread = lastChange == before.lastChange() ? 0 : scalar(tx, COUNT_CHANGED_SQL, before.lastChange());
        for (String process : beaten) {
            toReread += before.held().getOrDefault(process, 0);
        }
        if (actorCount >= FULL_READ_MIN_ROWS && toReread * 2 > actorCount) {
            return fullRead(tx, before, holders, actorCount, lastChange, sessions);
        }
        List<LeaseRow> changed = new ArrayList<>();
        if (lastChange != before.lastChange()) {
            changed.addAll(query(tx, CHANGED_LEASES_SQL, rs -> leaseRow(tx, rs, holders),
                    before.lastChange(), before.lastChange(), before.lastChange()));
        }
        for (String process : beaten) {
            changed.addAll(query(tx, SESSION_LEASES_SQL, rs -> leaseRow(tx, rs, holders), process,
                    before.lastChange()));
        }
        List<LeaseRow> rows = new ArrayList<>(before.rows());
        Map<String, Integer> held = new HashMap<>(before.held());
        for (LeaseRow row : changed) {
            Integer at = before.positions().get(row.actor());
            if (at == null) { // an actor the last full read did not see: read everything rather than guess
                return fullRead(tx, before, holders, actorCount, lastChange, sessions);
            }
            LeaseRow previous = rows.get(at);
            count(held, previous, -1);
            count(held, row, +1);
            rows.set(at, row.equals(previous) ? previous : row);
        }
        return new Read(actorCount, lastChange, Map.copyOf(sessions), List.copyOf(rows), before.positions(), held,
                changed.size());
    }

    /** Makes {@code read} the baseline of the next snapshot (once its transaction committed). */
    void keep(Read read) {
        baseline = read;
    }

    private Read fullRead(JdbcTx tx, Read before, Map<String, ProcessRef> holders, long actorCount,
                          long lastChange, Map<String, Long> sessions) throws SQLException {
        List<LeaseRow> rows = query(tx, ALL_LEASES_SQL, rs -> {
            LeaseRow row = leaseRow(tx, rs, holders);
            Integer at = before == null ? null : before.positions().get(row.actor());
            return at != null && row.equals(before.rows().get(at)) ? before.rows().get(at) : row;
        });
        Map<String, Integer> positions = new HashMap<>(rows.size() * 2);
        Map<String, Integer> held = new HashMap<>();
        for (LeaseRow row : rows) {
            positions.put(row.actor(), positions.size());
            count(held, row, +1);
        }
        return new Read(actorCount, lastChange, Map.copyOf(sessions), List.copyOf(rows), positions, held, rows.size());
    }

    /**
     * Runs {@code sql} on its kept statement of {@code tx}'s connection. A statement whose execution or mapping failed
     * is closed and forgotten (its state is unknown); the next use prepares it again.
     */
    private <T> List<T> query(JdbcTx tx, String sql, PgTx.RowMapper<T> mapper, Object... args) throws SQLException {
        Connection c = ((PgTx) tx).connection();
        if (c != keptOn) { // the first use, or the connection was lost and replaced: the kept ones are of the old one
            close();
            keptOn = c;
        }
        PreparedStatement ps = kept.remove(sql);
        if (ps == null) {
            ps = c.prepareStatement(sql);
            prepared++;
        }
        boolean completed = false;
        try {
            PgTx.bind(ps, args);
            List<T> out = new ArrayList<>();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(mapper.map(rs));
                }
            }
            completed = true;
            return out;
        } finally {
            if (completed) {
                kept.put(sql, ps);
            } else {
                closeQuietly(ps);
            }
        }
    }

    private long scalar(JdbcTx tx, String sql, Object... args) throws SQLException {
        List<Long> one = query(tx, sql, rs -> rs.getLong(1), args);
        if (one.size() != 1) {
            throw new IllegalStateException("expected one row, got " + one.size() + " for: " + sql);
        }
        return one.get(0);
    }

    /** Diagnostics for tests: how many statements this reader has prepared since it opened. */
    long statementsPrepared() {
        return prepared;
    }

    /** For tests: the statements kept prepared now. */
    List<PreparedStatement> keptStatements() {
        return List.copyOf(kept.values());
    }

    /** Closes the kept statements (the reader closes, or its connection was replaced). */
    void close() {
        kept.values().forEach(PgAdminLeases::closeQuietly);
        kept.clear();
        keptOn = null;
    }

    private static void closeQuietly(PreparedStatement ps) {
        try {
            ps.close();
        } catch (SQLException ignored) {
            // a statement of a lost connection, or already closed: nothing to release
        }
    }

    private static void count(Map<String, Integer> held, LeaseRow row, int delta) {
        if (row.holder() != null) {
            held.merge(row.holder().identity(), delta, (a, b) -> a + b == 0 ? null : a + b);
        }
    }

    /** Actor, then the lease columns (null: free); a holder not among the snapshot's processes is looked up once. */
    private static LeaseRow leaseRow(JdbcTx tx, ResultSet rs, Map<String, ProcessRef> holders) throws SQLException {
        String actor = rs.getString(1);
        String holder = rs.getString(2);
        if (holder == null) {
            return LeaseRow.free(actor);
        }
        ProcessRef ref = holders.get(holder);
        if (ref == null) {
            ref = tx.one("SELECT label, pid, host FROM processes WHERE identity = ?",
                    r -> new ProcessRef(holder, r.getString(1), JdbcTx.nullableLong(r, "pid"), r.getString(3)), holder)
                    .orElse(ProcessRef.unknown(holder));
            holders.put(holder, ref);
        }
        return new LeaseRow(actor, ref, rs.getLong(3), rs.getLong(4), rs.getLong(5), rs.getLong(6), rs.getLong(7),
                rs.getLong(8));
    }

    /** The processes with how many lease rows name each, from this snapshot's own lease list. */
    static List<ProcessRow> withLeaseCounts(List<ProcessRow> processes, Map<String, Integer> held) {
        List<ProcessRow> out = new ArrayList<>(processes.size());
        for (ProcessRow p : processes) {
            out.add(new ProcessRow(p.process(), p.kind(), p.startedAt(), p.heartbeatAt(), p.heartbeatIntervalMs(),
                    p.stoppedAt(), held.getOrDefault(p.process().identity(), 0), p.activeAttempts(), p.lastClaim()));
        }
        return out;
    }
}
