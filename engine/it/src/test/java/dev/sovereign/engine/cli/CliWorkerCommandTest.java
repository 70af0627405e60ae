package dev.sovereign.engine.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sovereign.engine.Engine;
import dev.sovereign.engine.mailbox.Message;
import dev.sovereign.engine.mailbox.MessageState;
import dev.sovereign.engine.testing.Poll;
import dev.sovereign.engine.testing.SettableClock;
import dev.sovereign.engine.testing.TempDatabase;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code sovereign worker} in-process (its black-box tests as real processes are in
 * {@code lab.WorkerProcessTest}): its JSON lines, and the clock offset it is given.
 */
class CliWorkerCommandTest {
    @RegisterExtension
    final TempDatabase temp = new TempDatabase();

    private final SettableClock clock = new SettableClock();
    private CliHarness cli;
    private final StopSignals.Stop stop = new StopSignals.Stop();
    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();
    private final int[] exit = {-1};

    @BeforeEach
    void setUp() {
        cli = new CliHarness(temp.dir(), clock);
        cli.ok("init");
        cli.ok("actor", "add", "operator");
        cli.with(b -> b.stopSignals(StopSignals.manual(stop)));
    }

    private Thread start(String... args) {
        Thread t = new Thread(() ->
                exit[0] = Cli.execute(cli.environment(), new PrintWriter(out, true), new PrintWriter(err, true), args));
        t.start();
        return t;
    }

    private List<JsonNode> lines() {
        return out.toString()
                .lines()
                .map(l -> {
                    try {
                        return CliHarness.JSON.readTree(l);
                    } catch (IOException e) {
                        throw new UncheckedIOException("not JSON: " + l, e);
                    }
                })
                .toList();
    }

    private boolean printed(String event) {
        return out.toString().contains("\"event\":\"" + event + "\"");
    }

    @Test
    void aWorkerAsJsonPrintsOneEventObjectPerLineAndReleasesWhenStopped() throws Exception {
        Message m;
        try (Engine ops = temp.open(clock)) {
            m = ops.mailbox().send("ops", "operator", "hello", null, 3);
        }
        Thread worker = start("worker", "--actor", "operator", "--ttl", "3s", "--idle", "20ms", "--json");
        Poll.until(() -> printed("completed"), Duration.ofSeconds(20), () -> "the message done; out: " + out + err);

        stop.request();
        worker.join(20_000);

        assertThat(worker.isAlive()).isFalse();
        assertThat(exit[0]).isZero();
        assertThat(err.toString()).isEmpty();
        List<JsonNode> events = lines();
        assertThat(events)
                .extracting(e -> e.get("event").asText())
                .containsSubsequence("started", "hosting", "claimed", "completed", "released", "stopped");
        String process = events.get(0).get("process").asText();
        assertThat(process).startsWith("proc_");
        for (JsonNode e : events) {
            assertThat(Set.copyOf(CliHarness.fieldNames(e)))
                    .as("%s", e)
                    .contains("event", "actor", "process", "at")
                    .isSubsetOf("event", "actor", "process", "at", "resource", "token", "detail");
            assertThat(e.get("actor").asText()).isEqualTo("operator");
            assertThat(e.get("process").asText()).isEqualTo(process);
            assertThat(e.get("at").asLong()).isEqualTo(clock.millis());
        }
        JsonNode hosting = events.stream()
                .filter(e -> e.get("event").asText().equals("hosting"))
                .findFirst()
                .orElseThrow();
        JsonNode completed = events.stream()
                .filter(e -> e.get("event").asText().equals("completed"))
                .findFirst()
                .orElseThrow();
        assertThat(completed.get("resource").asText()).isEqualTo(m.id());
        assertThat(completed.get("token").asLong())
                .isGreaterThan(hosting.get("token").asLong());
        JsonNode message = cli.ok("messages", "--json").onlyJson();
        assertThat(message.get("state").asText()).isEqualTo(MessageState.DONE.name());
        assertThat(cli.ok("lease", "list").out()).isEqualTo("No leases." + System.lineSeparator());
    }

