package dev.sovereign.console.feature.lab;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sovereign.engine.admin.JournalEntry;
import dev.sovereign.engine.admin.LeaseRow;
import dev.sovereign.engine.admin.ProcessRef;
import dev.sovereign.engine.lab.Check;
import dev.sovereign.engine.lab.LabStep;
import dev.sovereign.engine.lab.LabVerdict;
import dev.sovereign.engine.lab.Verdict;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The Lab page's sentences, without a toolkit: verdicts, checks, steps, workers and what actions did. */
class LabSentencesTest {
    private static final ProcessRef WORKER_A = new ProcessRef("proc_a", "worker A", 4100L, "host");
    private static final ProcessRef WORKER_B = new ProcessRef("proc_b", "worker B", 4200L, "host");

    private static LabVerdict verdict(String scenario, Verdict v, String headline, boolean fenceOff, Check... checks) {
        return new LabVerdict(
                scenario,
                v,
                headline,
                List.of(checks),
                List.of(),
                Path.of("/tmp/lab", "lab-1.db"),
                "gc-pause-7",
                fenceOff,
                0,
                0,
                Map.of());
    }

    @Test
    void aHeldVerdictIsACapitalisedSentenceAndTheRunSaysItsCode() {
        LabVerdict held = verdict(
                "gc-pause",
                Verdict.HELD,
                "the fence held: the paused holder's late write was refused",
                false,
                new Check(Check.Kind.SAFETY, "No stale commit", true, "seq 12 refused, token 3 < 4"));

        assertThat(LabSentences.headline(held))
                .isEqualTo("The fence held: the paused holder's late write was refused.");
        assertThat(LabSentences.runEnded("gc-pause", held))
                .isEqualTo("gc-pause: held. The fence held: the paused holder's late write was refused.");
        assertThat(LabSentences.checksTitle(held))
                .isEqualTo("What the checker read from the journal and the ledger of lab-1.db (actor gc-pause-7)");
        Check safety = held.checks().get(0);
        assertThat(LabSentences.checkMark(safety)).isEqualTo("ok");
        assertThat(LabSentences.checkKind(safety)).isEqualTo("safety");
    }

    @Test
    void aViolatedVerdictNamesTheFenceSwitchedOffAndItsFailedSafetyCheck() {
        Check stale = new Check(Check.Kind.SAFETY, "No stale commit", false, "seq 14 committed with token 3 after 4");
        LabVerdict violated = verdict("stolen-fence", Verdict.VIOLATED, "a stale holder committed", true, stale);

        assertThat(LabSentences.runEnded("stolen-fence", violated))
                .isEqualTo("stolen-fence: violated. A stale holder committed.");
        assertThat(LabSentences.checksTitle(violated))
                .endsWith("(actor gc-pause-7), with the terminal fence switched OFF in its workers");
        assertThat(LabSentences.checkMark(stale)).isEqualTo("failed");
        assertThat(LabSentences.checkKind(stale)).isEqualTo("safety");
    }

    private static JournalEntry event(long seq, String kind, String type, String id, String actor, Long token) {
        return new JournalEntry(
                seq, seq * 10, kind, type, id, actor, WORKER_A, token, null, null, null, null, kind + " #" + seq);
    }

    private static JournalEntry refusal(long seq, String actor) {
        return new JournalEntry(
                seq,
                seq * 10,
                JournalEntry.REJECTED,
                "assignment",
                "asg_1",
                actor,
                WORKER_B,
                null,
                1L,
                3L,
                "actor_lease_lost",
                "refused",
                "Worker B (" + actor + ") was refused at #" + seq);
    }

