package dev.sovereign.console.testing;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.base.Refusal;
import dev.sovereign.engine.lease.Lease;
import dev.sovereign.engine.mailbox.Claim;
import dev.sovereign.engine.mailbox.Message;
import dev.sovereign.engine.run.Assignment;
import java.time.Duration;
import java.util.List;

/**
 * A realistic ledger made only through the engines' public APIs (leases, runs, mailbox, supervisor)
 * on the fixture's file: five actors, four workers, a takeover after a paused holder, its refused
 * late renewal and late terminal write, a contested acquire, a release, renewals from heartbeats;
 * runs that completed, failed, are running and wait; a run recovered by the supervisor as
 * {@code worker_lost}; messages new, claimed, done and dead.
 *
 * <p>The worker-lost run is real: worker A runs it with a provider that waits on a gate, stops
 * beating (as if paused), loses its lease to worker B, and when its provider finally returns its
 * terminal write is refused; the supervisor's tick then recovers the run.
 */
public final class Scenario {
    public final Engine workerA;
    public final Engine workerB;
    public final Engine workerC;
    public final Engine workerD;
    public Lease operatorFirst;
    public Lease operatorSecond;
    /** Worker D's planner lease: it expires and nobody takes it over. */
    public Lease plannerLease;
    /** Recovered by the supervisor as failed / worker_lost. */
    public Assignment lostRun;
    /** Completed by worker C. */
    public Assignment completedRun;
    /** Failed by its provider (a known outcome, not worker_lost). */
    public Assignment failedRun;
    /** Still RUNNING under worker B (its provider waits on a gate until the fixture closes). */
    public Assignment runningRun;
    /** CREATED, never run. */
    public Assignment waitingRun;

    public Message newMessage;
    public Message claimedMessage;
    public Message doneMessage;
    public Message deadMessage;
    public long claimToken;

    private final ConsoleFixture fx;

    private Scenario(ConsoleFixture fx) {
        this.fx = fx;
        workerA = fx.engine("worker 7101");
        workerB = fx.engine("worker 7102");
        workerC = fx.engine("worker 7103");
        workerD = fx.engine("worker 7104");
    }

    /** Builds the scenario; the clock ends 100 s after it started. */
    public static Scenario build(ConsoleFixture fx) {
        Scenario s = new Scenario(fx);
        s.run();
        return s;
    }

    private void step(int seconds, List<Engine> beating) {
        for (int i = 0; i < seconds; i++) {
            fx.clock.advance(Duration.ofSeconds(1));
            beating.forEach(Engine::heartbeatNow);
        }
    }

    private void run() {
        for (String actor : List.of("operator", "reviewer", "planner", "indexer", "archivist")) {
            workerA.actors().add(actor);
        }
        Engine cli = fx.engine("sovereign cli");
        cli.close();
        operatorFirst = workerA.leases().acquire("operator", Duration.ofSeconds(10));
        workerC.leases().acquire("reviewer", Duration.ofSeconds(15));
        completedRun = workerC.runs()
                .runAssignment(
                        workerC.runs()
                                .assign("reviewer", "scripted:ms=0,outcome=completed")
                                .id(),
                        Duration.ofSeconds(15))
                .assignment();
        step(10, List.of(workerA, workerC));
        Lease indexer = workerC.leases().acquire("indexer", Duration.ofSeconds(10));
        // worker A starts a run that will outlive it
        lostRun = fx.gatedRun(workerA, "operator", Duration.ofSeconds(10), "lost");
        step(10, List.of(workerA, workerC));
        plannerLease = workerD.leases().acquire("planner", Duration.ofSeconds(8));
        failedRun = workerD.runs()
                .runAssignment(
                        workerD.runs()
                                .assign("planner", "scripted:ms=0,outcome=failed")
                                .id(),
                        Duration.ofSeconds(8))
                .assignment();
        step(10, List.of(workerA, workerC, workerD));
        workerC.leases().release("indexer", indexer.token());
        step(10, List.of(workerA, workerC, workerD));
        // worker A pauses (no more heartbeats): its operator lease runs out and worker B takes over.
        step(12, List.of(workerC, workerD));
        operatorSecond = workerB.leases().acquire("operator", Duration.ofSeconds(10));
        step(1, List.of(workerB, workerC, workerD));
        // worker A wakes up and presents its old token: refused and journalled.
        try {
            workerA.leases().renew("operator", operatorFirst.token());
        } catch (Refusal expected) {
            // the point of the scenario
        }
        // ... and its provider returns: the terminal write is refused too (the lease moved).
        fx.openGate("lost");
        step(2, List.of(workerB, workerC, workerD));
        try {
            workerA.leases().acquire("operator", Duration.ofSeconds(10));
        } catch (Refusal expected) {
            // held by worker B
        }
        step(7, List.of(workerB, workerC, workerD));
        // worker D stops beating: planner expires and nobody takes it over.
        step(8, List.of(workerB, workerC));
        workerB.leases().acquire("indexer", Duration.ofSeconds(12));
        runsAndMailbox();
        step(20, List.of(workerB, workerC));
        Engine supervisor = fx.engine("supervisor 7110");
        supervisor.supervisor().tick(); // recovers worker A's run as failed / worker_lost
        supervisor.close();
        lostRun = workerB.runs().get(lostRun.id()).orElseThrow();
        step(10, List.of(workerB, workerC));
    }

    private void runsAndMailbox() {
        runningRun = fx.gatedRun(workerB, "operator", Duration.ofSeconds(10), "running");
        waitingRun = workerB.runs().assign("planner", "command:./nightly.sh");

        newMessage = workerC.mailbox().send("reviewer", "operator", "Deploy checklist", null);
        claimedMessage = workerB.mailbox().send("planner", "operator", "Rotate the keys", null);
        Claim claim = workerB.mailbox().claim(claimedMessage.id(), "operator", Duration.ofSeconds(30));
        claimedMessage = workerB.mailbox().find(claimedMessage.id()).orElseThrow();
        doneMessage = workerC.mailbox().send("operator", "reviewer", "Review PR 42", null);
        Claim review = workerC.mailbox().claim(doneMessage.id(), "reviewer", Duration.ofSeconds(30));
        doneMessage = workerC.mailbox().complete(doneMessage.id(), review.token());
        deadMessage = workerC.mailbox().send("operator", "archivist", "Archive March", null, 0);
        Lease archivist = workerC.leases().acquire("archivist", Duration.ofSeconds(10));
        Claim archive = workerC.mailbox().claim(deadMessage.id(), "archivist", Duration.ofSeconds(30));
        deadMessage = workerC.mailbox().deadLetter(deadMessage.id(), archive.token());
        workerC.leases().release("archivist", archivist.token());
        claimToken = claim.token();
    }
}