    @Test
    void aNegativeClockOffsetRunsTheWorkersClockBehind() throws Exception {
        Thread worker = start("worker", "--actor", "operator", "--ttl", "60s", "--clock-offset=-30s", "--json");
        Poll.until(() -> printed("hosting"), Duration.ofSeconds(20), () -> "hosting; out: " + out + err);

        JsonNode lease = cli.ok("lease", "list", "--json").onlyJson();
        stop.request();
        worker.join(20_000);

        assertThat(exit[0]).isZero();
        JsonNode started = lines().get(0);
        assertThat(started.get("event").asText()).isEqualTo("started");
        assertThat(started.get("detail").asText()).contains("ttl 60000 ms").contains("clock offset -30000 ms");
        assertThat(started.get("at").asLong()).isEqualTo(clock.millis() - 30_000);
        // The lease was granted on the worker's clock: it expires 30 s earlier than the true clock would say.
        assertThat(lease.get("acquired_at").asLong()).isEqualTo(clock.millis() - 30_000);
        assertThat(lease.get("expires_at").asLong()).isEqualTo(clock.millis() + 30_000);
    }

    @Test
    void aPositiveClockOffsetIsAcceptedWithOrWithoutAPlusSign() throws Exception {
        Thread worker = start("worker", "--actor", "operator", "--clock-offset", "+1m", "--json");
        Poll.until(() -> printed("started"), Duration.ofSeconds(20), () -> "started; out: " + out + err);
        stop.request();
        worker.join(20_000);

        assertThat(exit[0]).isZero();
        assertThat(lines().get(0).get("detail").asText()).contains("clock offset 60000 ms");
        assertThat(lines().get(0).get("at").asLong()).isEqualTo(clock.millis() + 60_000);
    }

    /**
     * A worker says {@code running} only for what it may run (issue 26): a {@code command:} assignment its
     * allow-list does not match is refused ({@code command_not_allowed}, journalled) without a {@code running}
     * line before it, and an allowed one is announced as before.
     */
    @Test
    void aWorkerSaysRunningOnlyForAnAssignmentItMayRun() throws Exception {
        String forbidden = cli.ok("assign", "operator", "--provider", "command:false", "--json")
                .onlyJson()
                .get("assignment")
                .asText();
        Thread worker = start(
                "worker", "--actor", "operator", "--ttl", "3s", "--idle", "20ms", "--json", "--allow-command", "true");
        Poll.until(() -> printed("refused"), Duration.ofSeconds(20), () -> "the refusal; out: " + out + err);
        String allowed = cli.ok("assign", "operator", "--provider", "command:true", "--json")
                .onlyJson()
                .get("assignment")
                .asText();
        Poll.until(() -> printed("ran"), Duration.ofSeconds(20), () -> "the allowed run; out: " + out + err);
        stop.request();
        worker.join(20_000);

        assertThat(exit[0]).isZero();
        List<JsonNode> aboutForbidden = lines().stream()
                .filter(e -> e.has("resource") && e.get("resource").asText().equals(forbidden))
                .toList();
        assertThat(aboutForbidden).extracting(e -> e.get("event").asText()).containsExactly("refused");
        assertThat(aboutForbidden.get(0).get("detail").asText()).startsWith("command_not_allowed: ");
        assertThat(lines().stream()
                        .filter(e ->
                                e.has("resource") && e.get("resource").asText().equals(allowed)))
                .extracting(e -> e.get("event").asText())
                .containsExactly("running", "ran");
    }

    @Test
    void aWorkerForAnUnknownActorIsBadInput() {
        CliHarness.Result r = cli.run("worker", "--actor", "ghost");

        assertThat(r.exit()).isEqualTo(ExitCode.BAD_INPUT);
        assertThat(r.errLines())
                .singleElement()
                .asString()
                .startsWith("bad input (unknown_actor): There is no actor named 'ghost'");
    }
}
