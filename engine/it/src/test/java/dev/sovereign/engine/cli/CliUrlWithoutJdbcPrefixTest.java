package dev.sovereign.engine.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sovereign.engine.cli.CliHarness.Result;
import dev.sovereign.engine.testing.SettableClock;
import dev.sovereign.engine.testing.TempDatabase;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Review of db1224b: only a string that starts exactly with {@code jdbc:} is a server. PostgreSQL's own URI
 * form ({@code postgresql://op:PW@host/db}, what psql and libpq take) or a URL with a leading blank (a
 * pasted {@code $SOVEREIGN_DB}) becomes a SQLite path, and the storage error prints that path, password and
 * all: "Cannot open /work/postgresql:/op:PW@localhost:1/ledger: the directory ... does not exist."
 */
class CliUrlWithoutJdbcPrefixTest {
    private static final String SECRET = "hunter2-planted";

    @RegisterExtension
    final TempDatabase temp = new TempDatabase();

    @Test
    void aPostgresqlUriWithoutJdbcIsNotPrintedWithItsPassword() {
        CliHarness cli = new CliHarness(temp.dir(), new SettableClock());
        Result r = cli.run("--db", "postgresql://op:" + SECRET + "@localhost:1/ledger", "status");
        assertThat(r.exit()).isNotZero();
        assertThat(r.out() + r.err()).doesNotContain(SECRET);
    }

    @Test
    void aUrlInSovereignDbWithALeadingBlankIsNotPrintedWithItsPassword() {
        CliHarness cli = new CliHarness(temp.dir(), new SettableClock())
                .with(b ->
                        b.variables(Map.of("SOVEREIGN_DB", " jdbc:postgresql://op:" + SECRET + "@localhost:1/ledger")));
        Result r = cli.run("status");
        assertThat(r.exit()).isNotZero();
        assertThat(r.out() + r.err()).doesNotContain(SECRET);
    }
}