    @Test
    void theLivePanelShowsOnlyTheCurrentScenariosRefusalsNeverThePreviousRunsOne() {
        List<JournalEntry> newestFirst = List.of(refusal(12, "gc-pause-1"), refusal(9, "gc-pause-1"));

        // the next run started: before it chose its actor and after, the previous run's refusal is not its own
        assertThat(LabSentences.liveRejection(newestFirst, "", true)).isEqualTo(LabSentences.NO_REJECTION_IN_THIS_RUN);
        assertThat(LabSentences.liveRejection(newestFirst, "gc-pause-2", true))
                .isEqualTo(LabSentences.NO_REJECTION_IN_THIS_RUN);
        List<JournalEntry> later = List.of(refusal(30, "gc-pause-2"), refusal(12, "gc-pause-1"));
        assertThat(LabSentences.liveRejection(later, "gc-pause-2", true))
                .isEqualTo("Worker B (gc-pause-2) was refused at #30");
        assertThat(LabSentences.liveRejection(newestFirst, "gc-pause-2", false))
                .isEqualTo("No write of gc-pause-2 was refused.");
        // without a scenario: the database's newest, as before
        assertThat(LabSentences.liveRejection(newestFirst, "", false))
                .isEqualTo("Worker B (gc-pause-1) was refused at #12");
        assertThat(LabSentences.liveRejection(List.of(), "", false)).isEqualTo(LabSentences.NO_REJECTION_YET);
    }

    @Test
    void aStaleCommitIsNamedOnlyWhenTheAttemptHadAlreadyBeenSupersededAndOnlyForTheScenariosActor() {
        List<JournalEntry> journal = List.of(
                event(4, "ATTEMPT_STARTED", "attempt", "att_a", "gc-pause-2", 2L),
                event(7, "ATTEMPT_SUPERSEDED", "attempt", "att_a", "gc-pause-2", 2L),
                event(8, "ATTEMPT_STARTED", "attempt", "att_b", "gc-pause-2", 4L),
                event(11, "ATTEMPT_DONE", "attempt", "att_a", "gc-pause-2", 2L));

        assertThat(LabSentences.staleCommit(journal, "gc-pause-2"))
                .isEqualTo("Attempt att_a (token 2) of worker A committed its result at journal #11 although it had"
                        + " been superseded at journal #7: the stale write was accepted.");
        assertThat(LabSentences.staleCommit(journal, "gc-pause-3")).isEmpty();
        assertThat(LabSentences.staleCommit(journal, "")).isEmpty();
        // the rightful attempt's commit is no stale write
        assertThat(LabSentences.staleCommit(
                        List.of(
                                journal.get(0),
                                journal.get(1),
                                event(12, "ATTEMPT_DONE", "attempt", "att_b", "gc-pause-2", 4L)),
                        "gc-pause-2"))
                .isEmpty();
    }

    @Test
    void anInconclusiveVerdictComesFromAFailedSetupCheck() {
        Check setup = new Check(Check.Kind.SETUP, "The second worker took over", false, null);
        LabVerdict inconclusive =
                verdict("gc-pause", Verdict.INCONCLUSIVE, "the scenario did not produce its situation", false, setup);

        assertThat(LabSentences.runEnded("gc-pause", inconclusive))
                .isEqualTo("gc-pause: inconclusive. The scenario did not produce its situation.");
        assertThat(LabSentences.checkMark(setup)).isEqualTo("failed");
        assertThat(LabSentences.checkKind(setup)).isEqualTo("setup");
    }

    @Test
    void aStepNeverReachedSaysSoAndARunThatStopsOrFailsSaysWhy() {
        assertThat(LabSentences.stepTitle(new LabStep(3, 9, "B takes over", LabStep.Status.SKIPPED, "", 0)))
                .isEqualTo("B takes over  (not reached)");
        assertThat(LabSentences.stepTitle(new LabStep(3, 9, "B takes over", LabStep.Status.DONE, "token 4", 0)))
                .isEqualTo("B takes over");
        assertThat(LabSentences.runStarted("gc-pause", false))
                .isEqualTo(
                        "Running gc-pause: watch Leases (Ctrl+1), Timeline (Ctrl+2) and Rejections (Ctrl+3) as it goes.");
        assertThat(LabSentences.runStarted("stolen-fence", true))
                .startsWith("Running stolen-fence with the terminal fence switched OFF: watch Leases");
        assertThat(LabSentences.runStopped("gc-pause"))
                .isEqualTo("gc-pause was stopped; every process it started has been stopped too.");
        assertThat(LabSentences.runFailed("gc-pause", new IOException("disk full\nat line 2")))
                .isEqualTo("gc-pause could not run: disk full");
        assertThat(LabSentences.failed("Starting worker A", new IllegalStateException()))
                .isEqualTo("Starting worker A failed: IllegalStateException");
    }

