package dev.sovereign.engine.cli;

import static dev.sovereign.engine.cli.CliHarness.fieldNames;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sovereign.engine.Engine;
import dev.sovereign.engine.cli.CliHarness.Result;
import dev.sovereign.engine.lease.Lease;
import dev.sovereign.engine.mailbox.Claim;
import dev.sovereign.engine.mailbox.Message;
import dev.sovereign.engine.mailbox.MessageState;
import dev.sovereign.engine.process.ProcessInfo;
import dev.sovereign.engine.run.Assignment;
import dev.sovereign.engine.run.AssignmentState;
import dev.sovereign.engine.run.Attempt;
import dev.sovereign.engine.testing.Poll;
import dev.sovereign.engine.testing.Port;
import dev.sovereign.engine.testing.SettableClock;
import dev.sovereign.engine.testing.TempDatabase;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code sovereign supervisor} in-process: a worker engine on the same file and the same settable
 * clock leaves an attempt or a claim behind, time passes, and the CLI's supervisor recovers it.
 */
class CliSupervisorCommandTest {
    static final List<String> TICK_FIELDS = List.of(
            "at", "process", "expired_leases", "stale_processes", "swept_claims", "recovered", "retired", "failures");

    @RegisterExtension
    final TempDatabase temp = new TempDatabase();

    private final SettableClock clock = new SettableClock();
    private CliHarness cli;
    private Engine worker;

    @BeforeEach
    void setUp() {
        cli = new CliHarness(temp.dir(), clock);
        cli.ok("init");
        worker = temp.open(clock);
        worker.actors().add("operator");
    }

    /** An assignment RUNNING under an attempt of {@code worker} that nothing renews or finishes. */
    private Attempt abandonedRun(long ttlMs) {
        Assignment x = worker.runs().assign("operator", "scripted:ms=60000");
        Lease lease = worker.leases().acquire("operator", Duration.ofMillis(ttlMs));
        return Port.runs(worker).startAttempt(x.id(), lease.token(), ttlMs);
    }

    @Test
    void supervisorOnceRecoversAnExpiredAttemptAsWorkerLost() {
        Attempt abandoned = abandonedRun(5_000);
        assertThat(cli.ok("supervisor", "--once").out())
                .as("nothing has expired yet")
                .containsPattern("recovered +0");
        clock.advance(Duration.ofSeconds(5));

        Result r = cli.ok("supervisor", "--once");

        assertThat(r.out())
                .startsWith("Supervisor tick at ")
                .containsPattern("recovered +1")
                .containsPattern("expired leases +1");
        assertThat(r.out().lines().filter(l -> l.startsWith("recovered ")).toList())
                .singleElement()
                .asString()
                .contains(abandoned.assignmentId())
                .contains("FAILED (worker_lost, outcome unknown)")
                .contains("token " + abandoned.token())
                .contains(worker.processIdentity());
        assertThat(worker.runs().get(abandoned.assignmentId()))
                .get()
                .extracting(Assignment::state)
                .isEqualTo(AssignmentState.FAILED);
        JsonNode listed = cli.ok("assignments", "--json").onlyJson();
        assertThat(listed.get("worker_lost").asBoolean()).isTrue();
        assertThat(listed.get("receipt").get("failure_category").asText()).isEqualTo("worker_lost");
        assertThat(listed.get("receipt").get("outcome_known").asBoolean()).isFalse();
        assertThat(listed.get("receipt").get("attempt_token").asLong()).isEqualTo(abandoned.token());

        JsonNode second = cli.ok("supervisor", "--once", "--json").onlyJson();
        assertThat(second.get("recovered")).as("recovery is idempotent").isEmpty();
    }

    @Test
    void supervisorOnceAsJsonHasTheStoredReportShapeAndSweepsOnlyExpiredClaims() {
        worker.leases().acquire("operator", Duration.ofMinutes(5));
        Message old = worker.mailbox().send("ops", "operator", "old", null, 3);
        Message fresh = worker.mailbox().send("ops", "operator", "fresh", null, 3);
        Claim expiring = worker.mailbox().claim(old.id(), "operator", Duration.ofSeconds(5));
        clock.advance(Duration.ofSeconds(4));
        worker.mailbox().claim(fresh.id(), "operator", Duration.ofSeconds(5));
        clock.advance(Duration.ofSeconds(1));

        JsonNode tick = cli.ok("supervisor", "--once", "--json").onlyJson();

        assertThat(fieldNames(tick)).containsExactlyElementsOf(TICK_FIELDS);
        assertThat(tick.get("at").asLong()).isEqualTo(clock.millis());
        assertThat(tick.get("process").asText()).startsWith("proc_");
        assertThat(tick.get("swept_claims")).extracting(JsonNode::asText).containsExactly(expiring.message());
        assertThat(worker.mailbox().find(old.id()))
                .get()
                .extracting(Message::state)
                .isEqualTo(MessageState.NEW);
        assertThat(worker.mailbox().find(fresh.id()))
                .get()
                .extracting(Message::state)
                .isEqualTo(MessageState.CLAIMED);
        assertThat(tick.get("recovered")).isEmpty();
        assertThat(cli.ok("assignments").out())
                .as("a supervisor creates no work")
                .isEqualTo("No assignments." + System.lineSeparator());
    }

