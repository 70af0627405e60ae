package dev.sovereign.engine.bench;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * The contract's own floor on PostgreSQL (issue 28): {@link ContractFloor}'s grant and release as hand-written SQL
 * sent by the client, on a database whose schema the engine created, over the kind of connection the engine holds
 * ({@link PgBench#plainConnection}: DriverManager, READ COMMITTED, auto-commit off for the transaction).
 *
 * <p>The engine's common case calls the ledger's lease functions ({@code sovereign_lease_grant},
 * {@code sovereign_lease_release}, V0005/V0007), which run the contract's statements inside the server. The floor
 * does NOT call them: it sends the same statements itself, in the same number of round trips (one per transaction,
 * then the COMMIT), and leaves out what the functions add besides the contract (the actor check, the explicit row
 * locks and the sanity reads that let them hand a refusal to the engine's full path). <b>Grant</b>: one statement
 * ({@link #GRANT}) — mint from the token counter's row of the actor's stripe (schema version 19), mark the row with its transaction's id (the change marker of schema
 * version 18, decision 0923), insert the lease row (the
 * compare-and-set of a free actor) at the server's clock ({@code sovereign_now_ms()}, contract §15), journal
 * {@code LEASE_ACQUIRED}. <b>Release</b>: one batch of two statements ({@link #RELEASE}; a row cannot be updated and
 * deleted by one statement) — mark the row and state the token in it, which the delete guard demands; then
 * delete the row presenting the token and journal {@code LEASE_RELEASED}; the schema's trigger leaves the tombstone.
 *
 * <p><b>Guards off</b>: every trigger on the ledger's tables dropped (as the owner, in the benchmark's own database;
 * the foreign keys and CHECKs stay), the same statements, and by hand the one thing a dropped trigger wrote — the
 * released lease's tombstone with its transaction's id ({@link #TOMBSTONE}, in the same batch) — so both
 * variants leave the same rows. The statements are checked against the installed guards by
 * {@code PgContractFloorTest}.
 */
final class PgContractFloor implements AutoCloseable {
    static final String PROCESS = ContractFloor.PROCESS;
    static final String ACTOR = ContractFloor.ACTOR;
    static final long TTL_MS = ContractFloor.TTL_MS;

    /** The benchmark method that measures it, as the report finds it. */
    static final String BENCHMARK = "PgContractFloorBenchmark.grantRelease";

    static final String GRANT =
            "WITH t AS (UPDATE token_counter SET last_token = last_token + 64 WHERE id = sovereign_token_stripe(?::text)"
                    + " RETURNING last_token),"
                    + " n AS (SELECT sovereign_now_ms() AS ms),"
                    + " l AS (INSERT INTO actor_leases (actor_id, process_identity, token, ttl_ms, acquired_at,"
                    + " renewed_at, expires_at, renewals, renewal_journalled_at, change_seq, attached)"
                    + " SELECT ?::text, ?::text, t.last_token, ?::bigint, n.ms, n.ms, n.ms + ?::bigint, 0, n.ms,"
                    + " txid_current(), true FROM t, n ON CONFLICT (actor_id) DO NOTHING"
                    + " RETURNING actor_id, process_identity, token, ttl_ms, acquired_at)"
                    + " INSERT INTO fence_events (at, kind, resource_type, resource_id, actor_id, process_identity,"
                    + " token, detail) SELECT l.acquired_at, 'LEASE_ACQUIRED', 'actor', l.actor_id, l.actor_id,"
                    + " l.process_identity, l.token, 'ttl ' || l.ttl_ms || ' ms' FROM l RETURNING token";

    static final String STATE_RELEASE =
            "UPDATE actor_leases SET change_seq = txid_current(), presented_token = ?::bigint,"
                    + " presented_change = txid_current()"
                    + " WHERE actor_id = ?::text AND process_identity = ?::text AND token = ?::bigint";

    static final String DELETE_AND_JOURNAL = "WITH d AS (DELETE FROM actor_leases"
            + " WHERE actor_id = ?::text AND process_identity = ?::text AND token = ?::bigint"
            + " RETURNING actor_id, process_identity, token)"
            + " INSERT INTO fence_events (at, kind, resource_type, resource_id, actor_id, process_identity, token)"
            + " SELECT sovereign_now_ms(), 'LEASE_RELEASED', 'actor', d.actor_id, d.actor_id, d.process_identity,"
            + " d.token FROM d";

    /** The release: two statements, one round trip (pgjdbc sends a multi-statement string in one batch). */
    static final String RELEASE = STATE_RELEASE + "; " + DELETE_AND_JOURNAL;

    /** Guards off only: what the dropped {@code actor_leases_delete_leaves_tombstone} trigger wrote. */
    static final String TOMBSTONE =
            "INSERT INTO lease_tombstones (actor_id, change_seq) VALUES (?::text, txid_current())"
                    + " ON CONFLICT (actor_id) DO UPDATE SET change_seq = excluded.change_seq";

    private final Connection connection;
    private final boolean guards;
    /** The actor this floor grants and releases ({@link #ACTOR} unless opened for another). */
    private final String actor;

    private final PreparedStatement grant;
    private final PreparedStatement release;
    private long batches;

    private PgContractFloor(Connection connection, boolean guards, String actor) throws SQLException {
        this.connection = connection;
        this.guards = guards;
        this.actor = actor;
        grant = connection.prepareStatement(GRANT);
        release = connection.prepareStatement(guards ? RELEASE : RELEASE + "; " + TOMBSTONE);
    }

    /**
     * The floor on the engine-created ledger at {@code url} (holding {@link #ACTOR}): registers {@link #PROCESS} as the
     * engine registers a process, then, for {@code guards} false, drops every trigger on the ledger's tables.
     */
    static PgContractFloor open(String url, boolean guards) throws SQLException {
        return open(url, guards, ACTOR);
    }

    /** The same for {@code actor} (which the ledger must hold): several floors side by side, one actor each. */
    static PgContractFloor open(String url, boolean guards, String actor) throws SQLException {
        Connection c = PgBench.plainConnection(url);
        try {
            register(c);
            if (!guards) {
                dropTriggers(c);
            }
            c.setAutoCommit(false);
            return new PgContractFloor(c, guards, actor);
        } catch (SQLException | RuntimeException e) {
            c.close();
            throw e;
        }
    }

    private static void register(Connection c) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(
                "INSERT INTO processes (identity, pid, host, kind, label,"
                        + " started_at, heartbeat_at, heartbeat_interval_ms) VALUES (?, ?, 'localhost', 'bench',"
                        + " 'contract floor', sovereign_now_ms(), sovereign_now_ms(), 1000) ON CONFLICT (identity) DO NOTHING")) {
            ps.setString(1, PROCESS);
            ps.setLong(2, ProcessHandle.current().pid());
            ps.executeUpdate();
        }
    }

    /** Drops every trigger (not the foreign keys' internal ones) on the tables of the connection's schema. */
    static int dropTriggers(Connection c) throws SQLException {
        List<String> drops = new ArrayList<>();
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT format('DROP TRIGGER %I ON %s', t.tgname, t.tgrelid::regclass)"
                        + " FROM pg_trigger t JOIN pg_class r ON r.oid = t.tgrelid"
                        + " WHERE NOT t.tgisinternal AND r.relnamespace = current_schema()::regnamespace")) {
            while (rs.next()) {
                drops.add(rs.getString(1));
            }
        }
        try (Statement s = c.createStatement()) {
            for (String drop : drops) {
                s.execute(drop);
            }
        }
        return drops.size();
    }

    Connection connection() {
        return connection;
    }

    /** The statement batches sent so far: one per grant and one per release (round trips = batches + COMMITs). */
    long batches() {
        return batches;
    }

    /** A grant of the free {@link #ACTOR} to {@link #PROCESS}, committed; the token it minted. */
    long grant() throws SQLException {
        try {
            grant.setString(1, actor); // its stripe's row (schema version 19)
            grant.setString(2, actor);
            grant.setString(3, PROCESS);
            grant.setLong(4, TTL_MS);
            grant.setLong(5, TTL_MS);
            long token;
            batches++;
            try (ResultSet rs = grant.executeQuery()) {
                if (!rs.next()) {
                    throw new IllegalStateException("not granted: " + actor + " has a lease row");
                }
                token = rs.getLong(1);
            }
            connection.commit();
            return token;
        } catch (SQLException | RuntimeException e) {
            connection.rollback();
            throw e;
        }
    }

    /** The release of {@link #ACTOR}'s lease under {@code token}, committed. */
    void release(long token) throws SQLException {
        try {
            release.setLong(1, token);
            release.setString(2, actor);
            release.setString(3, PROCESS);
            release.setLong(4, token);
            release.setString(5, actor);
            release.setString(6, PROCESS);
            release.setLong(7, token);
            if (!guards) {
                release.setString(8, actor);
            }
            batches++;
            release.execute();
            int stated = release.getUpdateCount();
            release.getMoreResults();
            int journalled = release.getUpdateCount();
            if (stated != 1 || journalled != 1) {
                throw new IllegalStateException("not released: " + actor + " is not held under token " + token);
            }
            connection.commit();
        } catch (SQLException | RuntimeException e) {
            connection.rollback();
            throw e;
        }
    }

    @Override
    public void close() throws SQLException {
        grant.close();
        release.close();
        connection.close();
    }
}
