package dev.sovereign.engine.lab;

import dev.sovereign.engine.journal.FenceEvent;
import dev.sovereign.engine.run.Attempt;
import java.io.IOException;
import java.time.Duration;
import java.util.List;

/**
 * {@code gc-pause}: the holder is frozen (SIGSTOP) mid-run past its TTL; another worker takes the
 * actor over and re-runs the job; the holder wakes (SIGCONT) and its late terminal write is refused.
 *
 * <p>A is frozen right after its attempt started, while its provider sleeps, and only once the lab
 * proved the database's write lock free ({@link LabBench#pause}). A is resumed as soon as B's attempt
 * started — while B is still running — so that with the fence switched off A's stale write is the one
 * that lands, and the checker sees it.
 */
final class GcPause implements Scenario {
    static final Duration JOB = Duration.ofMillis(2500);
    private static final ScenarioInfo INFO = Scenario.info(
            "gc-pause",
            "A paused holder cannot commit late",
            "Worker A hosts the actor and runs a job. The lab freezes A with SIGSTOP, like a long GC pause or a"
                    + " suspended laptop, past its TTL. Worker B takes the actor over with a greater token and re-runs"
                    + " the job. When A wakes it still believes it may write its result: the engine refuses the write"
                    + " and journals it as REJECTED.",
            true,
            "Start worker A; it hosts the actor",
            "Start worker B; it waits, because A's lease is live",
            "Give the actor a 2.5 s job; A starts it",
            "Freeze A with SIGSTOP while its job runs (no heartbeat, no writes)",
            "A's lease expires; B takes the actor over with a greater token",
            "B re-runs the job; A's expired attempt is superseded",
            "Wake A with SIGCONT; it tries to write its late result",
            "B's run ends; it writes its result");

    private WorkerProcess a;
    private WorkerProcess b;
    private Attempt first;

    /** Decision 0117: starting A and B and giving the job may wait; freezing A must happen while its job runs and waking A while B's re-run runs, and the takeover and the re-run follow on A's real TTL: those run on. B's result may wait (A's late write was already answered). */
    @Override
    public boolean holdsBefore(int index) {
        return index <= 2 || index == 7;
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
        b = Moves.startedWorker(run, "B", null);
        String waiting = run.awaitLine(b, l -> l.startsWith("waiting"), "worker B to wait");
        run.done(Moves.who("B", b) + " waits: " + waiting.substring(waiting.indexOf(run.actor())));
        run.begin(2);
        first = Moves.jobStartedBy(run, "A", a, JOB);
        run.begin(3);
        run.bench().pause(a);
        run.done(
                WorkerProcess.hasStopSignals()
                        ? Moves.who("A", a)
                                + " is stopped (SIGSTOP) in the middle of its job; the lab proved the database's"
                                + " write lock free"
                        : "this OS has no SIGSTOP: A was paused cooperatively (no work, no heartbeats)");
        run.begin(4);
        FenceEvent takeover = Moves.takeoverBy(run, "B", b);
        run.done(Moves.who("B", b) + " took " + run.actor() + " over with token " + takeover.token()
                + " > A's lease token " + first.leaseToken() + " (journal #" + takeover.seq() + ")");
        run.begin(5);
        Attempt second = Moves.rerunBy(run, "B", b, first.assignmentId());
        run.done("A's attempt " + first.id() + " (token " + first.token() + ") is superseded; B runs attempt "
                + second.id() + " with token " + second.token());
        run.begin(6);
        run.bench().resume(a);
        Moves.lateWrite(run, "A", a, first, takeover.seq(), takenOver(takeover)).tell(run);
        run.begin(7);
        Moves.rightfulResult(run, "B", b, first.assignmentId(), first, "A").tell(run);
    }

    /** "B had taken the actor over with token 3 at journal #5". */
    static String takenOver(FenceEvent takeover) {
        return "B had taken the actor over with token " + takeover.token() + " at journal #" + takeover.seq();
    }

    @Override
    public List<Check> check(LabRun run) {
        return RunFacts.read(run, first.assignmentId())
                .takeoverChecks(
                        "Worker B took the actor over from the frozen worker A with a greater token",
                        a.processIdentity(),
                        b.processIdentity(),
                        "after it woke");
    }

    @Override
    public String heldHeadline() {
        return "the fence held: frozen worker A's late write was refused and journalled; only worker B's result is"
                + " canonical";
    }
}
