package dev.sovereign.engine.internal.sqlite;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.SovereignVersion;
import dev.sovereign.engine.admin.LedgerSummary;
import dev.sovereign.engine.testing.SettableClock;
import dev.sovereign.engine.testing.TempDatabase;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Version 4: the file records which Sovereign migrated it. A version-3 ledger (guards and mark in
 * place, a lease held) gains the record when this Sovereign opens it, in the migration's own
 * transaction; a fresh file has it from the start; the record is append-only.
 */
class SchemaVersionFourMigrationTest {
    @RegisterExtension
    final TempDatabase temp = new TempDatabase();

    private final SettableClock clock = new SettableClock();

    private Connection plain() throws SQLException {
        return DriverManager.getConnection("jdbc:sqlite:" + temp.file());
    }

    /** A file exactly as a version-3 Sovereign leaves it: migrations 1-3, its mark (not a sandbox), an actor. */
    private void createVersionThreeFileOnly() throws Exception {
        long now = clock.millis();
        OlderSchema.create(temp.file(), 3, s -> {
            s.execute("INSERT INTO ledger_mark (id, lab_sandbox, marked_at) VALUES (1, 0, " + now + ")");
            s.execute("INSERT INTO actors (id, created_at) VALUES ('operator', " + now + ")");
        });
    }

    private long scalar(String sql) throws SQLException {
        try (Connection c = plain();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(sql)) {
            return rs.getLong(1);
        }
    }

    private String text(String sql) throws SQLException {
        try (Connection c = plain();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(sql)) {
            return rs.getString(1);
        }
    }

    @Test
    void aVersionThreeLedgerGainsTheRecordOfWhoMigratedIt() throws Exception {
        createVersionThreeFileOnly();
        assertThat(scalar("PRAGMA user_version")).isEqualTo(3);
        assertThat(scalar("SELECT count(*) FROM sqlite_master WHERE name = 'schema_migrations'"))
                .isZero();

        clock.advance(Duration.ofMinutes(5));
        long openedAt = clock.millis();
        try (Engine e = temp.open(temp.config(clock).build())) {
            assertThat(e.leases().acquire("operator", Duration.ofMinutes(1))).isNotNull();
            LedgerSummary s = e.summary();
            assertThat(s.schemaVersion()).isEqualTo(Migrator.LATEST);
            assertThat(s.lastMigration())
                    .isEqualTo(new LedgerSummary.LastMigration(
                            Migrator.LATEST,
                            SovereignVersion.current().version(),
                            SovereignVersion.current().commit(),
                            openedAt));
        }

        assertThat(scalar("PRAGMA user_version")).isEqualTo(Migrator.LATEST);
        // one row for each version from 4 on, all written by this open
        assertThat(scalar("SELECT count(*) FROM schema_migrations")).isEqualTo(Migrator.LATEST - 3);
        assertThat(scalar("SELECT min(schema_version) FROM schema_migrations")).isEqualTo(4);
        assertThat(text("SELECT sovereign_version FROM schema_migrations"))
                .isEqualTo(SovereignVersion.current().version());
        assertThat(scalar("SELECT count(*) FROM actors")).isEqualTo(1);
        assertThat(scalar("SELECT lab_sandbox FROM ledger_mark")).isZero();
        try (Connection c = plain()) {
            assertThat(Migrator.missingGuards(c)).isEmpty();
        }
    }

    @Test
    void aFreshLedgerRecordsItsCreatorOnceAndTheRecordIsAppendOnly() throws Exception {
        temp.open(clock).close();
        temp.open(clock).close();

        assertThat(scalar("SELECT count(*) FROM schema_migrations")).isEqualTo(Migrator.LATEST - 3);
        assertThat(scalar("SELECT max(schema_version) FROM schema_migrations")).isEqualTo(Migrator.LATEST);
        assertThat(text("SELECT sovereign_commit FROM schema_migrations"))
                .isEqualTo(SovereignVersion.current().commit());
        try (Connection c = plain();
                Statement s = c.createStatement()) {
            assertThatThrownBy(() -> s.execute("UPDATE schema_migrations SET sovereign_version = '9.9.9'"))
                    .hasMessageContaining("append-only");
            assertThatThrownBy(() -> s.execute("DELETE FROM schema_migrations")).hasMessageContaining("append-only");
            assertThatThrownBy(() -> s.execute("INSERT OR REPLACE INTO schema_migrations VALUES (4, 'x', 'y', 0)"))
                    .hasMessageContaining("append-only");
        }
    }
}
