package dev.sovereign.engine.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sovereign.engine.lab.GcPauseBrokenFenceWords;
import dev.sovereign.engine.lab.Lab;
import dev.sovereign.engine.testing.SettableClock;
import dev.sovereign.engine.testing.TempDatabase;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@code sovereign lab} through picocli: the list, a narrated run, the JSON verdict and the exit codes. */
class LabCommandTest {
    @RegisterExtension
    final TempDatabase temp = new TempDatabase();

    private CliHarness cli;
    private Path sandbox;

    @BeforeEach
    void setUp() {
        cli = new CliHarness(temp.dir(), new SettableClock());
        sandbox = Lab.createSandbox(temp.dir().resolve("lab"));
    }

    @Test
    void labListNamesEveryScenarioAndWhichOnesTheFaultSwitchBreaks() {
        CliHarness.Result r = cli.ok("lab", "list");
        assertThat(r.outLines()).first().asString().startsWith("SCENARIO").contains("BREAK-FENCE");
        assertThat(r.out())
                .contains("two-racers", "gc-pause", "hard-kill", "expired-self-reclaim", "stolen-fence", "clock-skew");
        assertThat(r.outLines()).filteredOn(l -> l.contains("violates")).hasSize(3);

        List<JsonNode> json = cli.ok("--json", "lab", "list").json();
        assertThat(json)
                .extracting(n -> n.get("scenario").asText())
                .containsExactly(
                        "two-racers", "gc-pause", "hard-kill", "expired-self-reclaim", "stolen-fence", "clock-skew");
        assertThat(CliHarness.fieldNames(json.get(1)))
                .containsExactly("scenario", "title", "summary", "fault_switch_applies", "steps");
        assertThat(json.get(1).get("fault_switch_applies").asBoolean()).isTrue();
        assertThat(json.get(1)
                        .get("steps")
                        .get(json.get(1).get("steps").size() - 1)
                        .asText())
                .isEqualTo("Check the journal and the ledger");
    }

    @Test
    void labHelpSaysOnceWhatHappensWithoutDbAndTheOptionAgrees() {
        String help = cli.ok("lab", "--help").out().replaceAll("\\s+", " ");
        assertThat(help)
                .contains("Without --db (or $SOVEREIGN_DB) it runs in a fresh sandbox database, kept for"
                        + " inspection.");
        assertThat(help)
                .contains("--db=DB Database file or jdbc:postgresql:// URL; default $SOVEREIGN_DB, else"
                        + " ./sovereign.db (for lab: a fresh sandbox database)");
    }

    @Test
    void aScenarioPrintsItsNarrativeStepByStepThenTheVerdictAndExitsZeroWhenTheFenceHeld() {
        CliHarness.Result r = cli.ok("lab", "expired-self-reclaim", "--db", sandbox.toString());
        List<String> lines = r.outLines();
        assertThat(lines.get(0))
                .isEqualTo("lab expired-self-reclaim: An owner's expired claim comes back with a fresh" + " token");
        assertThat(lines.get(1)).isEqualTo("database  " + sandbox);
        assertThat(lines.get(2)).isEqualTo("fence     intact");
        // each step's title as it starts, then what was seen, in order
        assertThat(lines.get(3)).isEqualTo("[1/7] A process (the owner) hosts the actor");
        assertThat(lines.get(4)).startsWith("      the owner (proc_").endsWith("with lease token 1");
        assertThat(lines.get(9)).isEqualTo("[4/7] The owner claims the message again: a fresh, greater token");
        assertThat(lines.get(10)).isEqualTo("      a fresh token 3 > 2");
        assertThat(lines.get(11)).isEqualTo("[5/7] The owner's late completion with the old token is refused");
        assertThat(lines.get(12))
                .isEqualTo("      completion with token 2 refused: fencing_token_stale, current token 3");
        assertThat(lines.get(15)).isEqualTo("[7/7] Check the journal and the ledger");
        assertThat(lines.get(16)).isEqualTo("      held: 6 of 6 checks passed");
        assertThat(lines.get(17)).startsWith("verdict   HELD: the fence held: ");
        assertThat(lines.subList(18, 24)).allMatch(l -> l.startsWith("  ok      "));
        assertThat(r.err()).isEmpty();
        // it ran against the named database, with a fresh actor
        assertThat(cli.ok("--db", sandbox.toString(), "actor", "list").out()).contains("expired-self-reclaim-1");
    }

