package dev.sovereign.engine.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sovereign.engine.cli.CliHarness.Result;
import dev.sovereign.engine.testing.PgTestServer;
import dev.sovereign.engine.testing.SettableClock;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code sovereign copy --from FILE --to URL} (decision 0907): a ledger made with the CLI on a file, copied to a
 * fresh database of the embedded PostgreSQL server, then used there with the same commands; every refusal is
 * exit 1 with its category, bad usage exit 2, a storage failure exit 3, and a password never printed.
 */
class CliCopyTest {
    @TempDir
    Path dir;

    @Test
    void aFileLedgerMovesToAServerWithItsTokensAndItsJournalAndIsUsedThere() {
        CliHarness file = new CliHarness(dir, new SettableClock());
        file.ok("init");
        file.ok("actor", "add", "operator");
        long token = file.ok("--process", "proc_file", "lease", "acquire", "operator", "--ttl", "30s", "--json")
                .onlyJson()
                .get("token")
                .asLong();
        file.ok("--process", "proc_file", "lease", "release", "operator", "--token", String.valueOf(token));
        file.ok("process", "stop", "proc_file"); // the workers are stopped first: no warning
        String url = PgTestServer.freshDatabase().url();

        Result copied = file.ok("copy", "--from", "sovereign.db", "--to", url);
        assertThat(copied.out())
                .startsWith("Copied " + dir.resolve("sovereign.db") + " to jdbc:postgresql://localhost:")
                .contains("actors", "fence_events", "highest token", "journal");
        assertThat(copied.err()).isEmpty();

        CliHarness server =
                new CliHarness(dir, new SettableClock()).with(b -> b.variables(Map.of("SOVEREIGN_DB", url)));
        assertThat(server.ok("events").out()).contains("LEASE_ACQUIRED", "LEASE_RELEASED");
        long next = server.ok("--process", "proc_server", "lease", "acquire", "operator", "--ttl", "30s", "--json")
                .onlyJson()
                .get("token")
                .asLong();
        assertThat(next).isGreaterThan(token);

        // the file was retired in the same step: it names the server and refuses every write (exit 3)
        assertThat(copied.out()).contains("retired: it takes no more writes");
        assertThat(file.ok("status").out()).contains("moved to", "takes no more writes");
        Result stale = file.run("--process", "proc_file", "lease", "acquire", "operator", "--ttl", "30s");
        assertThat(stale.exit()).isEqualTo(3);
        assertThat(stale.err())
                .startsWith("storage error (retired): ")
                .contains("was moved to a server")
                .doesNotContain("\tat ");

        Result again = file.run("copy", "--from", "sovereign.db", "--to", url, "--json");
        assertThat(again.exit()).isEqualTo(1);
        assertThat(again.err()).startsWith("refused (source_retired): The ledger");
        JsonNode refusal = again.onlyJson();
        assertThat(refusal.get("category").asText()).isEqualTo("source_retired");
    }

    @Test
    void jsonCountsEveryTableAndRefusalsAreExitOneAndBadUsageExitTwo() {
        CliHarness cli = new CliHarness(dir, new SettableClock());
        cli.ok("init");
        cli.ok("actor", "add", "operator");
        cli.ok("--process", "proc_still_there", "lease", "acquire", "operator", "--ttl", "30s");
        PgTestServer.Database db = PgTestServer.freshDatabase();
        String secret = "jdbc:postgresql://localhost:" + db.port() + "/nosuchdb?user=postgres&password=hunter2secret";
        Result unreachable = cli.run("copy", "--from", "sovereign.db", "--to", secret);
        assertThat(unreachable.exit()).isEqualTo(3);
        assertThat(unreachable.err())
                .startsWith("storage error (")
                .doesNotContain("hunter2secret")
                .doesNotContain("\tat ");

        Result copied = cli.ok("copy", "--from", "sovereign.db", "--to", db.url(), "--json");
        assertThat(copied.err())
                .startsWith("warning: 1 process(es) of the source had not stopped; the file now refuses");
        JsonNode report = copied.onlyJson();
        assertThat(report.get("rows").get("actors").asLong()).isEqualTo(1);
        assertThat(report.get("rows").get("fence_events").asLong()).isPositive();
        assertThat(report.get("live_processes").asLong()).isEqualTo(1);
        assertThat(report.get("highest_token").asLong()).isEqualTo(1);
        assertThat(report.get("last_journal_seq").asLong()).isPositive();
        assertThat(report.get("source_retired").asBoolean()).isTrue();

        Result url = cli.run(
                "copy", "--from", db.url(), "--to", PgTestServer.freshDatabase().url());
        assertThat(url.exit()).isEqualTo(1);
        assertThat(url.err()).startsWith("refused (source_is_url): ");
        Result toFile = cli.run("copy", "--from", "sovereign.db", "--to", "other.db");
        assertThat(toFile.exit()).isEqualTo(1);
        assertThat(toFile.err()).startsWith("refused (target_is_file): ");
        Result missing = cli.run(
                "copy",
                "--from",
                "nothing.db",
                "--to",
                PgTestServer.freshDatabase().url());
        assertThat(missing.exit()).isEqualTo(1);
        assertThat(missing.err()).startsWith("refused (source_missing): ");
        Result usage = cli.run("copy", "--from", "sovereign.db");
        assertThat(usage.exit()).isEqualTo(2);
        assertThat(usage.err()).startsWith("bad usage: ").contains("--to");
    }

    @Test
    void keepSourceLeavesTheFileLiveAndSaysItIsUnsafe() {
        CliHarness cli = new CliHarness(dir, new SettableClock());
        cli.ok("init");
        cli.ok("actor", "add", "operator");
        Result copied = cli.ok(
                "copy",
                "--from",
                "sovereign.db",
                "--to",
                PgTestServer.freshDatabase().url(),
                "--keep-source");
        assertThat(copied.out()).contains("still live (--keep-source)");
        assertThat(copied.err()).contains("warning: --keep-source: the file is still live");
        cli.ok("--process", "proc_file", "lease", "acquire", "operator", "--ttl", "30s");
    }

    @Test
    void helpNamesBothOptions() {
        Result help = new CliHarness(dir, new SettableClock()).ok("copy", "--help");
        assertThat(help.out()).contains("--from=FILE", "--to=URL", "one transaction", "Stop the workers first");
    }
}
