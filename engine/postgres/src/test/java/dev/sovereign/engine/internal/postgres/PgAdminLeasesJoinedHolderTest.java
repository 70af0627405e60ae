package dev.sovereign.engine.internal.postgres;

import static dev.sovereign.engine.testing.RawPg.q;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.base.EngineConfig;
import dev.sovereign.engine.internal.jdbc.Dialect;
import dev.sovereign.engine.internal.jdbc.JdbcAdminLeases;
import dev.sovereign.engine.internal.jdbc.LeaseSql;
import dev.sovereign.engine.lease.Lease;
import dev.sovereign.engine.testing.PgTestServer;
import dev.sovereign.engine.testing.RawPg;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * PostgreSQL's console lease statements read the holder's beat by a join (one look-up per row) where they read it by
 * two correlated subqueries before; every statement must return exactly what its subquery form returns (the engine's
 * own rule, {@code LeaseSql.effective}), for a lease attached to a session that beat since its grant, one
 * detached ({@code abandon}), one whose holder stopped, one whose holder's row is missing (a hand-made hole: the
 * foreign key's triggers off for one statement), a free actor and a released one (a tombstone). And the plan over
 * 10,000 leases is one join, no subplan per row.
 */
class PgAdminLeasesJoinedHolderTest {
    private PgTestServer.Database db;
    private Connection owner;
    private RawPg sql;
    private final List<Engine> engines = new ArrayList<>();
    private final Map<String, Long> ownExpiry = new HashMap<>();
    private long beatOfA;

    /** The reader's lease columns as they were before the join: the holder's beat by two subqueries. */
    private static String bySubquery(String row) {
        return row + "process_identity, " + row + "token, " + row + "ttl_ms, " + row + "acquired_at, "
                + LeaseSql.effective(Dialect.POSTGRES, row, "renewed_at") + ", "
                + LeaseSql.effective(Dialect.POSTGRES, row, "expires_at") + ", " + row + "renewals";
    }

    /** The console reader's lease statements, as the shared reader runs them on this backend. */
    private static final String ALL_LEASES_SQL = JdbcAdminLeases.allLeasesSql(Dialect.POSTGRES);

    private static final String CHANGED_LEASES_SQL = JdbcAdminLeases.changedLeasesSql(Dialect.POSTGRES);
    private static final String SESSION_LEASES_SQL = JdbcAdminLeases.sessionLeasesSql(Dialect.POSTGRES);

    private static final String ALL_BY_SUBQUERY = "SELECT a.id, " + bySubquery("l.")
            + " FROM actors a LEFT JOIN actor_leases l ON l.actor_id = a.id ORDER BY a.id COLLATE \"C\"";
    private static final String CHANGED_BY_SUBQUERY = "SELECT l.actor_id, " + bySubquery("l.")
            + " FROM actor_leases l WHERE l.change_seq > ?"
            + " UNION ALL SELECT t.actor_id, " + bySubquery("j.")
            + " FROM lease_tombstones t LEFT JOIN actor_leases j ON j.actor_id = t.actor_id"
            + " WHERE t.change_seq > ? AND (j.actor_id IS NULL OR j.change_seq <= ?)";
    private static final String SESSION_BY_SUBQUERY = "SELECT l.actor_id, " + bySubquery("l.")
            + " FROM actor_leases l WHERE l.process_identity = ? AND l.attached AND l.change_seq <= ?";

    @BeforeEach
    void open() throws Exception {
        db = PgTestServer.freshDatabase();
        owner = db.connect();
        sql = new RawPg(owner);
    }

    @AfterEach
    void close() throws Exception {
        for (Engine e : engines) {
            e.close();
        }
        owner.close();
    }

    private Engine engine() {
        Engine e =
                Engine.open(EngineConfig.forDatabase(db.url()).heartbeat(false).build());
        engines.add(e);
        return e;
    }

    private void moveClock(long ms) {
        sql.passes("UPDATE server_clock SET pinned_ms = pinned_ms + " + ms + " WHERE id = 1");
    }

