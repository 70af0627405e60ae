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
 * {@code stolen-fence}: the lab clears a running job's attempt pointer ({@code Runs.stealFence}); the
 * worker running it can then commit nothing. Its next heartbeat cannot renew the attempt, so it
 * cancels the job and tries to write {@code FAILED / cancelled}; that write is refused. Once the
 * attempt expired, the supervisor recovers the job as {@code worker_lost}.
 *
 * <p>With the fence switched off the worker's cancelled write commits: the checker counts ANY terminal
 * commit by the stolen attempt as a violation, not only a completion.
 */
final class StolenFence implements Scenario {
    static final Duration JOB = Duration.ofSeconds(3);
    private static final ScenarioInfo INFO = Scenario.info(
            "stolen-fence",
            "A worker whose fence was stolen cannot commit",
            "Worker A hosts the actor and runs a job. An operator (here the lab) clears the job's attempt pointer"
                    + " under it. A's next heartbeat cannot renew the attempt, so A cancels its job and tries to write"
                    + " the result: refused and journalled. When the attempt has expired, the supervisor recovers"
                    + " the job as worker_lost.",
            true,
            "Start worker A; it hosts the actor",
            "Give the actor a 3 s job; A starts it",
            "Steal the fence: clear the job's attempt pointer under A",
            "A's heartbeat cannot renew the attempt; A cancels the job and tries to write",
            "A's attempt expires; the supervisor recovers the job as worker_lost");

    private WorkerProcess a;
    private Attempt first;

    /** Decision 0117: the steal must land while A's job runs; A's answer to it and the supervisor's recovery may wait (they follow from the ledger, not from when). */
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
        Attempt victim = run.lab().runs().stealFence(first.assignmentId());
        FenceEvent stolen = run.awaitEvent(
                "the steal in the journal",
                e -> e.kind() == EventKind.ATTEMPT_STOLEN && e.resourceId().equals(victim.id()));
        run.done("job " + first.assignmentId() + " still RUNNING, with no current attempt: attempt " + victim.id()
                + " (token " + victim.token() + ") of A is no longer the fence (journal #" + stolen.seq() + ")");
        run.begin(3);
        Moves.lateWrite(run, "A", a, first, stolen.seq(), "its fence had been stolen at journal #" + stolen.seq())
                .tell(run);
        run.begin(4);
        Moves.expired(run, first);
        Optional<TickReport.Recovery> recovered = Moves.tick(run, first.assignmentId());
        Assignment job = run.lab().runs().get(first.assignmentId()).orElseThrow();
        run.done(recovered
                .map(r -> "recovered: job " + job.id() + " is " + job.state() + ", receipt " + r.receiptId()
                        + " worker_lost" + (r.fenceWasStolen() ? " (its fence had been stolen)" : ""))
                .orElse("nothing to recover: job " + job.id() + " is " + job.state()
                        + (job.state() == AssignmentState.RUNNING ? "" : " already")));
    }

    @Override
    public List<Check> check(LabRun run) {
        RunFacts f = RunFacts.read(run, first.assignmentId());
        Optional<Attempt> aAttempt = f.attemptOf(a.processIdentity());
        Optional<FenceEvent> stolen =
                f.journal.first(EventKind.ATTEMPT_STOLEN, e -> e.resourceId().equals(first.id()));
        long after = stolen.map(FenceEvent::seq).orElse(Long.MAX_VALUE);
        List<Check> checks = new ArrayList<>();
        checks.add(Check.setup(
                "The fence was stolen under A's running attempt",
                stolen.isPresent(),
                stolen.map(e -> "#" + e.seq() + " ATTEMPT_STOLEN attempt " + e.resourceId() + " token " + e.token())
                        .orElse("no ATTEMPT_STOLEN")));
        checks.add(f.triedToWrite("A", a.processIdentity(), aAttempt, after, "after the steal"));
        checks.add(f.noCommitAfter(
                "A",
                aAttempt,
                after,
                "(completed, failed or cancelled) after its fence was stolen",
                "after its fence was stolen"));
        checks.add(f.refusalsPresentOldTokens("A", a.processIdentity(), after));
        checks.add(f.atMostOneCommit());
        checks.add(Check.safety(
                "The job's receipt, if any, is the supervisor's worker_lost recovery, not A's result",
                f.receipt
                        .map(r -> Receipt.WORKER_LOST.equals(r.failureCategory()) && !r.outcomeKnown())
                        .orElse(true),
                f.receipt
                        .map(r -> "receipt " + r.id() + ": " + r.status().code() + " / " + r.failureCategory()
                                + ", outcome " + (r.outcomeKnown() ? "known" : "unknown") + ", by "
                                + r.processIdentity())
                        .orElse("no receipt")));
        List<FenceEvent> recoveries =
                f.journal.of(EventKind.ATTEMPT_RECOVERED, e -> e.resourceId().equals(first.id()));
        checks.add(Check.setup(
                "The supervisor recovered the job as worker_lost",
                !recoveries.isEmpty() && f.job.state() == AssignmentState.FAILED,
                LedgerFacts.refs(recoveries) + "; job is " + f.job.state()));
        return checks;
    }

    @Override
    public String heldHeadline() {
        return "the fence held: once its attempt pointer was stolen, worker A could commit nothing (its write was"
                + " refused and journalled); the supervisor recovered the job as worker_lost";
    }
}
