package dev.sovereign.engine.internal.sqlite;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.internal.jdbc.Dialect;
import dev.sovereign.engine.internal.jdbc.JdbcAdminLeases;
import dev.sovereign.engine.internal.jdbc.LeaseSql;
import dev.sovereign.engine.lease.Lease;
import dev.sovereign.engine.testing.SettableClock;
import dev.sovereign.engine.testing.TempDatabase;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The console's lease statements read the holder's beat by a join (one primary-key look-up per row) where they
 * read it by two correlated subqueries before; every statement must return exactly what its subquery form returns
 * (the engine's own rule, {@code LeaseSql.effective}), for a lease attached to a session that beat
 * since its grant, one detached ({@code abandon}), one whose holder stopped, one whose holder's row is missing (a
 * hand-made hole: the foreign key off), a free actor and a released one (a tombstone).
 */
class AdminLeasesJoinedHolderTest {
    @RegisterExtension
    final TempDatabase temp = new TempDatabase();

    private final SettableClock clock = new SettableClock();
    private ReadConnection db;
    private final Map<String, Long> ownExpiry = new HashMap<>();
    private long beatOfA;

    /** The reader's lease columns as they were before the join: the holder's beat by two subqueries. */
    private static String bySubquery(String row) {
        return row + "process_identity, " + row + "token, " + row + "ttl_ms, " + row + "acquired_at, "
                + LeaseSql.effective(Dialect.SQLITE, row, "renewed_at") + ", "
                + LeaseSql.effective(Dialect.SQLITE, row, "expires_at") + ", " + row + "renewals";
    }

    /** The console reader's lease statements, as the shared reader runs them on this backend. */
    private static final String ALL_LEASES_SQL = JdbcAdminLeases.allLeasesSql(Dialect.SQLITE);

    private static final String CHANGED_LEASES_SQL = JdbcAdminLeases.changedLeasesSql(Dialect.SQLITE);
    private static final String SESSION_LEASES_SQL = JdbcAdminLeases.sessionLeasesSql(Dialect.SQLITE);

    private static final String ALL_BY_SUBQUERY = "SELECT a.id, " + bySubquery("l.")
            + " FROM actors a LEFT JOIN actor_leases l ON l.actor_id = a.id ORDER BY a.id";
    private static final String CHANGED_BY_SUBQUERY = "SELECT l.actor_id, " + bySubquery("l.")
            + " FROM actor_leases l WHERE l.change_seq > ?"
            + " UNION ALL SELECT t.actor_id, " + bySubquery("j.")
            + " FROM lease_tombstones t LEFT JOIN actor_leases j ON j.actor_id = t.actor_id"
            + " WHERE t.change_seq > ? AND (j.actor_id IS NULL OR j.change_seq <= ?)";
    private static final String SESSION_BY_SUBQUERY = "SELECT l.actor_id, " + bySubquery("l.")
            + " FROM actor_leases l WHERE l.process_identity = ? AND l.attached = 1 AND l.change_seq <= ?";

    @BeforeEach
    void ledgerWithEveryKindOfHolder() throws Exception {
        Engine a = temp.open(clock);
        Engine b = temp.open(clock);
        Engine c = temp.open(clock);
        for (String actor : List.of("beaten", "abandoned", "stopped", "orphan", "free", "released", "fresh")) {
            a.actors().add(actor);
        }
        a.leases().acquire("beaten", Duration.ofSeconds(5));
        Lease abandoned = a.leases().acquire("abandoned", Duration.ofSeconds(5));
        Lease released = a.leases().acquire("released", Duration.ofSeconds(5));
        b.leases().acquire("stopped", Duration.ofSeconds(7));
        c.leases().acquire("orphan", Duration.ofSeconds(3));
        clock.advance(Duration.ofSeconds(2));
        a.heartbeatNow();
        b.heartbeatNow();
        c.heartbeatNow();
        assertThat(a.leases().abandon("abandoned", abandoned.token())).isTrue();
        a.leases().release("released", released.token());
        clock.advance(Duration.ofSeconds(1));
        a.heartbeatNow();
        beatOfA = clock.millis();
        a.leases().acquire("fresh", Duration.ofSeconds(4)); // granted after the beat: its own expiry is the later
        String bIdentity = b.processIdentity();
        String cIdentity = c.processIdentity();
        // c stays open (closing an engine releases its leases): it beats by hand only, so it writes nothing more
        try (Connection raw = DriverManager.getConnection("jdbc:sqlite:" + temp.file());
                Statement s = raw.createStatement()) {
            s.execute("PRAGMA foreign_keys = OFF");
            s.execute("UPDATE processes SET stopped_at = heartbeat_at + 1 WHERE identity = '" + bIdentity + "'");
            // The schema keeps a session row while a lease names it: a row missing under its lease is a file
            // changed by hand around that guard, which is put back as it was.
            // (and a running process's row, V0011, and a young one, V0016): the guards are dropped for the statement
            // and put back
            List<String> guards = new ArrayList<>();
            for (String name : List.of(
                    "processes_kept_while_they_hold_a_lease",
                    "processes_running_never_deleted",
                    "processes_deleted_only_when_stopped_long_ago_holding_nothing")) {
                try (ResultSet rs = s.executeQuery("SELECT sql FROM sqlite_master WHERE name = '" + name + "'")) {
                    guards.add(rs.getString(1));
                }
                s.execute("DROP TRIGGER " + name);
            }
            assertThat(s.executeUpdate("DELETE FROM processes WHERE identity = '" + cIdentity + "'"))
                    .isEqualTo(1);
            for (String guard : guards) {
                s.execute(guard);
            }
            try (ResultSet rs = s.executeQuery("SELECT actor_id, expires_at FROM actor_leases")) {
                while (rs.next()) {
                    ownExpiry.put(rs.getString(1), rs.getLong(2));
                }
            }
        }
        db = ReadConnection.open(temp.file());
    }

