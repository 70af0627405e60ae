package dev.sovereign.engine.internal.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sovereign.engine.internal.postgres.PgSchemaException.Problem;
import dev.sovereign.engine.testing.PgTestServer;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class PgMigratorTest {
    static final PgMigrator MIGRATOR = new PgMigrator(false, "test", "abc123", 10_000);

    static long scalar(Connection c, String sql) throws Exception {
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    static void sql(Connection c, String... statements) throws Exception {
        try (Statement s = c.createStatement()) {
            for (String statement : statements) {
                s.execute(statement);
            }
        }
    }

    @Test
    void anEmptyDatabaseIsMigratedToTheLatestVersionWithEveryGuardInPlace() throws Exception {
        try (Connection c = PgTestServer.freshDatabase().connect()) {
            assertThat(MIGRATOR.migrate(c)).isEqualTo(PgMigrator.LATEST);

            assertThat(PgMigrator.schemaVersion(c)).isEqualTo(PgMigrator.LATEST);
            assertThat(PgMigrator.guardProblems(c)).isEmpty();
            // one counter row per stripe, each at its own number: nothing minted (decision 0924)
            assertThat(scalar(c, "SELECT count(*) FROM token_counter WHERE last_token = id AND id BETWEEN 0 AND 63"))
                    .isEqualTo(64);
            assertThat(scalar(c, "SELECT lab_sandbox FROM ledger_mark")).isZero();
            // one row per migration applied, each naming who applied it
            assertThat(
                            scalar(
                                    c,
                                    "SELECT count(*) FROM schema_migrations WHERE sovereign_version = 'test'"
                                            + " AND sovereign_commit = 'abc123' AND abs(migrated_at - sovereign_now_ms()) < 60000"))
                    .isEqualTo(PgMigrator.LATEST);
            assertThat(PgMigrator.guardNames())
                    .hasSizeGreaterThan(30)
                    .contains("actor_leases_guard_update", "assignments_guard_update", "fence_events_never_truncated");
            // every guard fires in every session, replica mode included
            assertThat(scalar(c, "SELECT count(*) FROM pg_trigger WHERE NOT tgisinternal AND tgenabled <> 'A'"))
                    .isZero();
            assertThat(scalar(c, "SELECT count(*) FROM pg_trigger WHERE NOT tgisinternal"))
                    .isEqualTo(PgMigrator.guardNames().size());
            assertThat(c.getAutoCommit()).isTrue();
        }
    }

    @Test
    void reopeningALedgerChangesNothing() throws Exception {
        try (Connection c = PgTestServer.freshDatabase().connect()) {
            MIGRATOR.migrate(c);
            sql(c, "UPDATE token_counter SET last_token = last_token + 64 WHERE id = 1");
            MIGRATOR.migrate(c);
            new PgMigrator(true, "other", "def456", 10_000).migrate(c);

            assertThat(scalar(c, "SELECT count(*) FROM schema_migrations")).isEqualTo(PgMigrator.LATEST);
            assertThat(scalar(c, "SELECT sum(last_token) FROM token_counter")).isEqualTo(63 * 64 / 2 + 64);
            assertThat(scalar(c, "SELECT lab_sandbox FROM ledger_mark")).isZero(); // the mark is the creator's
        }
    }

    @Test
    void aLedgerCreatedForTheLabIsMarkedAsASandbox() throws Exception {
        try (Connection c = PgTestServer.freshDatabase().connect()) {
            new PgMigrator(true, "test", "abc123", 10_000).migrate(c);
            assertThat(scalar(c, "SELECT lab_sandbox FROM ledger_mark")).isEqualTo(1);
        }
    }

    @Test
    void aSchemaHoldingSomeoneElsesTablesIsRefusedAndLeftAlone() throws Exception {
        try (Connection c = PgTestServer.freshDatabase().connect()) {
            sql(c, "CREATE TABLE invoices (id int PRIMARY KEY)");
            assertThatThrownBy(() -> MIGRATOR.migrate(c)).isInstanceOfSatisfying(PgSchemaException.class, e -> {
                assertThat(e.problem()).isEqualTo(Problem.NOT_OURS);
                assertThat(e.getMessage())
                        .contains("holds tables that Sovereign did not create")
                        .doesNotContain("\n");
            });
            assertThat(scalar(c, "SELECT count(*) FROM pg_tables WHERE schemaname = 'public'"))
                    .isEqualTo(1);
        }
    }

    @Test
    void anotherToolsSchemaMigrationsTableIsNotMistakenForOurs() throws Exception {
        try (Connection c = PgTestServer.freshDatabase().connect()) {
            sql(
                    c,
                    "CREATE TABLE schema_migrations (version varchar PRIMARY KEY)", // what Rails leaves
                    "INSERT INTO schema_migrations VALUES ('20260101000000')");
            assertThatThrownBy(() -> MIGRATOR.migrate(c))
                    .isInstanceOfSatisfying(
                            PgSchemaException.class,
                            e -> assertThat(e.problem()).isEqualTo(Problem.NOT_OURS));
        }
    }

    @Test
    void aLedgerMigratedByANewerSovereignIsRefused() throws Exception {
        try (Connection c = PgTestServer.freshDatabase().connect()) {
            MIGRATOR.migrate(c);
            sql(c, "INSERT INTO schema_migrations VALUES (" + (PgMigrator.LATEST + 1) + ", '9.9', 'f00', 0)");
            assertThatThrownBy(() -> MIGRATOR.migrate(c)).isInstanceOfSatisfying(PgSchemaException.class, e -> {
                assertThat(e.problem()).isEqualTo(Problem.SCHEMA_TOO_NEW);
                assertThat(e.getMessage())
                        .contains("has schema version " + (PgMigrator.LATEST + 1))
                        .contains("upgrade Sovereign");
            });
        }
    }

    @Test
    void aLedgerInASchemaOfItsOwnKeepsItsGuardsOnItsOwnTables() throws Exception {
        PgTestServer.Database db = PgTestServer.freshDatabase();
        try (Connection c = db.connect()) {
            sql(c, "CREATE TABLE token_counter (id int, last_token bigint)"); // a decoy in public
            sql(c, "CREATE SCHEMA \"Fence Ledger\"");
            c.setSchema("Fence Ledger");
            MIGRATOR.migrate(c);
            assertThat(PgMigrator.guardProblems(c)).isEmpty();
            assertThat(scalar(c, "SELECT count(*) FROM pg_tables WHERE schemaname = 'Fence Ledger'"))
                    .isGreaterThan(10);
        }
    }

    @Test
    void processesInitialisingOneDatabaseAtOnceApplyEachMigrationOnce() throws Exception {
        PgTestServer.Database db = PgTestServer.freshDatabase();
        int n = 4;
        CyclicBarrier gate = new CyclicBarrier(n);
        ExecutorService pool = Executors.newFixedThreadPool(n);
        try {
            List<Future<Integer>> results = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                results.add(pool.submit(() -> {
                    try (Connection c = db.connect()) {
                        gate.await(10, TimeUnit.SECONDS);
                        return new PgMigrator(false, "test", "abc123", 30_000).migrate(c);
                    }
                }));
            }
            for (Future<Integer> r : results) {
                assertThat(r.get(60, TimeUnit.SECONDS)).isEqualTo(PgMigrator.LATEST);
            }
        } finally {
            pool.shutdownNow();
        }
        try (Connection c = db.connect()) {
            assertThat(scalar(c, "SELECT count(*) FROM schema_migrations")).isEqualTo(PgMigrator.LATEST);
            assertThat(scalar(c, "SELECT count(*) FROM ledger_mark")).isEqualTo(1);
            assertThat(PgMigrator.guardProblems(c)).isEmpty();
        }
    }

    @Test
    void aMigrationWaitsForAnotherOnlyAsLongAsItsLockTimeout() throws Exception {
        PgTestServer.Database db = PgTestServer.freshDatabase();
        try (Connection holder = db.connect();
                Connection c = db.connect()) {
            holder.setAutoCommit(false);
            sql(holder, "SELECT pg_advisory_xact_lock(" + PgMigrator.MIGRATION_LOCK + ")");
            assertThatThrownBy(() -> new PgMigrator(false, "test", "abc123", 200).migrate(c))
                    .isInstanceOfSatisfying(PgSchemaException.class, e -> {
                        assertThat(e.problem()).isEqualTo(Problem.BUSY);
                        assertThat(e.getMessage()).contains("locked for its migration for too long");
                    });
            holder.rollback();
            assertThat(MIGRATOR.migrate(c)).isEqualTo(PgMigrator.LATEST);
        }
    }
}
