package dev.sovereign.engine.cli;

import static dev.sovereign.engine.cli.CliHarness.fieldNames;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sovereign.engine.Engine;
import dev.sovereign.engine.cli.CliHarness.Result;
import dev.sovereign.engine.lease.Lease;
import dev.sovereign.engine.run.Assignment;
import dev.sovereign.engine.run.AssignmentState;
import dev.sovereign.engine.run.Attempt;
import dev.sovereign.engine.testing.Poll;
import dev.sovereign.engine.testing.Port;
import dev.sovereign.engine.testing.SettableClock;
import dev.sovereign.engine.testing.TempDatabase;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The assignment commands through picocli, in-process, on a real database file and a settable clock. */
class CliRunCommandsTest {
    static final List<String> ASSIGNMENT_FIELDS = List.of(
            "assignment",
            "actor",
            "state",
            "provider",
            "workspace_policy",
            "current_attempt",
            "current_attempt_token",
            "attempts",
            "retry_of",
            "retried_by",
            "acknowledged_at",
            "worker_lost",
            "receipt",
            "output_dir",
            "created_at",
            "updated_at");
    static final List<String> RECEIPT_FIELDS = List.of(
            "receipt",
            "attempt",
            "attempt_token",
            "process",
            "status",
            "failure_category",
            "outcome_known",
            "summary",
            "created_at");
    static final List<String> ATTEMPT_FIELDS = List.of(
            "attempt",
            "assignment",
            "actor",
            "process",
            "token",
            "lease_token",
            "state",
            "ttl_ms",
            "started_at",
            "renewed_at",
            "expires_at",
            "ended_at");

    @RegisterExtension
    final TempDatabase temp = new TempDatabase();

    private final SettableClock clock = new SettableClock();
    private CliHarness cli;

    @BeforeEach
    void setUp() {
        cli = new CliHarness(temp.dir(), clock);
        cli.ok("init");
        cli.ok("actor", "add", "operator");
    }

    private String assign(String provider) {
        return cli.ok("assign", "operator", "--provider", provider, "--json")
                .onlyJson()
                .get("assignment")
                .asText();
    }

    @Test
    void assignPrintsACreatedAssignmentAndHowToRunIt() {
        Result r = cli.ok("assign", "operator", "--provider", "scripted:ms=10,outcome=completed");
        assertThat(r.out())
                .startsWith("Assignment created.")
                .containsPattern("state +CREATED")
                .containsPattern("provider +scripted:ms=10,outcome=completed")
                .containsPattern("workspace policy +temporary")
                .contains("Run it with: sovereign run asg_");

        JsonNode json = cli.ok(
                        "assign",
                        "operator",
                        "--provider",
                        "command:true",
                        "--workspace-policy",
                        "persistent",
                        "--json")
                .onlyJson();
        assertThat(fieldNames(json)).containsExactlyElementsOf(ASSIGNMENT_FIELDS);
        assertThat(json.get("assignment").asText()).startsWith("asg_");
        assertThat(json.get("actor").asText()).isEqualTo("operator");
        assertThat(json.get("state").asText()).isEqualTo("CREATED");
        assertThat(json.get("workspace_policy").asText()).isEqualTo("persistent");
        assertThat(json.get("receipt").isNull()).isTrue();
        assertThat(json.get("worker_lost").asBoolean()).isFalse();
    }

    @Test
    void assignRunAssignmentsShowsCompletedWithItsAttemptTokenAndReceipt() {
        String id = assign("scripted:ms=0,outcome=completed");

        Result run = cli.ok("run", id);

        assertThat(run.out())
                .startsWith("Run committed: COMPLETED.")
                .containsPattern("attempt +att_\\S+ \\(token 2, lease token 1\\)")
                .containsPattern("receipt +#1 completed, attempt token 2")
                .containsPattern("receipt file +\\S+\\.receipt\\.json");
        Result table = cli.ok("assignments");
        assertThat(table.outLines().get(0))
                .matches("ASSIGNMENT +ACTOR +STATE +ATTEMPT TOKEN +RECEIPT +WORKER LOST" + " +UPDATED +PROVIDER +NOTE");
        assertThat(table.outLines().get(1)).startsWith(id).contains("COMPLETED").contains("completed");
        JsonNode listed = cli.ok("assignments", "--json").onlyJson();
        assertThat(fieldNames(listed)).containsExactlyElementsOf(ASSIGNMENT_FIELDS);
        assertThat(listed.get("state").asText()).isEqualTo("COMPLETED");
        assertThat(listed.get("attempts").asInt()).isEqualTo(1);
        assertThat(fieldNames(listed.get("receipt"))).containsExactlyElementsOf(RECEIPT_FIELDS);
        assertThat(listed.get("receipt").get("status").asText()).isEqualTo("completed");
        assertThat(listed.get("receipt").get("attempt_token").asLong()).isEqualTo(2);
        assertThat(listed.get("receipt").get("outcome_known").asBoolean()).isTrue();
        String attempt = listed.get("receipt").get("attempt").asText();
        assertThat(listed.get("output_dir").asText())
                .as("the committed attempt's own output folder")
                .endsWith(Path.of("runs", id, attempt, "output").toString());
        assertThat(Path.of(listed.get("output_dir").asText())).isDirectory();
        assertThat(run.out()).containsPattern("output +\\S+" + attempt + "/output");
        assertThat(cli.ok("lease", "list").out())
                .as("the run released its lease")
                .isEqualTo("No leases." + System.lineSeparator());
    }

