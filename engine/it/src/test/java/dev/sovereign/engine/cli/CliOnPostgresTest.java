package dev.sovereign.engine.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sovereign.engine.cli.CliHarness.Result;
import dev.sovereign.engine.testing.PgTestServer;
import dev.sovereign.engine.testing.SettableClock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The CLI on a real PostgreSQL server (contract §15): the same commands, the same output and exit codes as on a
 * SQLite file, with the database named by a jdbc:postgresql: URL in --db or $SOVEREIGN_DB. The server comes
 * from Maven (PgTestServer); a fresh, empty database per test.
 */
class CliOnPostgresTest {
    @TempDir
    Path dir;

    @Test
    void initActorsLeasesRunsAndTheJournalWorkOnAServerAsOnAFile() throws Exception {
        String url = PgTestServer.freshDatabase().url();
        CliHarness cli = new CliHarness(dir, new SettableClock()).with(b -> b.variables(Map.of("SOVEREIGN_DB", url)));

        assertThat(cli.ok("init").out()).contains("schema version");
        cli.ok("actor", "add", "operator");
        JsonNode lease = cli.ok("--process", "proc_cli_pg", "lease", "acquire", "operator", "--ttl", "30s", "--json")
                .onlyJson();
        long token = lease.get("token").asLong();
        assertThat(token).isPositive();

        // a second process is refused while the lease is live: the same category and exit code as on SQLite
        Result held = cli.run("lease", "acquire", "operator", "--ttl", "30s");
        assertThat(held.exit()).isEqualTo(1);
        assertThat(held.err()).startsWith("refused (actor_lease_held): Actor operator is hosted by proc_cli_pg");

        // a stale release is refused and journalled
        Result stale = cli.run(
                "--process", "proc_cli_pg", "lease", "release", "operator", "--token", String.valueOf(token + 100));
        assertThat(stale.exit()).isEqualTo(1);
        cli.ok("--process", "proc_cli_pg", "lease", "release", "operator", "--token", String.valueOf(token));

        String assignment = cli.ok("assign", "operator", "--provider", "scripted:ms=5,outcome=completed", "--json")
                .onlyJson()
                .get("assignment")
                .asText();
        JsonNode run = cli.ok("run", assignment, "--json").onlyJson();
        assertThat(run.get("state").asText()).isEqualTo("COMPLETED");

        String events = cli.ok("events").out();
        assertThat(events)
                .contains(
                        "LEASE_ACQUIRED",
                        "REJECTED",
                        "LEASE_RELEASED",
                        "ASSIGNMENT_CREATED",
                        "ATTEMPT_STARTED",
                        "ATTEMPT_DONE");
        Result status = cli.ok("status");
        assertThat(status.out()).contains("jdbc:postgresql://localhost:");
        try (var files = Files.list(dir)) {
            assertThat(files.map(f -> f.getFileName().toString()))
                    .as("no SQLite file was created")
                    .noneMatch(f -> f.endsWith(".db"));
        }
    }

    @Test
    void initCreatesTheWorkerAndOperatorRolesAndAWorkerLoginRunsTheEnginesCommandsButAddsNoActor() throws Exception {
        PgTestServer.Database db = PgTestServer.freshDatabase();
        CliHarness owner =
                new CliHarness(dir, new SettableClock()).with(b -> b.variables(Map.of("SOVEREIGN_DB", db.url())));
        owner.ok("init");
        owner.ok("actor", "add", "operator");
        String host = PgTestServer.freshRole("host_a");
        try (Connection c = db.connect();
                Statement s = c.createStatement()) {
            s.execute("GRANT sovereign_" + db.name() + "_worker TO " + host);
        }
        String asHost =
                "jdbc:postgresql://localhost:" + db.port() + "/" + db.name() + "?user=" + host + "&password=" + host;
        CliHarness worker =
                new CliHarness(dir, new SettableClock()).with(b -> b.variables(Map.of("SOVEREIGN_DB", asHost)));

        long token = worker.ok("--process", "proc_host_a", "lease", "acquire", "operator", "--ttl", "30s", "--json")
                .onlyJson()
                .get("token")
                .asLong();
        worker.ok("--process", "proc_host_a", "lease", "release", "operator", "--token", String.valueOf(token));
        Result refused = worker.run("actor", "add", "intruder");
        assertThat(refused.exit())
                .as("a worker login adds an actor: %s", refused.err())
                .isNotZero();
        assertThat(refused.err())
                .contains("This login may not add actors", "sovereign actor workers-may-add on")
                .doesNotContain("password=" + host);
        assertThat(owner.ok("actor", "list").out()).doesNotContain("intruder");
    }
}
