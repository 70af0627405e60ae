package dev.sovereign.engine.lab;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.lease.Lease;
import dev.sovereign.engine.mailbox.MessageState;
import dev.sovereign.engine.run.AssignmentState;
import dev.sovereign.engine.testing.TempDatabase;
import java.time.Clock;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The `sovereign worker` command as real OS processes, driven the way the lab drives them. */
class WorkerProcessTest {
    private static final Duration WAIT = Duration.ofSeconds(30);

    @RegisterExtension
    final TempDatabase temp = new TempDatabase();

    @Test
    void aWorkerDoesItsWorkReleasesOnSigtermAndTheWaitingWorkerTakesOver() throws Exception {
        Engine ops = temp.open(Clock.systemUTC());
        ops.actors().add("operator");
        var message = ops.mailbox().send("ops", "operator", "hello", null, 3);
        var job = ops.runs().assign("operator", "scripted:ms=100,outcome=completed");

        try (WorkerProcess a = WorkerProcess.start(
                        new WorkerProcess.Spec(temp.file(), "operator", Duration.ofSeconds(2), null, "worker A"));
                WorkerProcess b = WorkerProcess.start(
                        new WorkerProcess.Spec(temp.file(), "operator", Duration.ofSeconds(2), null, "worker B"))) {
            // exactly one of them hosts; start order decides which, so name them by role
            WorkerProcess holder = firstToHost(a, b);
            WorkerProcess waiter = holder == a ? b : a;
            assertThat(waiter.lines()).noneMatch(l -> l.startsWith("hosting"));
            assertThat(holder.awaitLine(l -> l.startsWith("completed"), WAIT)).contains(message.id());
            assertThat(holder.awaitLine(l -> l.startsWith("ran"), WAIT))
                    .contains(job.id())
                    .contains("COMPLETED");
            assertThat(waiter.awaitLine(l -> l.startsWith("waiting"), WAIT)).isNotNull();
            assertThat(holder.processIdentity()).startsWith("proc_");

            assertThat(ops.mailbox().find(message.id()))
                    .get()
                    .satisfies(m -> assertThat(m.state()).isEqualTo(MessageState.DONE));
            assertThat(ops.runs().get(job.id()))
                    .get()
                    .satisfies(j -> assertThat(j.state()).isEqualTo(AssignmentState.COMPLETED));

            assertThat(holder.terminate(WAIT)).isTrue();
            assertThat(holder.exitValue()).isZero();
            assertThat(holder.lines()).anyMatch(l -> l.startsWith("released"));
            assertThat(waiter.awaitLine(l -> l.startsWith("hosting"), WAIT)).isNotNull();
            Lease now = ops.leases().current("operator").orElseThrow();
            assertThat(now.process()).isEqualTo(waiter.processIdentity());
        }
    }

    /** Whichever of the two prints its {@code hosting} line first (either may: they start together). */
    private static WorkerProcess firstToHost(WorkerProcess a, WorkerProcess b) throws InterruptedException {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (System.nanoTime() < deadline) {
            for (WorkerProcess w : new WorkerProcess[] {a, b}) {
                if (w.awaitLine(l -> l.startsWith("hosting"), Duration.ofMillis(20)) != null) {
                    return w;
                }
            }
        }
        throw new AssertionError("neither worker hosted the actor within " + WAIT);
    }

    @Test
    void aPausedWorkerIsTakenOverAndLearnsItLostTheLeaseWhenResumed() throws Exception {
        Engine ops = temp.open(Clock.systemUTC());
        ops.actors().add("operator");
        try (WorkerProcess holder = WorkerProcess.start(
                new WorkerProcess.Spec(temp.file(), "operator", Duration.ofMillis(900), null, "holder"))) {
            String hosting = holder.awaitLine(l -> l.startsWith("hosting"), WAIT);
            assertThat(hosting).isNotNull();
            holder.pause();
            try (WorkerProcess other = WorkerProcess.start(
                    new WorkerProcess.Spec(temp.file(), "operator", Duration.ofSeconds(5), null, "other"))) {
                assertThat(other.awaitLine(l -> l.startsWith("hosting"), WAIT)).isNotNull();
                holder.resume();
                assertThat(holder.awaitLine(l -> l.startsWith("lost"), WAIT)).isNotNull();
                assertThat(ops.leases().current("operator"))
                        .get()
                        .satisfies(l -> assertThat(l.process()).isEqualTo(other.processIdentity()));
            }
        }
    }

    @Test
    void aSkewedWorkerSaysSoAndClosingTheControlChannelStopsIt() throws Exception {
        temp.open(Clock.systemUTC()).actors().add("operator");
        WorkerProcess w = WorkerProcess.start(new WorkerProcess.Spec(
                temp.file(), "operator", Duration.ofSeconds(2), Duration.ofSeconds(30), "skewed"));
        try {
            assertThat(w.awaitLine(l -> l.startsWith("started"), WAIT)).contains("clock offset 30000 ms");
            w.skew(Duration.ofSeconds(-5));
            assertThat(w.awaitLine(l -> l.startsWith("skewed"), WAIT)).contains("-5000 ms");
        } finally {
            w.close();
        }
        assertThat(w.isAlive()).isFalse();
    }
}