    @Test
    void aFrozenWorkerIsPausedBySigstopOrCooperativelyAndItsButtonSaysResume() {
        assertThat(LabSentences.paused("worker A", true))
                .isEqualTo("Paused worker A with SIGSTOP: no heartbeat, no"
                        + " writes. Its lease expires within its TTL and another worker may take over.");
        assertThat(LabSentences.paused("worker A", false)).startsWith("Paused worker A (cooperatively): no heartbeat");
        assertThat(LabSentences.pauseButton(LabWorkerItem.State.PAUSED)).isEqualTo("Resume");
        assertThat(LabSentences.pauseButton(LabWorkerItem.State.RUNNING)).isEqualTo("Pause");
        assertThat(LabSentences.resumed("worker A", true))
                .isEqualTo("Resumed worker A with SIGCONT: whatever it"
                        + " still believes it holds is checked by the ledger at its next write.");
        assertThat(LabSentences.resumed("worker A", false)).startsWith("Resumed worker A: whatever");
        assertThat(LabSentences.platformNote(true)).isEmpty();
        assertThat(LabSentences.platformNote(false)).startsWith("This system has no SIGSTOP");
    }

    @Test
    void theLedgerSaysWhetherAWorkerHostsItsActorOrWhomItWaitsFor() {
        LeaseRow heldByA = new LeaseRow("operator", WORKER_A, 7, 2000, 0, 0, 5000, 1);

        assertThat(LabSentences.workerLedger("operator", null, heldByA))
                .isEqualTo(new LabSentences.WorkerLedger("starting\u2026", false));
        assertThat(LabSentences.workerLedger("operator", "proc_a", null))
                .isEqualTo(new LabSentences.WorkerLedger("", false));
        assertThat(LabSentences.workerLedger("operator", "proc_a", heldByA))
                .isEqualTo(new LabSentences.WorkerLedger("hosts operator \u00b7 token 7", true));
        assertThat(LabSentences.workerLedger("operator", "proc_b", heldByA))
                .isEqualTo(new LabSentences.WorkerLedger("waits: worker A holds token 7", false));
        assertThat(LabSentences.workerLedger("operator", "proc_b", LeaseRow.free("operator")))
                .isEqualTo(new LabSentences.WorkerLedger("waits: operator is free", false));
    }

    @Test
    void aPausedWorkerIsSaidToBeFrozenWithTheTokenItStillBelievesItHolds() {
        LeaseRow heldByB = new LeaseRow("operator", WORKER_B, 3, 2000, 0, 0, 5000, 1);
        LeaseRow heldByA = new LeaseRow("operator", WORKER_A, 1, 2000, 0, 0, 5000, 1);

        assertThat(LabSentences.workerLedger("operator", "proc_a", heldByB, true, 1L))
                .isEqualTo(new LabSentences.WorkerLedger(
                        "paused: still believes it holds token 1; the ledger says worker B holds token 3", false));
        assertThat(LabSentences.workerLedger("operator", "proc_a", heldByA, true, 1L))
                .isEqualTo(new LabSentences.WorkerLedger(
                        "paused: still believes it holds token 1 (valid until its lease expires)", true));
        assertThat(LabSentences.workerLedger("operator", "proc_a", LeaseRow.free("operator"), true, null))
                .isEqualTo(new LabSentences.WorkerLedger(
                        "paused: it held no token of operator; the ledger says operator is free", false));
        assertThat(LabSentences.workerLedger("operator", "proc_a", heldByB, false, null))
                .as("running, it waits")
                .isEqualTo(LabSentences.workerLedger("operator", "proc_a", heldByB));
    }

    @Test
    void workersStartedByHandAreNamedApartFromAScenariosWorkers() {
        assertThat(LabSentences.manualWorkerLabel("A"))
                .isEqualTo("manual worker A")
                .isNotEqualTo("worker A");
    }

