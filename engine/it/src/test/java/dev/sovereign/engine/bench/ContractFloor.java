package dev.sovereign.engine.bench;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.base.Durability;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * The contract's own floor on SQLite (issue 28): hand-written SQL doing exactly what the contract requires of a grant
 * and a release of an actor lease, and nothing the engine adds, on a file the engine created and migrated, through
 * a plain JDBC connection with the engine connection's pragmas, every statement prepared once.
 *
 * <p><b>Grant</b> (a free actor; one {@code BEGIN IMMEDIATE} transaction, {@code now} read after the lock as the
 * engine does, contract §3): mint the token from the one counter ({@link #MINT}), raise the lease change marker the
 * schema's guards demand ({@link #RAISE_CHANGE}), write the lease row with both ({@link #GRANT}: the insert is the
 * compare-and-set of a free actor, attached to the holder's session as the engine's is), append
 * {@code LEASE_ACQUIRED} ({@link #JOURNAL}). <b>Release</b> (one transaction): raise the change marker and state the
 * release in the row presenting the token ({@link #STATE_RELEASE}) — the only way the guards let a lease row go
 * (V0008): the schema's own triggers then delete the row, leave its tombstone and journal {@code LEASE_RELEASED}.
 * The engine adds to this its reads (the actor, the row under the lock, the counter for the sanity rule), a savepoint
 * per work (group commit) and its bookkeeping in Java.
 *
 * <p><b>Guards off</b> ({@link #dropTriggers}): the same schema with every trigger dropped, and the same statements.
 * Where a dropped trigger did work rather than a check — SQLite's release: delete the row, leave the tombstone
 * (its own step of the change counter) and journal the release — the floor writes those rows itself
 * ({@link #DELETE}, {@link #TOMBSTONE}, {@link #JOURNAL}), so both variants leave the same rows and the difference is
 * the database's checks alone. A file without its triggers is refused by every engine open (contract §14): such a
 * file is only ever written by this class.
 *
 * <p>The statements are checked against the installed guards by {@code ContractFloorTest}, which also reads the
 * result back through the engine's API; change one here and that test says whether the schema still takes it.
 */
final class ContractFloor implements AutoCloseable {
    /** The process the floor's leases name: registered by hand, its session row the attached lease hangs on. */
    static final String PROCESS = "proc_contract-floor";

    static final String ACTOR = "cycled";

    static final long TTL_MS = LeaseBenchmark.TTL.toMillis();

    /** The benchmark method that measures it, as the report finds it. */
    static final String BENCHMARK = "ContractFloorBenchmark.grantRelease";

    /** The census's and the report's label for a grant + release with or without the guards. */
    static String label(boolean guards) {
        return "contract floor: grant + release, guards " + (guards ? "on" : "off");
    }

    static final String MINT = "UPDATE token_counter SET last_token = last_token + 1 WHERE id = 1 RETURNING last_token";

    static final String RAISE_CHANGE =
            "UPDATE lease_change_counter SET last_change = last_change + 1 WHERE id = 1 RETURNING last_change";

    static final String GRANT = "INSERT INTO actor_leases (actor_id, process_identity, token, ttl_ms, acquired_at,"
            + " renewed_at, expires_at, renewal_journalled_at, change_seq, attached)"
            + " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 1) ON CONFLICT (actor_id) DO NOTHING";

    static final String JOURNAL = "INSERT INTO fence_events (at, kind, resource_type, resource_id, actor_id,"
            + " process_identity, token, detail) VALUES (?, ?, 'actor', ?, ?, ?, ?, ?)";

    static final String STATE_RELEASE = "UPDATE actor_leases SET change_seq = ?, presented_token = ?,"
            + " presented_change = ?, released_at = ? WHERE actor_id = ? AND process_identity = ? AND token = ?";

    /** Guards off only: what the triggers of V0008 and V0002 did with the stated release. */
    static final String DELETE = "DELETE FROM actor_leases WHERE actor_id = ? AND process_identity = ? AND token = ?";

    static final String TOMBSTONE = "INSERT INTO lease_tombstones (actor_id, change_seq) VALUES (?, ?)"
            + " ON CONFLICT (actor_id) DO UPDATE SET change_seq = excluded.change_seq";

    private final Connection connection;
    private final boolean guards;
    private final Statement control;
    private final PreparedStatement mint;
    private final PreparedStatement raiseChange;
    private final PreparedStatement grant;
    private final PreparedStatement journal;
    private final PreparedStatement stateRelease;
    private final PreparedStatement delete;
    private final PreparedStatement tombstone;

    private ContractFloor(Connection connection, boolean guards) throws SQLException {
        this.connection = connection;
        this.guards = guards;
        control = connection.createStatement();
        mint = connection.prepareStatement(MINT);
        raiseChange = connection.prepareStatement(RAISE_CHANGE);
        grant = connection.prepareStatement(GRANT);
        journal = connection.prepareStatement(JOURNAL);
        stateRelease = connection.prepareStatement(STATE_RELEASE);
        delete = guards ? null : connection.prepareStatement(DELETE);
        tombstone = guards ? null : connection.prepareStatement(TOMBSTONE);
    }

    /** A fresh ledger for the floor: created and migrated by the engine, with the floor's actor added through it. */
    static Path createLedger(Path dir, Durability durability) {
        Path file = dir.resolve("sovereign.db");
        try (Engine e = BenchFiles.openEngine(file, durability)) {
            e.actors().add(ACTOR);
        }
        return file;
    }

    /**
     * The floor on {@code file} (an engine-created ledger holding {@link #ACTOR}): registers {@link #PROCESS} as the
     * engine registers a process, then, for {@code guards} false, drops every trigger of the schema.
     */
    static ContractFloor open(Path file, Durability durability, boolean guards) throws SQLException {
        Connection c = BenchFiles.engineLikeConnection(file, durability);
        try {
            register(c);
            if (!guards) {
                dropTriggers(c);
            }
            return new ContractFloor(c, guards);
        } catch (SQLException | RuntimeException e) {
            c.close();
            throw e;
        }
    }

    private static void register(Connection c) throws SQLException {
        long now = System.currentTimeMillis();
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO processes (identity, pid, host, kind, label,"
                + " started_at, heartbeat_at, heartbeat_interval_ms) VALUES (?, ?, 'localhost', 'bench',"
                + " 'contract floor', ?, ?, 1000) ON CONFLICT (identity) DO NOTHING")) {
            ps.setString(1, PROCESS);
            ps.setLong(2, ProcessHandle.current().pid());
            ps.setLong(3, now);
            ps.setLong(4, now);
            ps.executeUpdate();
        }
    }

    /** Drops every trigger of the schema: the guards, and the triggers that write (the release's, the tombstone). */
    static int dropTriggers(Connection c) throws SQLException {
        List<String> names = new ArrayList<>();
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT name FROM sqlite_master WHERE type = 'trigger'")) {
            while (rs.next()) {
                names.add(rs.getString(1));
            }
        }
        try (Statement s = c.createStatement()) {
            for (String name : names) {
                s.execute("DROP TRIGGER \"" + name + "\"");
            }
        }
        return names.size();
    }

    Connection connection() {
        return connection;
    }

    /** A grant of the free {@link #ACTOR} to {@link #PROCESS} in one transaction; the token it minted. */
    long grant() throws SQLException {
        control.execute("BEGIN IMMEDIATE");
        try {
            long now = System.currentTimeMillis();
            long token = returned(mint);
            long change = returned(raiseChange);
            grant.setString(1, ACTOR);
            grant.setString(2, PROCESS);
            grant.setLong(3, token);
            grant.setLong(4, TTL_MS);
            grant.setLong(5, now);
            grant.setLong(6, now);
            grant.setLong(7, now + TTL_MS);
            grant.setLong(8, now);
            grant.setLong(9, change);
            if (grant.executeUpdate() != 1) {
                throw new IllegalStateException("not granted: " + ACTOR + " has a lease row");
            }
            journal(now, "LEASE_ACQUIRED", token, "ttl " + TTL_MS + " ms");
            control.execute("COMMIT");
            return token;
        } catch (SQLException | RuntimeException e) {
            rollback();
            throw e;
        }
    }

    /** The release of {@link #ACTOR}'s lease under {@code token} in one transaction. */
    void release(long token) throws SQLException {
        control.execute("BEGIN IMMEDIATE");
        try {
            long now = System.currentTimeMillis();
            long change = returned(raiseChange);
            stateRelease.setLong(1, change);
            stateRelease.setLong(2, token);
            stateRelease.setLong(3, change);
            stateRelease.setLong(4, now);
            stateRelease.setString(5, ACTOR);
            stateRelease.setString(6, PROCESS);
            stateRelease.setLong(7, token);
            if (stateRelease.executeUpdate() != 1) {
                throw new IllegalStateException("not released: " + ACTOR + " is not held under token " + token);
            }
            if (!guards) {
                delete.setString(1, ACTOR);
                delete.setString(2, PROCESS);
                delete.setLong(3, token);
                if (delete.executeUpdate() != 1) {
                    throw new IllegalStateException("not released: the row of " + ACTOR + " changed");
                }
                tombstone.setString(1, ACTOR);
                tombstone.setLong(2, returned(raiseChange));
                tombstone.executeUpdate();
                journal(now, "LEASE_RELEASED", token, null);
            }
            control.execute("COMMIT");
        } catch (SQLException | RuntimeException e) {
            rollback();
            throw e;
        }
    }

    private void journal(long now, String kind, long token, String detail) throws SQLException {
        journal.setLong(1, now);
        journal.setString(2, kind);
        journal.setString(3, ACTOR);
        journal.setString(4, ACTOR);
        journal.setString(5, PROCESS);
        journal.setLong(6, token);
        journal.setString(7, detail);
        journal.executeUpdate();
    }

    private static long returned(PreparedStatement ps) throws SQLException {
        try (ResultSet rs = ps.executeQuery()) {
            if (!rs.next()) {
                throw new IllegalStateException("a counter row is missing");
            }
            return rs.getLong(1);
        }
    }

    private void rollback() {
        try {
            control.execute("ROLLBACK");
        } catch (SQLException ignored) {
            // nothing was open
        }
    }

    @Override
    public void close() throws SQLException {
        for (Statement s :
                new Statement[] {mint, raiseChange, grant, journal, stateRelease, delete, tombstone, control}) {
            if (s != null) {
                s.close();
            }
        }
        connection.close();
    }
}