    @Test
    void slowMotionWaitsOnlyBeforeTheStepsTheStoryCanWaitForAndSaysSo() {
        CliHarness.Result r = cli.ok("lab", "expired-self-reclaim", "--slow=1", "--db", sandbox.toString());
        List<String> lines = r.outLines();
        assertThat(lines.get(3)).startsWith("pace      slow motion: the lab waits 1 s before each step it can hold");
        // the owner's 30 s lease: only the first step and the check wait (decision 0117)
        assertThat(lines)
                .containsSubsequence(
                        "      (the lab waits 1 s before step 1; the workers run on in real time)",
                        "[1/7] A process (the owner) hosts the actor",
                        "[6/7] Completion with the fresh token finishes the message once",
                        "      (the lab waits 1 s before step 7; the workers run on in real time)",
                        "[7/7] Check the journal and the ledger");
        assertThat(lines.stream().filter(l -> l.startsWith("      (the lab waits")))
                .hasSize(2);
        assertThat(lines).anyMatch(l -> l.startsWith("verdict   HELD"));
    }

    @Test
    void withJsonEachStepIsAnObjectAsItHappensAndTheVerdictIsTheLastObject() throws IOException {
        CliHarness.Result r = cli.ok("--json", "lab", "expired-self-reclaim");
        List<JsonNode> json = r.json();
        assertThat(json).hasSize(2 * 7 + 1);
        JsonNode first = json.get(0);
        assertThat(CliHarness.fieldNames(first))
                .containsExactly("event", "scenario", "step", "of", "title", "status", "detail", "at");
        assertThat(first.get("step").asInt()).isEqualTo(1);
        assertThat(first.get("status").asText()).isEqualTo("running");
        assertThat(json.get(1).get("status").asText()).isEqualTo("done");
        JsonNode verdict = json.get(json.size() - 1);
        assertThat(CliHarness.fieldNames(verdict))
                .containsExactly(
                        "event",
                        "scenario",
                        "verdict",
                        "headline",
                        "database",
                        "sandbox",
                        "actor",
                        "fault_injected",
                        "started_at",
                        "duration_ms",
                        "checks",
                        "worker_output");
        assertThat(verdict.get("verdict").asText()).isEqualTo("held");
        assertThat(verdict.get("sandbox").asBoolean()).isTrue();
        assertThat(verdict.get("checks"))
                .hasSize(6)
                .allMatch(c -> c.get("passed").asBoolean());
        assertThat(CliHarness.fieldNames(verdict.get("checks").get(0)))
                .containsExactly("kind", "statement", "passed", "evidence");
        // without --db or $SOVEREIGN_DB it made a fresh sandbox and kept it for inspection
        Path db = Path.of(verdict.get("database").asText());
        assertThat(db).exists();
        assertThat(db.getParent().getFileName().toString()).startsWith("sovereign-lab-");
        deleteTree(db.getParent());
    }

    @Test
    void gcPauseWithTheFenceBrokenTellsTheStaleWriteAcceptedPlainlyAndExitsOne() {
        CliHarness.Result r = cli.run("lab", "gc-pause", "--break-fence", "--db", sandbox.toString());
        assertThat(r.exit())
                .as(r.out() + r.err())
                .isEqualTo(LabCommand.VIOLATED)
                .isEqualTo(1);
        List<String> lines = r.outLines();
        assertThat(lines.get(2)).isEqualTo("fence     SWITCHED OFF in the workers (--break-fence): expect violations");
        // issue 31 item 13: in the order it happened, the same words as the console's narrative
        assertThat(lines.get(15)).isEqualTo("[7/9] Wake A with SIGCONT; it tries to write its late result");
        assertThat(lines.get(16).strip()).as(r.out()).matches(GcPauseBrokenFenceWords.STALE_WRITE);
        assertThat(lines.get(17)).isEqualTo("[8/9] B's run ends; it writes its result");
        assertThat(lines.get(18).strip()).as(r.out()).matches(GcPauseBrokenFenceWords.RIGHTFUL_RESULT_LOST);
        assertThat(lines.get(21))
                .as(r.out())
                .startsWith("verdict   VIOLATED: ")
                .satisfies(l -> assertThat(l.substring("verdict   VIOLATED: ".length()))
                        .matches(GcPauseBrokenFenceWords.BROKEN_HEADLINE));
        assertThat(r.out())
                .doesNotContain("did not hold")
                .doesNotContain("SQLITE")
                .doesNotContain("RAISE");
        assertThat(r.outLines())
                .anyMatch(
                        l -> l.startsWith("  FAILED  safety  A's attempt made no terminal commit after B's takeover"));
    }

