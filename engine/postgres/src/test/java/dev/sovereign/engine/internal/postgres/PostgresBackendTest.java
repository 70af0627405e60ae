package dev.sovereign.engine.internal.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sovereign.engine.base.EngineConfig;
import dev.sovereign.engine.base.LedgerLocation;
import dev.sovereign.engine.base.StorageException;
import dev.sovereign.engine.base.StorageException.Problem;
import dev.sovereign.engine.spi.Backends;
import dev.sovereign.engine.spi.Grants;
import dev.sovereign.engine.spi.Ledger;
import dev.sovereign.engine.testing.PgTestServer;
import java.sql.Connection;
import java.sql.Statement;
import org.junit.jupiter.api.Test;

/**
 * The backend as the port finds it: chosen for a {@code jdbc:postgresql:} URL, never for a path; an open
 * that may not create refuses an empty database; a database with foreign tables is not ours; a server that
 * cannot be reached is one sentence without the password (the console's reader: {@link PgAdminReaderTest}).
 */
class PostgresBackendTest {
    private final PostgresBackend backend = new PostgresBackend();

    @Test
    void thePortChoosesItForAPostgresUrlOnly() {
        assertThat(backend.accepts("jdbc:postgresql://db.example/ledger")).isTrue();
        assertThat(backend.accepts("/var/lib/sovereign.db")).isFalse();
        assertThat(backend.accepts("jdbc:sqlite:/x.db")).isFalse();
        assertThat(Backends.forDatabase(LedgerLocation.parse("jdbc:postgresql://db.example/ledger"))
                        .name())
                .isEqualTo("postgres");
        assertThat(backend.schemaVersion()).isEqualTo(PgMigrator.LATEST);
    }

    @Test
    void anOpenThatMayNotCreateRefusesAnEmptyDatabaseAndLeavesItEmpty() throws Exception {
        PgTestServer.Database db = PgTestServer.freshDatabase();
        assertThatThrownBy(() -> backend.open(
                        EngineConfig.forDatabase(db.url()).heartbeat(false).build(), new Grants(), false))
                .isInstanceOfSatisfying(StorageException.class, e -> {
                    assertThat(e.problem()).isEqualTo(Problem.MISSING_FILE);
                    assertThat(e.getMessage())
                            .contains("There is no Sovereign ledger")
                            .contains("sovereign init");
                });
        try (Connection c = db.connect()) {
            assertThat(PgMigrator.schemaVersion(c)).isZero();
        }
        try (Ledger created =
                backend.open(EngineConfig.forDatabase(db.url()).heartbeat(false).build(), new Grants(), true)) {
            assertThat(created.processIdentity()).startsWith("proc_");
        }
    }

    @Test
    void aDatabaseHoldingOtherTablesIsNotOurs() throws Exception {
        PgTestServer.Database db = PgTestServer.freshDatabase();
        try (Connection c = db.connect();
                Statement s = c.createStatement()) {
            s.execute("CREATE TABLE invoices (id int)");
        }
        assertThatThrownBy(() -> backend.open(
                        EngineConfig.forDatabase(db.url()).heartbeat(false).build(), new Grants(), true))
                .isInstanceOfSatisfying(StorageException.class, e -> {
                    assertThat(e.problem()).isEqualTo(Problem.NOT_OURS);
                    assertThat(e.getMessage()).contains("Sovereign did not create");
                });
    }

    @Test
    void anUnreachableServerIsOneSentenceThatNeverShowsThePassword() {
        String url = "jdbc:postgresql://localhost:1/nowhere?user=sov&password=hunter2&connectTimeout=2";
        assertThatThrownBy(() -> backend.open(
                        EngineConfig.forDatabase(url).heartbeat(false).build(), new Grants(), true))
                .isInstanceOfSatisfying(StorageException.class, e -> {
                    assertThat(e.problem()).isEqualTo(Problem.IO);
                    assertThat(e.getMessage())
                            .startsWith("Cannot connect to the PostgreSQL ledger")
                            .doesNotContain("hunter2");
                });
    }
}