    /** A ledger with every kind of holder; the server's clock pinned, moved by hand. */
    private void everyKindOfHolder() throws SQLException {
        Engine a = engine();
        Engine b = engine();
        Engine c = engine();
        sql.passes("UPDATE server_clock SET pinned_ms = (SELECT floor(extract(epoch FROM clock_timestamp()) * 1000)"
                + "::bigint) WHERE id = 1");
        for (String actor : List.of("beaten", "abandoned", "stopped", "orphan", "free", "released", "fresh")) {
            a.actors().add(actor);
        }
        a.leases().acquire("beaten", Duration.ofSeconds(5));
        Lease abandoned = a.leases().acquire("abandoned", Duration.ofSeconds(5));
        Lease released = a.leases().acquire("released", Duration.ofSeconds(5));
        b.leases().acquire("stopped", Duration.ofSeconds(7));
        c.leases().acquire("orphan", Duration.ofSeconds(3));
        moveClock(2_000);
        a.heartbeatNow();
        b.heartbeatNow();
        c.heartbeatNow();
        assertThat(a.leases().abandon("abandoned", abandoned.token())).isTrue();
        a.leases().release("released", released.token());
        moveClock(1_000);
        a.heartbeatNow();
        beatOfA = sql.scalar("SELECT sovereign_now_ms()");
        a.leases().acquire("fresh", Duration.ofSeconds(4)); // granted after the beat: its own expiry is the later
        sql.passes("UPDATE processes SET stopped_at = heartbeat_at + 1 WHERE identity = " + q(b.processIdentity()));
        // c stays open (closing an engine releases its leases) and writes nothing more: it beats by hand only
        sql.passes(
                "SET session_replication_role = replica", // the foreign key's triggers off for this hole only
                // and the deletion guard of version 14, which fires ALWAYS (a holder is never pruned): this test
                // reads what a ledger damaged by hand shows, not what the guards allow
                "ALTER TABLE processes DISABLE TRIGGER processes_guard_delete",
                "DELETE FROM processes WHERE identity = " + q(c.processIdentity()),
                "ALTER TABLE processes ENABLE ALWAYS TRIGGER processes_guard_delete",
                "SET session_replication_role = DEFAULT");
        assertThat(sql.scalar("SELECT count(*) FROM processes WHERE identity = " + q(c.processIdentity())))
                .isZero();
        for (List<Object> row : rows("SELECT actor_id, expires_at FROM actor_leases")) {
            ownExpiry.put((String) row.get(0), (Long) row.get(1));
        }
    }

