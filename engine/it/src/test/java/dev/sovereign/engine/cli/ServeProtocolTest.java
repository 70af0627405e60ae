package dev.sovereign.engine.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sovereign.engine.cli.CliHarness.Result;
import dev.sovereign.engine.testing.SettableClock;
import dev.sovereign.engine.testing.TempDatabase;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The request protocol of {@code serve --stdio}, in-process (its input a fixed text): one answer per line, a
 * value is only ever a value, and one request's options do not leak into the next.
 */
class ServeProtocolTest {
    @RegisterExtension
    final TempDatabase temp = new TempDatabase();

    private CliHarness cli;

    @BeforeEach
    void setUp() {
        cli = new CliHarness(temp.dir(), new SettableClock());
        cli.ok("init");
    }

    private List<JsonNode> serve(String... lines) {
        String input = String.join("\n", lines) + "\n";
        Result r = cli.with(b -> b.input(new ByteArrayInputStream(input.getBytes(StandardCharsets.UTF_8))))
                .ok("serve", "--stdio");
        assertThat(r.err()).isEmpty();
        return r.json();
    }

    @Test
    void aValueIsNeverReadAsAnOptionOrAFileOfArguments() throws Exception {
        Files.writeString(temp.dir().resolve("args.txt"), "--db\nelsewhere.db\n");

        List<JsonNode> answers = serve(
                "{\"id\": 1, \"op\": \"actor.add\", \"actor\": \"--db=elsewhere.db\"}",
                "{\"id\": 2, \"op\": \"actor.add\", \"actor\": \"@args.txt\"}",
                "{\"id\": 3, \"op\": \"send\", \"from\": \"--process=proc_x\", \"to\": \"@args.txt\","
                        + " \"subject\": \"--json\", \"body\": \"status\"}",
                "{\"id\": 4, \"op\": \"actor.list\"}");

        assertThat(answers).hasSize(4);
        assertThat(answers.get(0).get("ok").asBoolean())
                .as("%s", answers.get(0))
                .isTrue();
        assertThat(answers.get(0).get("actor").asText()).isEqualTo("--db=elsewhere.db");
        assertThat(answers.get(1).get("actor").asText()).isEqualTo("@args.txt");
        assertThat(answers.get(2).get("sender").asText()).isEqualTo("--process=proc_x");
        assertThat(answers.get(2).get("subject").asText()).isEqualTo("--json");
        assertThat(answers.get(2).get("body").asText()).isEqualTo("status");
        assertThat(answers.get(3).get("results"))
                .extracting(a -> a.get("actor").asText())
                .containsExactlyInAnyOrder("--db=elsewhere.db", "@args.txt");
        assertThat(temp.dir().resolve("elsewhere.db")).doesNotExist();
    }

    @Test
    void oneRequestsOptionsDoNotCarryOverToTheNext() {
        List<JsonNode> answers = serve(
                "{\"id\": 1, \"op\": \"actor.add\", \"actor\": \"a\", \"workspace_policy\": \"persistent\"}",
                "{\"id\": 2, \"op\": \"actor.add\", \"actor\": \"b\"}",
                "{\"id\": 3, \"op\": \"lease.acquire\", \"actor\": \"a\", \"ttl\": \"1m\"}",
                "{\"id\": 4, \"op\": \"lease.acquire\", \"actor\": \"b\"}");

        assertThat(answers.get(1).get("workspace_policy").asText()).isEqualTo("temporary");
        assertThat(answers.get(2).get("ttl_ms").asLong()).isEqualTo(60_000);
        assertThat(answers.get(3).get("ttl_ms").asLong())
                .as("serve's own --ttl, 10s")
                .isEqualTo(10_000);
    }

    @Test
    void everyLineIsAnsweredOnceAndABadOneSaysWhy() {
        List<JsonNode> answers = serve(
                "{\"id\": \"a\", \"op\": \"status\"}",
                "{\"id\": 2, \"op\": \"status\"} trailing",
                "",
                "{\"id\": {\"x\": 1}, \"op\": \"status\"}",
                "{\"id\": 3}",
                "{\"id\": 4, \"op\": \"status\", \"db\": \"other.db\"}",
                "{\"id\": 5, \"op\": \"lease.acquire\", \"actor\": {\"a\": 1}}",
                "{\"id\": 6, \"op\": \"lease.acquire\", \"actor\": \"ghost\"}",
                "{\"id\": 7, \"op\": \"lease.acquire\", \"actor\": \"ghost\", \"ttl\": \"100ms\"}");

        assertThat(answers).as("a blank line is no request").hasSize(8);
        assertThat(answers.get(0).get("id").asText()).isEqualTo("a");
        assertThat(answers.get(0).get("ok").asBoolean()).isTrue();
        assertThat(answers.get(0).has("schema_version")).isTrue();
        assertThat(answers.subList(1, 6)).allSatisfy(a -> {
            assertThat(a.get("ok").asBoolean()).isFalse();
            assertThat(a.get("error").asText()).isEqualTo("bad_request");
            assertThat(a.get("exit_code").asInt()).isEqualTo(2);
        });
        assertThat(answers.get(1).get("message").asText()).startsWith("Line 2 is not JSON");
        assertThat(answers.get(3).get("message").asText()).startsWith("Line 5 has no \"op\"; it is one of: identity,");
        assertThat(answers.get(4).get("message").asText()).startsWith("Op 'status' takes no field \"db\"");
        assertThat(answers.get(6).get("category").asText()).isEqualTo("unknown_actor");
        assertThat(answers.get(6).get("refused").asBoolean()).isTrue();
        assertThat(answers.get(6).get("exit_code").asInt()).isEqualTo(2);
        assertThat(answers.get(7).get("category").asText()).isEqualTo("invalid_argument");
        assertThat(answers.get(7).get("message").asText())
                .startsWith("A lease TTL must be at least 2 heartbeat"
                        + " intervals of this serve process (it beats every 1s), got 100ms");
    }
}