    @AfterEach
    void closeReader() {
        if (db != null) {
            db.close();
        }
    }

    private List<List<Object>> rows(String sql, Object... args) throws Exception {
        return db.query(
                sql,
                rs -> {
                    List<Object> row = new ArrayList<>();
                    for (int i = 1; i <= rs.getMetaData().getColumnCount(); i++) {
                        row.add(rs.getObject(i));
                    }
                    return row;
                },
                args);
    }

    @Test
    void everyLeaseStatementReturnsWhatItsSubqueryFormReturns() throws Exception {
        List<List<Object>> all = rows(ALL_LEASES_SQL);
        assertThat(all).hasSize(7).isEqualTo(rows(ALL_BY_SUBQUERY));
        long last = db.scalar("SELECT last_change FROM lease_change_counter WHERE id = 1");
        for (long marker : new long[] {0, 1, 2, 3, last - 1, last}) {
            assertThat(rows(CHANGED_LEASES_SQL, marker, marker, marker))
                    .as("changed after %d", marker)
                    .isEqualTo(rows(CHANGED_BY_SUBQUERY, marker, marker, marker));
        }
        assertThat(rows(CHANGED_LEASES_SQL, 0L, 0L, 0L)).hasSize(6); // five rows and the tombstone
        List<String> holders = db.query("SELECT DISTINCT process_identity FROM actor_leases", rs -> rs.getString(1));
        assertThat(holders).hasSize(3);
        for (String holder : holders) {
            for (long marker : new long[] {last, 2}) {
                assertThat(rows(SESSION_LEASES_SQL, holder, marker))
                        .as("%s up to %d", holder, marker)
                        .isEqualTo(rows(SESSION_BY_SUBQUERY, holder, marker));
            }
        }
    }

    @Test
    void theEffectiveExpiryIsTheSessionsForAnAttachedLeaseAndTheRowsOwnOtherwise() throws Exception {
        Map<String, Long> expiry = new HashMap<>();
        for (List<Object> row : rows(ALL_LEASES_SQL)) {
            expiry.put((String) row.get(0), row.get(6) == null ? null : ((Number) row.get(6)).longValue());
        }
        assertThat(expiry.get("beaten")).isEqualTo(beatOfA + 5_000).isGreaterThan(ownExpiry.get("beaten"));
        assertThat(expiry.get("abandoned")).isEqualTo(ownExpiry.get("abandoned")); // detached: frozen at its abandon
        assertThat(expiry.get("stopped")).isEqualTo(ownExpiry.get("stopped") + 2_000); // its last beat, stopped or not
        assertThat(expiry.get("orphan")).isEqualTo(ownExpiry.get("orphan")); // no holder row: the row's own
        assertThat(expiry.get("fresh")).isEqualTo(ownExpiry.get("fresh")).isEqualTo(beatOfA + 4_000);
        assertThat(expiry.get("free")).isNull();
        assertThat(expiry.get("released")).isNull();
    }

    @Test
    void theJoinLooksTheHolderUpByItsPrimaryKey() throws Exception {
        for (String sql : List.of(ALL_LEASES_SQL, CHANGED_LEASES_SQL, SESSION_LEASES_SQL)) {
            Object[] args = new Object[(int) sql.chars().filter(ch -> ch == '?').count()];
            Arrays.fill(args, 0L);
            List<String> plan = db.query("EXPLAIN QUERY PLAN " + sql, rs -> rs.getString("detail"), args);
            assertThat(plan)
                    .as("plan of %s", sql)
                    .noneMatch(step -> step.startsWith("SCAN s"))
                    .anyMatch(step -> step.startsWith("SEARCH s USING INDEX sqlite_autoindex_processes_1 (identity=?)"))
                    .noneMatch(step -> step.contains("CORRELATED SCALAR SUBQUERY"));
        }
    }
}
