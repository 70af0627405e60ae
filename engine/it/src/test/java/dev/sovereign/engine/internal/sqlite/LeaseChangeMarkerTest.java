package dev.sovereign.engine.internal.sqlite;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.admin.AdminSnapshot;
import dev.sovereign.engine.admin.LeaseRow;
import dev.sovereign.engine.internal.jdbc.Dialect;
import dev.sovereign.engine.internal.jdbc.JdbcAdminLeases;
import dev.sovereign.engine.lease.Lease;
import dev.sovereign.engine.testing.SettableClock;
import dev.sovereign.engine.testing.TempDatabase;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Schema version 2's lease change marker: how it is read, and how a version-1 file gets it. */
class LeaseChangeMarkerTest {
    @RegisterExtension
    final TempDatabase temp = new TempDatabase();

    private final SettableClock clock = new SettableClock();

    private Connection plain() throws SQLException {
        return DriverManager.getConnection("jdbc:sqlite:" + temp.file());
    }

    @Test
    void theChangedLeaseQueriesSearchTheChangeIndexesInsteadOfScanning() throws Exception {
        Engine e = temp.open(clock);
        for (int i = 0; i < 1_000; i++) {
            e.actors().add("actor-" + i);
            Lease l = e.leases().acquire("actor-" + i, Duration.ofMinutes(10));
            if (i % 10 == 0) {
                e.leases().release(l.actor(), l.token());
            }
        }
        List<String> plan = plan(JdbcAdminLeases.changedLeasesSql(Dialect.SQLITE));
        assertThat(plan)
                .as("query plan %s", plan)
                .anySatisfy(d -> assertThat(d)
                        .startsWith("SEARCH l USING")
                        .contains("INDEX actor_leases_by_change (change_seq>?)"))
                .anySatisfy(d -> assertThat(d)
                        .startsWith("SEARCH t USING")
                        .contains("INDEX lease_tombstones_by_change (change_seq>?)"))
                .anySatisfy(d -> assertThat(d).startsWith("SEARCH j USING").contains("(actor_id=?)"))
                .noneSatisfy(d -> assertThat(d).startsWith("SCAN"));
        assertThat(plan(JdbcAdminLeases.COUNT_CHANGED_SQL))
                .singleElement()
                .satisfies(d -> assertThat(d)
                        .isEqualTo("SEARCH actor_leases USING COVERING INDEX actor_leases_by_change (change_seq>?)"));
    }

    private List<String> plan(String sql) throws SQLException {
        List<String> plan = new ArrayList<>();
        try (Connection c = plain();
                PreparedStatement ps = c.prepareStatement("EXPLAIN QUERY PLAN " + sql)) {
            for (int i = 1; i <= ps.getParameterMetaData().getParameterCount(); i++) {
                ps.setLong(i, 990);
            }
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    plan.add(rs.getString("detail"));
                }
            }
        }
        return plan;
    }

    /** A file as version 1 left it: only V0001 applied, stamped version 1, with leases in it. */
    private void createVersionOneFileWithLeases() throws Exception {
        long now = clock.millis();
        OlderSchema.create(temp.file(), 1, s -> {
            s.execute("INSERT INTO processes (identity, pid, host, kind, label, started_at, heartbeat_at,"
                    + " heartbeat_interval_ms) VALUES ('proc_old', 1, 'h', 'worker', 'old worker', " + now + ", "
                    + now + ", 1000)");
            for (int i = 0; i < 5; i++) {
                s.execute("INSERT INTO actors (id, created_at) VALUES ('actor-" + i + "', " + now + ")");
            }
            for (int i = 0; i < 4; i++) {
                s.execute("UPDATE token_counter SET last_token = last_token + 1 WHERE id = 1");
                s.execute(
                        "INSERT INTO actor_leases (actor_id, process_identity, token, ttl_ms, acquired_at, renewed_at,"
                                + " expires_at, renewals, renewal_journalled_at) VALUES ('actor-" + i
                                + "', 'proc_old', "
                                + (i + 1) + ", 5000, " + now + ", " + now + ", " + (now + 5000) + ", " + i + ", " + now
                                + ")");
            }
        });
    }

    private List<String> leaseRows() throws SQLException {
        List<String> rows = new ArrayList<>();
        try (Connection c = plain();
                Statement s = c.createStatement();
                ResultSet rs =
                        s.executeQuery("SELECT actor_id, process_identity, token, ttl_ms, acquired_at, renewed_at,"
                                + " expires_at, renewals, renewal_journalled_at FROM actor_leases ORDER BY actor_id")) {
            while (rs.next()) {
                StringBuilder row = new StringBuilder();
                for (int i = 1; i <= 9; i++) {
                    row.append(rs.getString(i)).append('|');
                }
                rows.add(row.toString());
            }
        }
        return rows;
    }

    private long scalar(String sql) throws SQLException {
        try (Connection c = plain();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(sql)) {
            return rs.getLong(1);
        }
    }

    @Test
    void aVersionOneFileMigratesKeepingEveryLeaseAndIsThenReadIncrementally() throws Exception {
        createVersionOneFileWithLeases();
        List<String> before = leaseRows();
        assertThat(before).hasSize(4);

        Engine e = temp.open(clock);

        assertThat(scalar("PRAGMA user_version")).isEqualTo(Migrator.LATEST);
        assertThat(leaseRows()).isEqualTo(before);
        assertThat(scalar("SELECT count(*) FROM actor_leases WHERE change_seq = 0"))
                .isEqualTo(4);
        assertThat(scalar("SELECT last_change FROM lease_change_counter WHERE id = 1"))
                .isZero();
        assertThat(scalar("SELECT last_token FROM token_counter WHERE id = 1")).isEqualTo(4);

        try (SqliteAdminReader r = SqliteAdminReader.open(temp.file(), clock, ZoneOffset.UTC)) {
            AdminSnapshot first = r.snapshot();
            assertThat(r.leaseRowsReadLastSnapshot()).isEqualTo(5);
            assertThat(first.leases()).extracting(LeaseRow::token).containsExactly(1L, 2L, 3L, 4L, 0L);

            clock.advance(Duration.ofSeconds(6)); // the old worker's leases expire: take one over
            Lease taken = e.leases().acquire("actor-2", Duration.ofSeconds(5));
            Lease fresh = e.leases().acquire("actor-4", Duration.ofSeconds(5));
            AdminSnapshot second = r.snapshot();
            assertThat(r.leaseRowsReadLastSnapshot()).isEqualTo(2);
            assertThat(second.leases().get(2).token()).isEqualTo(taken.token());
            assertThat(second.leases().get(4).token()).isEqualTo(fresh.token());
            assertThat(second.leases().get(0)).isSameAs(first.leases().get(0));

            e.leases().release("actor-2", taken.token());
            AdminSnapshot third = r.snapshot();
            assertThat(r.leaseRowsReadLastSnapshot()).isEqualTo(1);
            assertThat(third.leases().get(2).isFree()).isTrue();

            try (SqliteAdminReader fullReader = SqliteAdminReader.open(temp.file(), clock, ZoneOffset.UTC)) {
                assertThat(third.leases()).isEqualTo(fullReader.snapshot().leases());
            }
            assertThat(r.fullLeaseReads()).isEqualTo(1);
        }
    }
}