    @Test
    void runAsJsonCarriesTheAssignmentTheAttemptAndTheReceipt() {
        String id = assign("scripted:ms=0,outcome=blocked");

        JsonNode r = cli.ok("run", id, "--ttl", "30s", "--json").onlyJson();

        assertThat(fieldNames(r))
                .startsWith(ASSIGNMENT_FIELDS.toArray(String[]::new))
                .endsWith("attempt", "workspace", "receipt_file", "warnings");
        assertThat(r.get("state").asText()).isEqualTo("BLOCKED");
        assertThat(r.get("receipt").get("status").asText()).isEqualTo("blocked");
        JsonNode attempt = r.get("attempt");
        assertThat(fieldNames(attempt)).containsExactlyElementsOf(ATTEMPT_FIELDS);
        assertThat(attempt.get("state").asText()).isEqualTo("DONE");
        assertThat(attempt.get("ttl_ms").asLong()).isEqualTo(30_000);
        assertThat(attempt.get("token").asLong())
                .isEqualTo(r.get("receipt").get("attempt_token").asLong());
        assertThat(Path.of(r.get("receipt_file").asText())).exists();
        assertThat(r.get("warnings").isArray()).isTrue();
        assertThat(Path.of(r.get("output_dir").asText()))
                .isDirectory()
                .isEqualTo(Path.of(
                        r.get("workspace").asText(), attempt.get("attempt").asText(), "output"));
    }

    @Test
    void aFailedOutcomeIsACommittedEndAndExitsZero() {
        String id = assign("scripted:ms=0,outcome=failed");

        Result r = cli.run("run", id, "--json");

        assertThat(r.exit()).isZero();
        assertThat(r.onlyJson().get("state").asText()).isEqualTo("FAILED");
        assertThat(r.onlyJson().get("receipt").get("failure_category").asText()).isEqualTo("scripted_failure");
    }

    @Test
    void retryOfAFailedRunCreatesANewAssignmentThatRuns() {
        String failed = assign("scripted:ms=0,outcome=failed");
        cli.ok("run", failed);

        Result retry = cli.ok("retry", failed);
        assertThat(retry.out())
                .startsWith("Retry created.")
                .containsPattern("retry of +" + failed)
                .contains("Run it with: sovereign run asg_");
        String again = cli.ok("assignments", "--state", "created", "--json")
                .onlyJson()
                .get("assignment")
                .asText();

        JsonNode ran = cli.ok("run", again, "--json").onlyJson();
        assertThat(ran.get("retry_of").asText()).isEqualTo(failed);
        assertThat(ran.get("state").asText()).isEqualTo("FAILED");
        JsonNode original = cli.ok("assignments", "--state", "FAILED", "--json").json().stream()
                .filter(j -> j.get("assignment").asText().equals(failed))
                .findFirst()
                .orElseThrow();
        assertThat(original.get("retried_by").asText()).isEqualTo(again);
        assertThat(cli.ok("assignments").out()).contains("retried as " + again).contains("retry of " + failed);

        Result twice = cli.run("retry", failed);
        assertThat(twice.exit()).isEqualTo(ExitCode.REFUSED);
        assertThat(twice.errLines()).singleElement().asString().startsWith("refused (assignment_not_retryable): ");
        Result completed = cli.run("run", failed);
        assertThat(completed.exit()).isEqualTo(ExitCode.REFUSED);
        assertThat(completed.errLines()).singleElement().asString().startsWith("refused (assignment_not_runnable): ");
    }

