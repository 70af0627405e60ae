package dev.sovereign.engine.lab;

import dev.sovereign.engine.journal.EventKind;
import dev.sovereign.engine.journal.FenceEvent;
import dev.sovereign.engine.run.Attempt;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

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
        String job = first.assignmentId();
        Attempt second = run.await("worker B to re-run the job", LabRun.WAIT,
                () -> run.lab().runs().attempts(job).stream()
                        .filter(x -> x.processIdentity().equals(b.processIdentity())).findFirst().orElse(null),
                () -> hopeless(run, job));
        run.done("A's attempt " + first.id() + " (token " + first.token() + ") superseded; B runs attempt "
                + second.id() + " with token " + second.token());
        run.begin(5);
        FenceEvent late = Moves.lateWriteOf(run, "A", a.processIdentity(), first, takeover.seq());
        run.done(Moves.describeLateWrite("A", late));
        run.begin(6);
        String ended = run.awaitLine(b, l -> ((l.startsWith("ran ") || l.startsWith("refused")) && l.contains(job))
                || l.startsWith("error"), "worker B's run to end");
        run.done("worker B: " + ended.trim());
    }

    /** B will never re-run the job once it ended (e.g. A's write committed with the fence switched off). */
    private String hopeless(LabRun run, String job) {
        return Moves.jobEnded(run, job).orElse(b.isAlive() ? null : "worker B exited");
    }

    @Override
    public List<Check> check(LabRun run) {
        RunFacts f = RunFacts.read(run, first.assignmentId());
        Optional<Attempt> aAttempt = f.attemptOf(a.processIdentity());
        Optional<Attempt> bAttempt = f.attemptOf(b.processIdentity());
        Optional<FenceEvent> takeover = f.journal.first(EventKind.LEASE_TAKEN_OVER,
                e -> b.processIdentity().equals(e.processIdentity()));
        long after = takeover.map(FenceEvent::seq).orElse(Long.MAX_VALUE);
        List<Check> checks = new ArrayList<>();
        checks.add(Check.setup("The skewed worker B took the actor over from the live worker A with a greater token",
                takeover.isPresent() && aAttempt.isPresent() && takeover.get().token() > aAttempt.get().leaseToken(),
                takeover.map(e -> "#" + e.seq() + " LEASE_TAKEN_OVER token " + e.token() + " at B's clock "
                        + Moves.time(e.at())).orElse("no takeover by B")
                        + aAttempt.map(x -> "; A's lease token " + x.leaseToken()).orElse("")));
        checks.add(f.triedToWrite("A", a.processIdentity(), aAttempt, after, "after the takeover"));
        checks.add(f.noCommitAfter("A", aAttempt, after, "after B's takeover"));
        checks.add(f.refusalsPresentOldTokens("A", a.processIdentity(), after));
        checks.add(f.atMostOneCommit());
        checks.add(f.completedBy("B", bAttempt));
        return checks;
    }

    @Override
    public String heldHeadline() {
        return "the fence held: B's fast clock let it take the lease early (time decides when), but A's writes were"
                + " refused (tokens decide who); nothing was committed twice";
    }
}
