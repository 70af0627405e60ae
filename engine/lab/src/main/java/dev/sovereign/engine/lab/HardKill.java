package dev.sovereign.engine.lab;

import dev.sovereign.engine.journal.EventKind;
import dev.sovereign.engine.journal.FenceEvent;
import dev.sovereign.engine.run.Assignment;
import dev.sovereign.engine.run.AssignmentState;
import dev.sovereign.engine.run.Attempt;
import dev.sovereign.engine.run.Receipt;
import dev.sovereign.engine.supervisor.TickReport;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * {@code hard-kill}: the holder is killed (SIGKILL) mid-run; once its attempt expired, a supervisor
 * tick (the lab's own process) recovers the job as FAILED / {@code worker_lost}; a second tick finds
 * nothing; the operator retries it; a new worker completes the retry.
 *
 * <p>Worker B starts only after the retry: a worker hosting the actor earlier would re-run the
 * abandoned job itself (a RUNNING job whose attempt expired is runnable, docs/decisions/0100) and the
 * supervisor would have nothing to recover.
 */
final class HardKill implements Scenario {
    static final Duration JOB = Duration.ofSeconds(3);
    private static final ScenarioInfo INFO = Scenario.info(
            "hard-kill",
            "A killed holder's work is recovered, never guessed",
            "Worker A hosts the actor and runs a job. The lab kills A with SIGKILL: no release, no last write."
                    + " When A's attempt has expired, a supervisor tick recovers the job as FAILED / worker_lost with"
                    + " outcome unknown (it never guesses success), exactly once. The operator retries the job and"
                    + " worker B completes the retry.",
            false,
            "Start worker A; it hosts the actor",
            "Give the actor a 3 s job; A starts it",
            "Kill A with SIGKILL mid-run (no release, no last write)",
            "A's attempt expires: nothing renews it any more",
            "The supervisor ticks: it recovers the job as FAILED / worker_lost",
            "A second tick finds nothing to recover",
            "The operator retries the job",
            "Start worker B; it hosts the actor and completes the retry");

    private WorkerProcess a;
    private WorkerProcess b;
    private Attempt first;
    private String retry;

    /** Decision 0117: the kill must land while A's job runs; everything after it may wait (A is gone, nothing renews its attempt, and the supervisor, the retry and B are the lab's own moves). */
    @Override
    public boolean holdsBefore(int index) {
        return index != 2;
    }

    @Override
    public ScenarioInfo info() {
        return INFO;
    }

    @Override
    public void play(LabRun run) throws Inconclusive, InterruptedException, IOException {
        run.begin(0);
        a = Moves.hostingWorker(run, "A", null);
        run.begin(1);
        first = Moves.jobStartedBy(run, "A", a, JOB);
        run.begin(2);
        run.bench().kill(a);
        run.done(Moves.who("A", a) + " is gone (exit " + a.exitValue() + "): it released nothing and wrote nothing");
        run.begin(3);
        Attempt expired = Moves.expired(run, first);
        run.done("attempt " + first.id() + " (token " + first.token() + ") expired at "
                + Moves.time(expired.expiresAt()) + "; the job is still RUNNING in the ledger");
        run.begin(4);
        Optional<TickReport.Recovery> recovered = Moves.tick(run, first.assignmentId());
        if (recovered.isEmpty()) {
            // another supervisor on this database may have been first: the journal says
            run.awaitEvent(
                    "the job's recovery",
                    e -> e.kind() == EventKind.ATTEMPT_RECOVERED
                            && e.resourceId().equals(first.id()));
        }
        Receipt r = run.lab().runs().receipt(first.assignmentId()).orElse(null);
        run.done(
                r == null
                        ? "no receipt yet"
                        : "job " + first.assignmentId() + " is FAILED; receipt " + r.id() + ": "
                                + r.status().code() + " / " + r.failureCategory() + ", outcome "
                                + (r.outcomeKnown() ? "known" : "unknown")
                                + ", naming attempt " + r.attemptId() + " (token " + r.attemptToken() + ")");
        run.begin(5);
        Optional<TickReport.Recovery> again = Moves.tick(run, first.assignmentId());
        run.done(
                again.isEmpty()
                        ? "nothing recovered: recovery is idempotent"
                        : "recovered AGAIN: receipt " + again.get().receiptId());
        run.begin(6);
        Assignment retried = run.lab().runs().retry(first.assignmentId());
        retry = retried.id();
        run.done("new job " + retry + " with retry_of " + first.assignmentId() + " (an operator's decision, never"
                + " automatic)");
        run.begin(7);
        b = Moves.startedWorker(run, "B", null);
        Assignment done = run.await(
                "worker B to complete the retry",
                LabRun.WAIT,
                () -> run.lab()
                        .runs()
                        .get(retry)
                        .filter(x -> x.state() != AssignmentState.CREATED && x.state() != AssignmentState.RUNNING)
                        .orElse(null),
                () -> b.isAlive() ? null : "worker B exited");
        run.done(Moves.who("B", b) + " ran the retry: " + done.state());
    }

    @Override
    public List<Check> check(LabRun run) {
        RunFacts f = RunFacts.read(run, first.assignmentId());
        Optional<Attempt> aAttempt = f.attemptOf(a.processIdentity());
        List<FenceEvent> recoveries =
                f.journal.of(EventKind.ATTEMPT_RECOVERED, e -> e.resourceId().equals(first.id()));
        List<Check> checks = new ArrayList<>();
        checks.add(Check.setup(
                "The supervisor recovered the killed worker's job",
                !recoveries.isEmpty(),
                LedgerFacts.refs(recoveries)));
        checks.add(f.noCommitAfter("A", aAttempt, 0, "after it was killed"));
        checks.add(Check.safety(
                "The recovery never guessed success: the one receipt is failed / worker_lost,"
                        + " outcome unknown, naming A's attempt and token",
                f.receipt
                        .map(r -> r.status().code().equals("failed")
                                && Receipt.WORKER_LOST.equals(r.failureCategory())
                                && !r.outcomeKnown()
                                && r.attemptId().equals(first.id())
                                && r.attemptToken() == first.token())
                        .orElse(true),
                f.receipt
                        .map(r -> "receipt " + r.id() + ": " + r.status().code() + " / " + r.failureCategory()
                                + ", outcome " + (r.outcomeKnown() ? "known" : "unknown") + ", attempt " + r.attemptId()
                                + " token " + r.attemptToken())
                        .orElse("no receipt")));
        checks.add(Check.safety(
                "Recovery is idempotent: the attempt was recovered at most once",
                recoveries.size() <= 1,
                LedgerFacts.refs(recoveries)));
        List<Assignment> jobs = run.lab().runs().list().stream()
                .filter(x -> x.actorId().equals(run.actor()))
                .toList();
        checks.add(Check.safety(
                "The supervisor created no work: the actor's only jobs are the lab's and the" + " operator's retry",
                jobs.size() <= 2,
                jobs.stream()
                        .map(x -> x.id() + (x.retryOf() == null ? "" : " (retry of " + x.retryOf() + ")") + " "
                                + x.state())
                        .toList()
                        .toString()));
        Optional<Assignment> retried =
                retry == null ? Optional.empty() : run.lab().runs().get(retry);
        Optional<Receipt> retryReceipt =
                retry == null ? Optional.empty() : run.lab().runs().receipt(retry);
        checks.add(Check.setup(
                "A new worker completed the operator's retry",
                retried.isPresent()
                        && retried.get().state() == AssignmentState.COMPLETED
                        && first.assignmentId().equals(retried.get().retryOf())
                        && retryReceipt.isPresent()
                        && b != null
                        && retryReceipt.get().processIdentity().equals(b.processIdentity()),
                retried.map(x -> "retry " + x.id() + " is " + x.state()).orElse("no retry")
                        + retryReceipt
                                .map(r -> ", receipt by attempt " + r.attemptId())
                                .orElse("")));
        return checks;
    }

    @Override
    public String heldHeadline() {
        return "the fence held: the killed worker's job was recovered once as worker_lost (never guessed as success)"
                + " and the operator's retry completed on worker B";
    }
}