    @Test
    void theSupervisorLoopPrintsOneLinePerTickThatDidSomethingAndExitsZeroWhenStopped() throws Exception {
        Attempt abandoned = abandonedRun(5_000);
        StopSignals.Stop stop = new StopSignals.Stop();
        cli.with(b -> b.stopSignals(StopSignals.manual(stop)));
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int[] exit = {-1};
        Thread loop = new Thread(() -> exit[0] = Cli.execute(
                cli.environment(),
                new PrintWriter(out, true),
                new PrintWriter(err, true),
                "supervisor",
                "--interval",
                "20ms",
                "--label",
                "test supervisor"));
        loop.start();
        Poll.until(() -> out.toString().startsWith("supervising "), Duration.ofSeconds(10), () -> "the start line");
        ProcessInfo registered = worker.processes().list().stream()
                .filter(p -> "supervisor".equals(p.kind()))
                .findFirst()
                .orElseThrow();
        assertThat(registered.label()).isEqualTo("test supervisor");

        clock.advance(Duration.ofSeconds(5));
        Poll.until(
                () -> out.toString().contains("recovered " + abandoned.assignmentId()),
                Duration.ofSeconds(10),
                () -> "the recovery line; stdout: " + out);
        long ticksSoFar = worker.supervisor().lastTick().orElseThrow().seq();
        Poll.until(
                () -> worker.supervisor().lastTick().orElseThrow().seq() >= ticksSoFar + 10,
                Duration.ofSeconds(10),
                () -> "ten more ticks");
        stop.request();
        loop.join(10_000);

        assertThat(loop.isAlive()).isFalse();
        assertThat(exit[0]).isZero();
        assertThat(err.toString()).isEmpty();
        List<String> lines = out.toString().lines().toList();
        assertThat(lines.get(0)).contains(registered.identity()).contains("a tick every 20ms");
        assertThat(lines.get(lines.size() - 1)).isEqualTo("stopped");
        // Many ticks ran; only those that recovered or first saw the expired lease printed a line (two, if the
        // clock moved between one tick's report and its recovery), and the ten quiet ticks since printed nothing.
        List<String> ticks = lines.subList(1, lines.size() - 1);
        assertThat(ticks).hasSizeBetween(1, 2).doesNotHaveDuplicates();
        assertThat(ticks)
                .filteredOn(l -> l.contains("recovered "))
                .singleElement()
                .asString()
                .contains("as FAILED/worker_lost")
                .contains("attempt token " + abandoned.token());
        assertThat(ticks.get(ticks.size() - 1)).contains("1 expired lease (operator token ");
        assertThat(ticks).as("a line names only what is there").noneMatch(l -> l.contains(" 0 "));
        assertThat(worker.runs().get(abandoned.assignmentId()))
                .get()
                .extracting(Assignment::state)
                .isEqualTo(AssignmentState.FAILED);
    }

    @Test
    void theSupervisorLoopAsJsonPrintsOneTickObjectPerLine() throws Exception {
        abandonedRun(5_000);
        clock.advance(Duration.ofSeconds(5));
        StopSignals.Stop stop = new StopSignals.Stop();
        cli.with(b -> b.stopSignals(StopSignals.manual(stop)));
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        Thread loop = new Thread(() -> Cli.execute(
                cli.environment(),
                new PrintWriter(out, true),
                new PrintWriter(err, true),
                "supervisor",
                "--interval",
                "20ms",
                "--json"));
        loop.start();
        Poll.until(
                () -> out.toString().contains("worker_lost") || out.toString().contains("\"recovered\":[{"),
                Duration.ofSeconds(10),
                () -> "a recovery; stdout: " + out);
        stop.request();
        loop.join(10_000);

        List<String> lines = out.toString().lines().toList();
        assertThat(lines).hasSize(1);
        JsonNode tick = CliHarness.JSON.readTree(lines.get(0));
        assertThat(fieldNames(tick)).containsExactlyElementsOf(TICK_FIELDS);
        assertThat(tick.get("recovered")).hasSize(1);
        assertThat(err.toString()).isEmpty();
    }
}
