package dev.sovereign.engine.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sovereign.engine.cli.CliHarness.Result;
import dev.sovereign.engine.testing.SettableClock;
import dev.sovereign.engine.testing.TempDatabase;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Review of db1224b: a URL typed without {@code --db} ({@code sovereign init jdbc:postgresql://op:PW@...},
 * an easy slip) is echoed whole by {@code ErrorMapper.usageSentence} ("Unexpected argument '...'"), password
 * included: issue 19 says a password in a JDBC URL never appears in an error sentence.
 */
class CliEchoesAPositionalUrlTest {
    private static final String SECRET = "hunter2-planted";

    @RegisterExtension
    final TempDatabase temp = new TempDatabase();

    @Test
    void aUrlGivenWithoutDbIsNotEchoedWithItsPassword() {
        CliHarness cli = new CliHarness(temp.dir(), new SettableClock());
        Result r = cli.run("init", "jdbc:postgresql://op:" + SECRET + "@db.example:5432/ledger");
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.out() + r.err()).doesNotContain(SECRET);
    }

    @Test
    void aUrlWithAPasswordParameterGivenWithoutDbIsNotEchoed() {
        CliHarness cli = new CliHarness(temp.dir(), new SettableClock());
        Result r = cli.run("status", "jdbc:postgresql://db.example/ledger?user=op&password=" + SECRET);
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.out() + r.err()).doesNotContain(SECRET);
    }
}
