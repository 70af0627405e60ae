package dev.sovereign.engine.lease;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.base.EngineConfig;
import dev.sovereign.engine.base.Refusal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

/**
 * A child process for {@link LeaseRaceAcrossProcessesTest}: opens its own engine (its own process
 * identity), says READY, waits for the go-file, then tries to acquire each actor once and prints one
 * line per attempt: {@code WON actor token} or {@code REFUSED actor category}; holds its leases
 * until the end-file appears.
 */
public final class LeaseRacer {
    private LeaseRacer() {}

    public static void main(String[] args) throws Exception {
        Path db = Path.of(args[0]);
        Path go = Path.of(args[1]);
        int actors = Integer.parseInt(args[2]);
        try (Engine engine = Engine.open(EngineConfig.forDatabase(db)
                .heartbeat(false)
                .busyBound(Duration.ofSeconds(30))
                .processKind("test-racer")
                .build())) {
            System.out.println("READY " + engine.processIdentity());
            System.out.flush();
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (!Files.exists(go)) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("no go signal");
                }
                Thread.onSpinWait();
            }
            List<Integer> order = new ArrayList<>();
            for (int i = 0; i < actors; i++) {
                order.add(i);
            }
            // Each racer walks the actors in its own random order, so wins spread across processes.
            Collections.shuffle(order);
            for (int i : order) {
                String actor = "actor-" + i;
                try {
                    Lease l = engine.leases().acquire(actor, Duration.ofMinutes(5));
                    System.out.println("WON " + actor + " " + l.token());
                } catch (Refusal r) {
                    System.out.println("REFUSED " + actor + " " + r.category().code());
                }
                // A little think time, as a real worker has, so the racers interleave instead of one
                // process taking SQLite's write lock back-to-back for every actor.
                Thread.sleep(ThreadLocalRandom.current().nextInt(0, 6));
            }
            // Hold the leases until every racer is done: closing releases them, and a later racer
            // would then rightly win a released actor.
            System.out.println("DONE");
            System.out.flush();
            Path end = Path.of(args[1] + ".end");
            while (!Files.exists(end)) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("no end signal");
                }
                Thread.sleep(10);
            }
        }
    }
}
