package dev.sovereign.engine.lab;

import dev.sovereign.engine.journal.FenceEvent;
import dev.sovereign.engine.run.Attempt;
import java.io.IOException;
import java.time.Duration;
import java.util.List;

/**
 * {@code clock-skew}: a worker whose clock runs ahead ({@code --clock-offset}) believes the live
 * holder's lease expired and takes the actor over early, while the holder is alive and heartbeating.
 * Time decides when a takeover is allowed, so the skew costs the holder its lease; tokens decide who
 * may commit, so the holder's writes are refused and nothing is committed twice.
 */
final class ClockSkew implements Scenario {
    static final Duration JOB = Duration.ofSeconds(3);
    static final Duration SKEW = Duration.ofSeconds(5);
    private static final ScenarioInfo INFO = Scenario.info("clock-skew",
            "A fast clock can steal a lease early, never a commit",
            "Worker A hosts the actor and runs a job, renewing its lease every third of a second. Worker B starts"
                    + " with its clock 5 s ahead: by B's clock A's lease has long expired, so B takes the actor over"
                    + " while A is still alive, and re-runs the job. A's next heartbeat fails and its write is"
                    + " refused: a skewed clock may cost liveness, never safety. Nothing is committed twice.",
            true,
            "Start worker A (true clock); it hosts the actor",
            "Give the actor a 3 s job; A starts it",
            "Start worker B with its clock 5 s ahead (--clock-offset=5s)",
            "By B's clock A's lease expired: B takes the actor over while A is alive",
            "B supersedes A's attempt (expired by B's clock) and re-runs the job",
            "A's next heartbeat fails; A's write is refused",
            "B finishes the job");

    private WorkerProcess a;
    private WorkerProcess b;
    private Attempt first;

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
        b = Moves.startedWorker(run, "B", SKEW);
        run.done(Moves.who("B", b) + " started; its clock reads " + SKEW.toSeconds() + " s ahead of A's");
        run.begin(3);
        FenceEvent takeover = Moves.takeoverBy(run, "B", b);
        run.done(Moves.who("B", b) + " took " + run.actor() + " over with token " + takeover.token()
                + " at " + Moves.time(takeover.at()) + " by its own clock (journal #" + takeover.seq() + ")"
                + (a.isAlive() ? "; A is alive and was heartbeating" : ""));
        run.begin(4);
        Attempt second = Moves.rerunBy(run, "B", b, first.assignmentId());
        run.done("A's attempt " + first.id() + " (token " + first.token() + ") superseded; B runs attempt "
                + second.id() + " with token " + second.token());
        run.begin(5);
        FenceEvent late = Moves.lateWriteOf(run, "A", a.processIdentity(), first, takeover.seq());
        run.done(Moves.describeLateWrite("A", late));
        run.begin(6);
        run.done("worker B: " + Moves.runEnded(run, "B", b, first.assignmentId()));
    }

    @Override
    public List<Check> check(LabRun run) {
        return RunFacts.read(run, first.assignmentId()).takeoverChecks(
                "The skewed worker B took the actor over from the live worker A with a greater token",
                a.processIdentity(), b.processIdentity(), "after the takeover");
    }

    @Override
    public String heldHeadline() {
        return "the fence held: B's fast clock let it take the lease early (time decides when), but A's writes were"
                + " refused (tokens decide who); nothing was committed twice";
    }
}