    @Test
    void aRunWhileAnotherProcessHostsTheActorIsRefusedAndTheAssignmentStaysCreated() {
        String id = assign("scripted:ms=0,outcome=completed");
        cli.ok("--process", "proc_a", "lease", "acquire", "operator", "--ttl", "1m");

        Result r = cli.run("run", id, "--json");

        assertThat(r.exit()).isEqualTo(ExitCode.REFUSED);
        assertThat(r.errLines())
                .singleElement()
                .asString()
                .startsWith("refused (actor_lease_held): Actor operator is" + " hosted by proc_a");
        assertThat(r.onlyJson().get("category").asText()).isEqualTo("actor_lease_held");
        JsonNode a = cli.ok("assignments", "--json").onlyJson();
        assertThat(a.get("state").asText()).isEqualTo("CREATED");
        assertThat(a.get("attempts").asInt()).isZero();
    }

    @Test
    void aRunAsTheDurableHolderUsesItsLeaseAndLeavesItHeld() {
        String id = assign("scripted:ms=0,outcome=completed");
        long token = cli.ok("--process", "proc_a", "lease", "acquire", "operator", "--ttl", "1m", "--json")
                .onlyJson()
                .get("token")
                .asLong();

        JsonNode r = cli.ok("--process", "proc_a", "run", id, "--json").onlyJson();

        assertThat(r.get("state").asText()).isEqualTo("COMPLETED");
        assertThat(r.get("attempt").get("lease_token").asLong()).isEqualTo(token);
        assertThat(r.get("attempt").get("process").asText()).isEqualTo("proc_a");
        JsonNode lease = cli.ok("lease", "list", "--json").onlyJson();
        assertThat(lease.get("process").asText()).isEqualTo("proc_a");
        assertThat(lease.get("token").asLong()).isEqualTo(token);
    }

    @Test
    void aRunUnderAHeldLeaseKeepsThatLeasesTtlWithOrWithoutItsOwnTtl() {
        String first = assign("scripted:ms=0,outcome=completed");
        String second = assign("scripted:ms=0,outcome=completed");
        long token = cli.ok("--process", "proc_a", "lease", "acquire", "operator", "--ttl", "1m", "--json")
                .onlyJson()
                .get("token")
                .asLong();

        cli.ok("--process", "proc_a", "run", first, "--json");
        JsonNode lease = cli.ok("lease", "list", "--json").onlyJson();
        assertThat(lease.get("token").asLong()).isEqualTo(token);
        assertThat(lease.get("ttl_ms").asLong()).isEqualTo(60_000);
        assertThat(lease.get("expires_at").asLong()).isEqualTo(clock.millis() + 60_000);

        // --ttl is the attempt's; the borrowed lease keeps its own (decision 0110)
        JsonNode r = cli.ok("--process", "proc_a", "run", second, "--ttl", "5s", "--json")
                .onlyJson();
        assertThat(r.get("attempt").get("ttl_ms").asLong()).isEqualTo(5_000);
        assertThat(cli.ok("lease", "list", "--json").onlyJson().get("ttl_ms").asLong())
                .isEqualTo(60_000);
    }

    @Test
    void aRunThatAcquiresTheLeaseUsesItsOwnTtlAndReleasesIt() {
        String id = assign("scripted:ms=0,outcome=completed");

        JsonNode r = cli.ok("run", id, "--ttl", "7s", "--json").onlyJson();

        assertThat(r.get("attempt").get("ttl_ms").asLong()).isEqualTo(7_000);
        assertThat(cli.ok("events", "--json").json())
                .filteredOn(e -> e.get("kind").asText().equals("LEASE_ACQUIRED"))
                .singleElement()
                .extracting(e -> e.get("detail").asText())
                .asString()
                .contains("ttl 7000 ms");
        assertThat(cli.ok("lease", "list").out()).isEqualTo("No leases." + System.lineSeparator());
    }

    @Test
    void aSignalDuringARunCancelsTheProviderCommitsFailedAndExits130() throws Exception {
        String id = assign("scripted:ms=600000,outcome=completed");
        StopSignals.Stop stop = new StopSignals.Stop();
        cli.with(b -> b.stopSignals(StopSignals.manual(stop)));
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int[] exit = {-1};
        Thread runner = new Thread(() -> exit[0] = Cli.execute(
                cli.environment(), new PrintWriter(out, true), new PrintWriter(err, true), "run", id, "--json"));
        runner.start();
        try (Engine observer = temp.open(clock)) {
            Poll.until(
                    () -> observer.runs()
                            .get(id)
                            .map(a -> a.state() == AssignmentState.RUNNING)
                            .orElse(false),
                    Duration.ofSeconds(20),
                    () -> "the run to start; stderr: " + err);
        }

        stop.request();
        runner.join(20_000);

        assertThat(runner.isAlive()).isFalse();
        assertThat(exit[0]).isEqualTo(ExitCode.INTERRUPTED);
        JsonNode r = CliHarness.JSON.readTree(out.toString());
        assertThat(r.get("state").asText()).isEqualTo("FAILED");
        assertThat(r.get("receipt").get("failure_category").asText()).isEqualTo("cancelled");
        assertThat(err.toString().lines().toList()).singleElement().asString().startsWith("interrupted: ");
        assertThat(cli.ok("lease", "list").out()).isEqualTo("No leases." + System.lineSeparator());
    }