    @Test
    void anEndedWorkerSaysHowFromItsExitCode() {
        assertThat(LabSentences.endedHow(137)).isEqualTo("killed (SIGKILL)");
        assertThat(LabSentences.endedHow(9)).isEqualTo("killed (SIGKILL)");
        assertThat(LabSentences.endedHow(0)).isEqualTo("exited 0");
        assertThat(LabSentences.endedHow(3)).isEqualTo("exit 3");
        assertThat(LabWorkerItem.State.ENDED.text()).isEqualTo("ended");
    }

    @Test
    void theLivePanelSaysWhoHostsTheWatchedActorAndForHowLong() {
        LeaseRow heldByB = new LeaseRow("operator", WORKER_B, 8, 2000, 0, 0, 5000, 1);

        assertThat(LabSentences.liveLease("", heldByB, 1000)).isEmpty();
        assertThat(LabSentences.liveLease("operator", null, 1000)).isEqualTo("operator: no such actor yet");
        assertThat(LabSentences.liveLease("operator", LeaseRow.free("operator"), 1000))
                .isEqualTo("operator: free, nobody hosts it");
        assertThat(LabSentences.liveLease("operator", heldByB, 3500))
                .isEqualTo("operator: hosted by worker B \u00b7 token 8 \u00b7 expires in 1.5 s");
        assertThat(LabSentences.liveLease("operator", heldByB, 6000))
                .isEqualTo("operator: hosted by worker B \u00b7 token 8 \u00b7 EXPIRED, free to take over");
    }

    @Test
    void actionsOnWorkersSayWhatTheyDid() {
        assertThat(LabSentences.workerStarted(
                        "worker A", 4100, "operator", Duration.ofSeconds(2), Duration.ZERO, false))
                .isEqualTo("Started worker A (pid 4100) for operator, TTL 2 s.");
        assertThat(LabSentences.workerStarted(
                        "worker B", 4200, "operator", Duration.ofSeconds(1), Duration.ofSeconds(5), true))
                .isEqualTo("Started worker B (pid 4200) for operator, TTL 1 s, clock +5 s,"
                        + " with the terminal fence switched OFF.");
        assertThat(LabSentences.jobGiven("operator", Duration.ofSeconds(4), "run_9"))
                .isEqualTo("Gave operator a 4 s"
                        + " job (run_9): the worker hosting operator runs it now. Pause that worker while it runs to see its"
                        + " late write refused.");
        assertThat(LabSentences.killed("worker A")).startsWith("Killed worker A with SIGKILL: it released nothing.");
        assertThat(LabSentences.stopped("worker A")).isEqualTo("Stopped worker A: it released its lease and exited.");
        assertThat(LabSentences.skewed("worker A", Duration.ofSeconds(-5)))
                .startsWith("worker A's clock now reads \u22125 s behind. A fast clock");
        assertThat(LabSentences.skewed("worker A", Duration.ZERO))
                .startsWith("worker A's clock now reads the true time.");
    }

    @Test
    void theFormsChoicesReadAsWords() {
        assertThat(LabSentences.ttlChoice(Duration.ofSeconds(2))).isEqualTo("TTL 2 s");
        assertThat(LabSentences.clockChoice(Duration.ZERO)).isEqualTo("true clock");
        assertThat(LabSentences.clockChoice(Duration.ofSeconds(30))).isEqualTo("clock +30 s");
        assertThat(LabSentences.skewChoice(Duration.ofSeconds(5))).isEqualTo("+5 s (ahead)");
        assertThat(LabSentences.skewChoice(Duration.ofSeconds(-5))).isEqualTo("\u22125 s (behind)");
        assertThat(LabSentences.skewChoice(Duration.ZERO)).isEqualTo("true clock");
        assertThat(LabSentences.ttlChoice(null)).isEmpty();
    }

    @Test
    void theSandboxSentencesNameTheFile() {
        assertThat(LabSentences.sandboxOpened(Path.of("/tmp/lab", "lab-1.db")))
                .isEqualTo("Attached the lab sandbox lab-1.db. Start workers, or run a scenario.");
        assertThat(LabSentences.sandboxReset(Path.of("/tmp/lab", "lab-2.db")))
                .isEqualTo("A fresh sandbox lab-2.db is attached; the old one and its workers are gone.");
    }
}
