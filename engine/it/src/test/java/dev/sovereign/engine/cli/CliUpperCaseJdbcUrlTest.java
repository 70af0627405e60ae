package dev.sovereign.engine.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sovereign.engine.base.LedgerLocation;
import dev.sovereign.engine.base.StorageException;
import dev.sovereign.engine.cli.CliHarness.Result;
import dev.sovereign.engine.spi.Backends;
import dev.sovereign.engine.testing.SettableClock;
import dev.sovereign.engine.testing.TempDatabase;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Review of 9901f1c/db1224b: {@code LedgerLocation.parse} and the CLI treat {@code JDBC:} case-insensitively
 * as a server URL (file null), but {@code SqliteBackend.accepts} tests {@code startsWith("jdbc:")}
 * case-sensitively, so {@code Backends.forDatabase} hands an upper-case URL to SQLite, which then fails on
 * {@code config.database()}: exit 70 "internal error ... this is a bug in Sovereign" instead of the
 * storage error every other URL without a backend gets (exit 3).
 */
class CliUpperCaseJdbcUrlTest {
    @RegisterExtension
    final TempDatabase temp = new TempDatabase();

    @Test
    void noBackendOnTheClassPathClaimsAnUpperCaseServerUrl() {
        LedgerLocation url = LedgerLocation.parse("JDBC:postgresql://localhost:1/ledger");
        assertThat(url.isFile()).isFalse();
        assertThatThrownBy(() -> Backends.forDatabase(url))
                .isInstanceOf(StorageException.class)
                .hasMessageStartingWith("No storage backend can open");
    }

    @Test
    void anUpperCaseUrlGetsTheSameStorageErrorAsALowerCaseOne() {
        CliHarness cli = new CliHarness(temp.dir(), new SettableClock());
        Result lower = cli.run("--db", "jdbc:postgresql://localhost:1/ledger", "status");
        Result upper = cli.run("--db", "JDBC:postgresql://localhost:1/ledger", "status");
        assertThat(lower.exit()).isEqualTo(3);
        assertThat(upper.exit()).as("stderr: %s", upper.err()).isEqualTo(3);
        assertThat(upper.err()).startsWith("storage error (io): No storage backend can open");
    }
}