    private List<List<Object>> rows(String statement, Object... args) throws SQLException {
        List<List<Object>> out = new ArrayList<>();
        try (PreparedStatement ps = owner.prepareStatement(statement)) {
            PgTx.bind(ps, args);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    List<Object> row = new ArrayList<>();
                    for (int i = 1; i <= rs.getMetaData().getColumnCount(); i++) {
                        row.add(rs.getObject(i));
                    }
                    out.add(row);
                }
            }
        }
        return out;
    }

    @Test
    void everyLeaseStatementReturnsWhatItsSubqueryFormReturns() throws SQLException {
        everyKindOfHolder();
        assertThat(rows(ALL_LEASES_SQL)).hasSize(7).isEqualTo(rows(ALL_BY_SUBQUERY));
        // every marker in the ledger (each a writing transaction's id, schema version 18) and the one just below it
        List<Long> markers = new java.util.ArrayList<>(List.of(0L));
        for (List<Object> m :
                rows("SELECT change_seq FROM actor_leases UNION SELECT change_seq FROM lease_tombstones")) {
            markers.add(((Number) m.get(0)).longValue() - 1);
            markers.add(((Number) m.get(0)).longValue());
        }
        assertThat(markers).hasSizeGreaterThan(4);
        long last = java.util.Collections.max(markers);
        for (long marker : markers) {
            assertThat(rows(CHANGED_LEASES_SQL, marker, marker, marker))
                    .as("changed after %d", marker)
                    .isEqualTo(rows(CHANGED_BY_SUBQUERY, marker, marker, marker));
        }
        assertThat(rows(CHANGED_LEASES_SQL, 0L, 0L, 0L)).hasSize(6); // five rows and the tombstone
        List<List<Object>> holders = rows("SELECT DISTINCT process_identity FROM actor_leases");
        assertThat(holders).hasSize(3);
        for (List<Object> holder : holders) {
            for (long marker : new long[] {last, 2}) {
                assertThat(rows(SESSION_LEASES_SQL, holder.get(0), marker))
                        .as("%s up to %d", holder, marker)
                        .isEqualTo(rows(SESSION_BY_SUBQUERY, holder.get(0), marker));
            }
        }
    }

    @Test
    void theEffectiveExpiryIsTheSessionsForAnAttachedLeaseAndTheRowsOwnOtherwise() throws SQLException {
        everyKindOfHolder();
        Map<String, Long> expiry = new HashMap<>();
        for (List<Object> row : rows(ALL_LEASES_SQL)) {
            expiry.put((String) row.get(0), (Long) row.get(6));
        }
        assertThat(expiry.get("beaten")).isEqualTo(beatOfA + 5_000).isGreaterThan(ownExpiry.get("beaten"));
        assertThat(expiry.get("abandoned")).isEqualTo(ownExpiry.get("abandoned")); // detached: frozen at its abandon
        assertThat(expiry.get("stopped")).isEqualTo(ownExpiry.get("stopped") + 2_000); // its last beat, stopped or not
        assertThat(expiry.get("orphan")).isEqualTo(ownExpiry.get("orphan")); // no holder row: the row's own
        assertThat(expiry.get("fresh")).isEqualTo(ownExpiry.get("fresh")).isEqualTo(beatOfA + 4_000);
        assertThat(expiry.get("free")).isNull();
        assertThat(expiry.get("released")).isNull();
    }

    /**
     * 10,000 attached leases of 100 sessions, written in bulk by the owner with the lease guards off (the plan
     * is the point, not the writes), analysed: each statement joins the holder once (a hash join over the small
     * processes table, or a primary-key look-up per row), with no subplan evaluated per row.
     */
    @Test
    void theJoinIsOnePlanNodeNotASubplanPerRow() throws SQLException {
        engine(); // migrates the ledger
        sql.passes(
                "ALTER TABLE actor_leases DISABLE TRIGGER USER",
                "INSERT INTO processes (identity, pid, host, kind, label, started_at, heartbeat_at,"
                        + " heartbeat_interval_ms) SELECT 'proc_' || p, p, 'h', 'worker', 'w' || p, 0, 1000, 1000"
                        + " FROM generate_series(1, 100) p",
                "INSERT INTO actors (id, created_at) SELECT 'actor-' || lpad(i::text, 5, '0'), 0"
                        + " FROM generate_series(1, 10000) i",
                "INSERT INTO actor_leases (actor_id, process_identity, token, ttl_ms, acquired_at, renewed_at,"
                        + " expires_at, renewal_journalled_at, change_seq, attached) SELECT 'actor-' || lpad(i::text,"
                        + " 5, '0'), 'proc_' || (1 + i % 100), i, 5000, 0, 0, 5000, 0, i, true"
                        + " FROM generate_series(1, 10000) i",
                "ALTER TABLE actor_leases ENABLE TRIGGER USER");
        sql.exec("ANALYZE");
        Map<String, Object[]> statements = Map.of(
                "ALL_LEASES_SQL", new Object[] {ALL_LEASES_SQL},
                "CHANGED_LEASES_SQL (100 changed)", new Object[] {CHANGED_LEASES_SQL, 9900L, 9900L, 9900L},
                "SESSION_LEASES_SQL (100 rows)", new Object[] {SESSION_LEASES_SQL, "proc_7", 10000L});
        for (Map.Entry<String, Object[]> e : statements.entrySet()) {
            Object[] args = Arrays.copyOfRange(e.getValue(), 1, e.getValue().length);
            List<String> plan = new ArrayList<>();
            for (List<Object> line : rows("EXPLAIN " + e.getValue()[0], args)) {
                plan.add((String) line.get(0));
            }
            System.out.println("PLAN of " + e.getKey() + " over 10,000 leases:\n  " + String.join("\n  ", plan));
            assertThat(plan)
                    .as("plan of %s", e.getKey())
                    .noneMatch(step -> step.contains("SubPlan"))
                    .anyMatch(step -> step.contains("Left Join"));
        }
    }
}
