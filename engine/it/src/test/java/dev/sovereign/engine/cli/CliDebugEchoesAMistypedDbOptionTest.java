package dev.sovereign.engine.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sovereign.engine.cli.CliHarness.Result;
import dev.sovereign.engine.testing.SettableClock;
import dev.sovereign.engine.testing.TempDatabase;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Review of db1224b: with {@code --debug}, a mistyped option name before the URL ({@code --database URL})
 * prints picocli's UnmatchedArgumentException, whose message lists every unmatched argument verbatim:
 * "Unknown options: '--database', 'jdbc:postgresql://op:PW@...'". The sentence above it is clean; the trace
 * is not.
 */
class CliDebugEchoesAMistypedDbOptionTest {
    private static final String SECRET = "hunter2-planted";

    @RegisterExtension
    final TempDatabase temp = new TempDatabase();

    @Test
    void theDebugTraceOfAMistypedOptionDoesNotShowThePassword() {
        CliHarness cli = new CliHarness(temp.dir(), new SettableClock());
        Result r = cli.run("--debug", "--database", "jdbc:postgresql://op:" + SECRET + "@db.example/ledger", "status");
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.out() + r.err()).doesNotContain(SECRET);
    }
}