    @Test
    void aWorkspaceThatCannotBePreparedIsOneSentenceExitThreeAndTheRunEndsFailed() throws Exception {
        String id = assign("scripted:ms=0,outcome=completed");
        Files.writeString(temp.dir().resolve("sovereign.data"), "a file where the data directory should be");

        Result r = cli.run("run", id);

        assertThat(r.exit()).isEqualTo(ExitCode.STORAGE);
        assertThat(r.errLines())
                .singleElement()
                .asString()
                .startsWith("i/o error: The run of assignment " + id + " could not prepare its workspace")
                .contains("exists and is not a directory")
                .endsWith(".")
                .doesNotContain("Exception");
        assertThat(r.out()).isEmpty();
        JsonNode a = cli.ok("assignments", "--json").onlyJson();
        assertThat(a.get("state").asText()).isEqualTo("FAILED");
        assertThat(a.get("receipt").get("failure_category").asText()).isEqualTo("workspace_error");

        Result json = cli.run("retry", id, "--json");
        assertThat(json.exit()).isZero();
        Result again = cli.run("run", json.onlyJson().get("assignment").asText(), "--json");
        assertThat(again.exit()).isEqualTo(ExitCode.STORAGE);
        assertThat(again.onlyJson().get("error").asText()).isEqualTo("io");
    }

    @Test
    void acknowledgeAndStealFenceAreJournalledOperatorActions() {
        Attempt running;
        try (Engine worker = temp.open(clock)) {
            Assignment x = worker.runs().assign("operator", "scripted");
            Lease lease = worker.leases().acquire("operator", Duration.ofSeconds(5));
            running = Port.runs(worker).startAttempt(x.id(), lease.token(), 5_000);
        }
        Result list = cli.ok("assignments", "--state", "running");
        assertThat(list.outLines().get(1)).contains("RUNNING").contains(" " + running.token() + " ");

        JsonNode stolen =
                cli.ok("steal-fence", running.assignmentId(), "--json").onlyJson();
        assertThat(fieldNames(stolen)).containsExactlyElementsOf(ATTEMPT_FIELDS);
        assertThat(stolen.get("attempt").asText()).isEqualTo(running.id());
        assertThat(stolen.get("token").asLong()).isEqualTo(running.token());
        Result twice = cli.run("steal-fence", running.assignmentId());
        assertThat(twice.exit()).isEqualTo(ExitCode.BAD_INPUT);

        clock.advance(Duration.ofSeconds(6));
        cli.ok("supervisor", "--once");
        JsonNode lost = cli.ok("assignments", "--json").onlyJson();
        assertThat(lost.get("worker_lost").asBoolean()).isTrue();
        assertThat(cli.ok("assignments").out()).contains("needs an operator: retry or acknowledge");

        Result ack = cli.ok("acknowledge", running.assignmentId());
        assertThat(ack.out())
                .startsWith("Acknowledged.")
                .containsPattern("acknowledged +")
                .contains("failed (worker_lost), outcome unknown");
        assertThat(cli.ok("assignments", "--json")
                        .onlyJson()
                        .get("acknowledged_at")
                        .asLong())
                .isEqualTo(clock.millis());
        assertThat(cli.ok("assignments").out()).contains("acknowledged").doesNotContain("needs an operator");
        assertThat(cli.ok("events", "--json").json())
                .extracting(e -> e.get("kind").asText())
                .contains("ATTEMPT_STOLEN", "ATTEMPT_RECOVERED", "ASSIGNMENT_ACKNOWLEDGED");
    }

    @Test
    void assignmentsFiltersByActorAndState() {
        cli.ok("actor", "add", "reviewer");
        assign("scripted");
        cli.ok("assign", "reviewer", "--provider", "scripted");

        assertThat(cli.ok("assignments", "--actor", "reviewer", "--json").json())
                .extracting(j -> j.get("actor").asText())
                .containsExactly("reviewer");
        assertThat(cli.ok("assignments", "--state", "completed").out())
                .isEqualTo("No assignments match." + System.lineSeparator());
        assertThat(cli.ok("assignments", "--json").json()).hasSize(2);
        assertThat(cli.ok("assignments", "--limit", "1", "--json").json()).hasSize(1);
    }
}
