package dev.sovereign.engine.worker;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.base.Refusal;
import dev.sovereign.engine.mailbox.Message;
import dev.sovereign.engine.mailbox.MessageState;
import dev.sovereign.engine.run.Assignment;
import dev.sovereign.engine.run.AssignmentState;
import dev.sovereign.engine.testing.Contract;
import dev.sovereign.engine.testing.TempDatabase;
import dev.sovereign.engine.testing.TestBackend;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Two workers, two engines (two processes for fencing), one actor, real heartbeats. */
@Contract
abstract class WorkerContract {
    /** The backend this class's ledgers are on: each backend's module has its subclass (decision 0015). */
    protected abstract TestBackend backend();

    @RegisterExtension
    final TempDatabase temp = new TempDatabase(this::backend);

    private Engine engine() {
        return temp.open(temp.config(Clock.systemUTC())
                .heartbeat(true)
                .heartbeatInterval(Duration.ofMillis(100))
                .build());
    }

    @Test
    void aWorkerHostsItsActorDoesItsWorkAndOnStopReleasesSoTheWaitingWorkerTakesOver() throws Exception {
        Engine first = engine();
        Engine second = engine();
        first.actors().add("operator");
        Message message = first.mailbox().send("ops", "operator", "hello", null, 3);
        Assignment job = first.runs().assign("operator", "scripted:ms=50,outcome=completed");

        List<WorkerEvent> a = new CopyOnWriteArrayList<>();
        List<WorkerEvent> b = new CopyOnWriteArrayList<>();
        Worker wa = new Worker(first, "operator", Duration.ofSeconds(1), Duration.ofMillis(20), a::add);
        Thread ta = new Thread(wa, "worker-a");
        ta.start();
        await(() -> has(a, "completed") && has(a, "ran"));

        Worker wb = new Worker(second, "operator", Duration.ofSeconds(1), Duration.ofMillis(20), b::add);
        Thread tb = new Thread(wb, "worker-b");
        tb.start();
        await(() -> has(b, "waiting"));

        assertThat(first.mailbox().find(message.id()))
                .get()
                .extracting(Message::state)
                .isEqualTo(MessageState.DONE);
        assertThat(first.runs().get(job.id()))
                .get()
                .extracting(Assignment::state)
                .isEqualTo(AssignmentState.COMPLETED);
        long firstToken = a.stream()
                .filter(e -> e.kind().equals("hosting"))
                .findFirst()
                .orElseThrow()
                .token();

        wa.stop();
        ta.join(10_000);
        assertThat(ta.isAlive()).isFalse();
        assertThat(has(a, "released")).isTrue();

        await(() -> has(b, "hosting"));
        long secondToken = b.stream()
                .filter(e -> e.kind().equals("hosting"))
                .findFirst()
                .orElseThrow()
                .token();
        assertThat(secondToken).isGreaterThan(firstToken);
        // it waited for the release instead of racing: no refusal was journalled for the actor
        assertThat(second.journal().rejections(10)).isEmpty();
        wb.stop();
        tb.join(10_000);
    }

    @Test
    void aWorkerWhoseLeaseIsTakenOverStopsWorkingAndWaits() throws Exception {
        Engine first = engine();
        first.actors().add("operator");
        List<WorkerEvent> a = new CopyOnWriteArrayList<>();
        Worker wa = new Worker(first, "operator", Duration.ofMillis(600), Duration.ofMillis(20), a::add);
        Thread ta = new Thread(wa, "worker-a");
        ta.start();
        await(() -> has(a, "hosting"));

        // a cooperative pause stops the heartbeat; the lease expires and another process takes it
        wa.pause();
        Engine thief = engine();
        await(() -> {
            try {
                thief.leases().acquire("operator", Duration.ofSeconds(30));
                return true;
            } catch (Refusal r) {
                return false;
            }
        });
        wa.resume();
        await(() -> has(a, "lost"));
        await(() -> has(a, "waiting"));
        wa.stop();
        ta.join(10_000);
        assertThat(has(a, "released"))
                .as("it must not release a lease it no longer holds")
                .isFalse();
        assertThat(thief.leases().current("operator"))
                .get()
                .satisfies(l -> assertThat(l.process()).isEqualTo(thief.processIdentity()));
    }

    private static boolean has(List<WorkerEvent> events, String kind) {
        return events.stream().anyMatch(e -> e.kind().equals(kind));
    }

    private static void await(BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("condition not reached in 20 s");
            }
            Thread.sleep(10);
        }
    }
}
