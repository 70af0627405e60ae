package dev.sovereign.engine.internal.postgres;

import static dev.sovereign.engine.internal.postgres.PgMigratorTest.scalar;
import static dev.sovereign.engine.internal.postgres.PgMigratorTest.sql;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.base.EngineConfig;
import dev.sovereign.engine.base.StorageException;
import dev.sovereign.engine.base.StorageException.Problem;
import dev.sovereign.engine.testing.PgTestServer;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;

/**
 * Schema version 2 (docs/decisions/0901): a ledger of version 1 is migrated with its rows kept; the server
 * clock can be pinned by the ledger's owner only, and every open refuses a pinned clock unless the JVM runs
 * tests.
 */
class PgServerClockTest {
    private static final PgMigrator MIGRATOR = new PgMigrator(false, "test", "abc123", 10_000);

    /** Builds a ledger of schema version 1 the way the version-1 migrator did. */
    private static void versionOne(Connection c) throws Exception {
        c.setAutoCommit(false);
        try (Statement s = c.createStatement()) {
            s.execute(
                    "SELECT set_config('search_path', quote_ident(current_schema()) || ', pg_catalog, pg_temp', true)");
            s.execute(PgMigrator.load("V0001__initial.sql"));
            s.execute("INSERT INTO ledger_mark (id, lab_sandbox, marked_at) VALUES (1, 0, sovereign_now_ms())");
            s.execute("INSERT INTO schema_migrations VALUES (1, 'old', 'f00', sovereign_now_ms())");
        }
        c.commit();
        c.setAutoCommit(true);
    }

    @Test
    void aVersionOneLedgerIsMigratedKeepingItsRowsAndItsClockUnpinned() throws Exception {
        try (Connection c = PgTestServer.freshDatabase().connect()) {
            versionOne(c);
            sql(
                    c,
                    "INSERT INTO actors (id, created_at) VALUES ('operator', sovereign_now_ms())",
                    "INSERT INTO messages (id, sender, recipient, subject, state, created_at, updated_at)"
                            + " VALUES ('m1', 'x', 'operator', 's', 'NEW', 1, 1)");
            assertThat(PgMigrator.schemaVersion(c)).isEqualTo(1);

            assertThat(MIGRATOR.migrate(c)).isEqualTo(PgMigrator.LATEST);

            assertThat(PgMigrator.guardProblems(c)).isEmpty();
            assertThat(scalar(c, "SELECT count(*) FROM actors")).isEqualTo(1);
            assertThat(scalar(c, "SELECT count(*) FROM messages WHERE sent_seq IS NOT NULL"))
                    .isEqualTo(1);
            assertThat(scalar(c, "SELECT count(*) FROM server_clock WHERE pinned_ms IS NULL"))
                    .isEqualTo(1);
            assertThat(Math.abs(scalar(c, "SELECT sovereign_now_ms()") - System.currentTimeMillis()))
                    .isLessThan(60_000);
        }
    }

    @Test
    void theOwnerPinsTheServerClockAndEveryExpiryDecisionReadsIt() throws Exception {
        try (Connection c = PgTestServer.freshDatabase().connect()) {
            MIGRATOR.migrate(c);
            sql(c, "UPDATE server_clock SET pinned_ms = 42");
            assertThat(scalar(c, "SELECT sovereign_now_ms()")).isEqualTo(42);
            sql(c, "UPDATE server_clock SET pinned_ms = NULL");
            assertThat(scalar(c, "SELECT sovereign_now_ms()")).isGreaterThan(42);
        }
    }

    @Test
    void aRoleThatDoesNotOwnTheLedgerCannotMoveTheClockNorDeleteItsRow() throws Exception {
        PgTestServer.Database db = PgTestServer.freshDatabase();
        try (Connection owner = db.connect()) {
            MIGRATOR.migrate(owner);
            String role = PgTestServer.freshRole("sov_worker");
            sql(owner, "GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO " + role);
            try (Connection worker = db.dataSource(role, role).getConnection()) {
                for (String write : new String[] {
                    "UPDATE server_clock SET pinned_ms = 1",
                    "DELETE FROM server_clock",
                    "INSERT INTO server_clock VALUES (2, 1)"
                }) {
                    assertThatThrownBy(() -> sql(worker, write)).isInstanceOfSatisfying(SQLException.class, e -> {
                        assertThat(e.getSQLState()).isEqualTo("SV001");
                        assertThat(e.getMessage()).contains("only the ledger's owner may pin the server's clock");
                    });
                }
                assertThat(scalar(worker, "SELECT count(*) FROM server_clock WHERE pinned_ms IS NULL"))
                        .isEqualTo(1);
            }
        }
    }

    @Test
    void anOpenRefusesAPinnedClockUnlessTheJvmRunsTests() throws Exception {
        PgTestServer.Database db = PgTestServer.freshDatabase();
        try (Connection c = db.connect()) {
            MIGRATOR.migrate(c);
            sql(c, "UPDATE server_clock SET pinned_ms = 42");
        }
        String allowed = System.clearProperty(PgServerClock.ALLOW_PINNED);
        try {
            assertThatThrownBy(() -> Engine.open(
                            EngineConfig.forDatabase(db.url()).heartbeat(false).build()))
                    .isInstanceOfSatisfying(StorageException.class, e -> {
                        assertThat(e.problem()).isEqualTo(Problem.CORRUPT);
                        assertThat(e.getMessage())
                                .contains("server clock pinned at 42")
                                .contains("UPDATE server_clock SET pinned_ms = NULL");
                    });
            System.setProperty(PgServerClock.ALLOW_PINNED, "true");
            try (Engine e = Engine.open(
                    EngineConfig.forDatabase(db.url()).heartbeat(false).build())) {
                assertThat(e.processes().find(e.processIdentity()))
                        .hasValueSatisfying(p -> assertThat(p.startedAt()).isEqualTo(42));
            }
        } finally {
            if (allowed == null) {
                System.clearProperty(PgServerClock.ALLOW_PINNED);
            } else {
                System.setProperty(PgServerClock.ALLOW_PINNED, allowed);
            }
        }
    }

    @Test
    void aSupervisorTickIsStampedWithTheServersClockWhichJudgedItsExpiriesNotTheEnginesSkewedOne() throws Exception {
        PgTestServer.Database db = PgTestServer.freshDatabase();
        long serverNow = 1_700_000_000_000L;
        try (Engine engine = Engine.open(EngineConfig.forDatabase(db.url())
                .heartbeat(false)
                .clock(Clock.fixed(Instant.ofEpochMilli(serverNow + 3_600_000L), ZoneOffset.UTC))
                .build())) { // this host's clock is an hour ahead
            PgTestServer.pinClock(db, serverNow);
            var report = engine.supervisor().tick();
            assertThat(report.at()).isEqualTo(serverNow);
            try (Connection c = db.connect()) {
                assertThat(scalar(c, "SELECT at FROM supervisor_ticks ORDER BY seq DESC LIMIT 1"))
                        .isEqualTo(serverNow);
            }
        }
    }
}
