package dev.sovereign.engine.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sovereign.engine.cli.CliHarness.Result;
import dev.sovereign.engine.testing.PgTestServer;
import dev.sovereign.engine.testing.SettableClock;
import dev.sovereign.engine.testing.TempDatabase;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code sovereign actor workers-may-add [on|off]} (decision 0116), in-process through picocli: shown and switched by
 * the owner on PostgreSQL; a SQLite file has no logins, so the switch is bad input with one sentence; a word that is
 * neither on nor off likewise.
 */
class CliWorkersMayAddTest {
    @RegisterExtension
    final TempDatabase temp = new TempDatabase();

    @TempDir
    Path dir;

    @Test
    void onASqliteFileEveryWriterMayAddActorsAndThereIsNoSwitch() {
        CliHarness cli = new CliHarness(temp.dir(), new SettableClock());
        cli.ok("init");
        assertThat(cli.ok("actor", "workers-may-add").out()).contains("Worker logins may add actors.");
        assertThat(cli.ok("actor", "workers-may-add", "--json")
                        .onlyJson()
                        .get("workers_may_add_actors")
                        .asBoolean())
                .isTrue();
        Result off = cli.run("actor", "workers-may-add", "off");
        assertThat(off.exit()).isEqualTo(2);
        assertThat(off.err().strip())
                .contains("no logins")
                .doesNotContain("Exception")
                .doesNotContain("\n");
        Result maybe = cli.run("actor", "workers-may-add", "maybe");
        assertThat(maybe.exit()).isEqualTo(2);
        assertThat(maybe.err()).contains("takes on or off, not 'maybe'");
    }

    @Test
    void onPostgresTheOwnerSwitchesItAndStatusOfTheSwitchIsShown() {
        String url = PgTestServer.freshDatabase().url();
        CliHarness cli = new CliHarness(dir, new SettableClock()).with(b -> b.variables(Map.of("SOVEREIGN_DB", url)));
        cli.ok("init");
        assertThat(cli.ok("actor", "workers-may-add").out()).contains("Worker logins may not add actors");
        assertThat(cli.ok("actor", "workers-may-add", "on").out()).contains("Worker logins may add actors.");
        assertThat(cli.ok("actor", "workers-may-add", "--json")
                        .onlyJson()
                        .get("workers_may_add_actors")
                        .asBoolean())
                .isTrue();
        assertThat(cli.ok("actor", "workers-may-add", "off").out()).contains("may not add actors");
    }
}