    @Test
    void theBrokenFenceIsRefusedOnADatabaseThatIsNotALabSandbox() {
        Path ordinary = temp.dir().resolve("ordinary.db");
        assertThat(cli.run("--db", ordinary.toString(), "init").exit()).isZero();
        List<ProcessHandle> before = ProcessHandle.current().children().toList();

        CliHarness.Result r = cli.run("lab", "gc-pause", "--break-fence", "--db", ordinary.toString());

        assertThat(r.exit()).as(r.out() + r.err()).isEqualTo(2);
        assertThat(r.errLines())
                .singleElement()
                .asString()
                .startsWith("bad input (invalid_argument): The broken-fence mode works only on a lab sandbox")
                .contains(ordinary.toString());
        assertThat(ProcessHandle.current()
                        .children()
                        .filter(ProcessHandle::isAlive)
                        .toList())
                .as("no worker was started")
                .containsExactlyInAnyOrderElementsOf(before);
    }

    @Test
    void anUnknownScenarioOrAMissingDatabaseIsOneSentenceAndTheUsualExitCode() {
        CliHarness.Result unknown = cli.run("lab", "gc-paws");
        assertThat(unknown.exit()).isEqualTo(2);
        assertThat(unknown.errLines())
                .containsExactly("bad input: There is no lab scenario 'gc-paws'; the scenarios are"
                        + " two-racers, gc-pause, hard-kill, expired-self-reclaim, stolen-fence, clock-skew (see 'sovereign lab"
                        + " list').");
        assertThat(cli.run("lab").exit()).isEqualTo(2);

        CliHarness.Result missing =
                cli.run("lab", "gc-pause", "--db", temp.dir().resolve("nope.db").toString());
        assertThat(missing.exit()).isEqualTo(3);
        assertThat(missing.errLines()).singleElement().asString().startsWith("storage error (");
    }

    @Test
    void anInterruptedRunStopsEveryWorkerItStartedAndExits130() {
        StopSignals.Stop stop = new StopSignals.Stop();
        List<ProcessHandle> before = ProcessHandle.current().children().toList();
        cli.with(b -> b.stopSignals(StopSignals.manual(stop)));
        Thread interrupter = new Thread(() -> {
            // as soon as the scenario's first worker exists, the trainer presses Ctrl-C
            long deadline = System.nanoTime() + 60_000_000_000L;
            while (ProcessHandle.current().children().count() <= before.size() && System.nanoTime() < deadline) {
                try {
                    Thread.sleep(5); // polling for the first child process, with a deadline
                } catch (InterruptedException e) {
                    return;
                }
            }
            stop.request();
        });
        interrupter.start();
        CliHarness.Result r = cli.run("lab", "gc-pause", "--db", sandbox.toString());
        assertThat(r.exit()).as(r.out() + r.err()).isEqualTo(130);
        assertThat(r.errLines()).singleElement().asString().startsWith("interrupted: ");
        assertThat(ProcessHandle.current()
                        .children()
                        .filter(ProcessHandle::isAlive)
                        .toList())
                .as("no worker outlives the interrupted run")
                .isSubsetOf(before);
    }

    private static void deleteTree(Path dir) throws IOException {
        try (Stream<Path> s = Files.walk(dir)) {
            for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}
