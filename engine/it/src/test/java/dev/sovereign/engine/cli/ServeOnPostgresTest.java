package dev.sovereign.engine.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sovereign.engine.cli.CliHarness.Result;
import dev.sovereign.engine.testing.PgTestServer;
import dev.sovereign.engine.testing.SettableClock;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code serve --stdio} on a real PostgreSQL server (contract §15): the same requests and answers as on a file,
 * one identity for the session, and a worker login that may host and run but not add actors gets the refusal
 * as an answer and goes on.
 */
class ServeOnPostgresTest {
    @TempDir
    Path dir;

    private static List<JsonNode> serve(CliHarness cli, String... lines) {
        String input = String.join("\n", lines) + "\n";
        Result r = cli.with(b -> b.input(new ByteArrayInputStream(input.getBytes(StandardCharsets.UTF_8))))
                .ok("serve", "--stdio");
        assertThat(r.err()).isEmpty();
        List<JsonNode> answers = r.json();
        assertThat(answers).as("one answer per request").hasSize(lines.length);
        return answers;
    }

    @Test
    void aWorkerLoginHostsAndRunsThroughServeAndIsToldItMayNotAddActors() throws Exception {
        PgTestServer.Database db = PgTestServer.freshDatabase();
        CliHarness owner =
                new CliHarness(dir, new SettableClock()).with(b -> b.variables(Map.of("SOVEREIGN_DB", db.url())));
        owner.ok("init");
        List<JsonNode> setUp = serve(owner, "{\"id\": 1, \"op\": \"actor.add\", \"actor\": \"operator\"}");
        assertThat(setUp.get(0).get("ok").asBoolean()).as("%s", setUp.get(0)).isTrue();

        String host = PgTestServer.freshRole("serve_host");
        try (Connection c = db.connect();
                Statement s = c.createStatement()) {
            s.execute("GRANT sovereign_" + db.name() + "_worker TO " + host);
        }
        String asHost =
                "jdbc:postgresql://localhost:" + db.port() + "/" + db.name() + "?user=" + host + "&password=" + host;
        CliHarness worker =
                new CliHarness(dir, new SettableClock()).with(b -> b.variables(Map.of("SOVEREIGN_DB", asHost)));
        String assignment = owner.ok("assign", "operator", "--provider", "scripted:ms=5,outcome=completed", "--json")
                .onlyJson()
                .get("assignment")
                .asText();

        List<JsonNode> answers = serve(
                worker,
                "{\"id\": 1, \"op\": \"identity\"}",
                "{\"id\": 2, \"op\": \"actor.add\", \"actor\": \"intruder\"}",
                "{\"id\": 3, \"op\": \"lease.acquire\", \"actor\": \"operator\", \"ttl\": \"30s\"}",
                "{\"id\": 4, \"op\": \"run\", \"assignment\": \"" + assignment + "\"}");

        String identity = answers.get(0).get("process").asText();
        JsonNode refused = answers.get(1);
        assertThat(refused.get("ok").asBoolean()).isFalse();
        assertThat(refused.get("exit_code").asInt()).isNotZero();
        assertThat(refused.get("message").asText())
                .contains("This login may not add actors", "sovereign actor workers-may-add on")
                .doesNotContain("password=" + host);
        assertThat(answers.get(2).get("process").asText()).isEqualTo(identity);
        JsonNode run = answers.get(3);
        assertThat(run.get("state").asText()).as("%s", run).isEqualTo("COMPLETED");
        assertThat(run.get("receipt").get("process").asText()).isEqualTo(identity);
        assertThat(run.get("attempt").get("lease_token").asLong())
                .isEqualTo(answers.get(2).get("token").asLong());

        assertThat(owner.ok("actor", "list").out()).doesNotContain("intruder");
        assertThat(owner.ok("lease", "list").out())
                .as("released at the end of input")
                .isEqualTo("No leases." + System.lineSeparator());
    }
}
