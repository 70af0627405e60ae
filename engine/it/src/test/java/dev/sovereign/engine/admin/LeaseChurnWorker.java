package dev.sovereign.engine.admin;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.base.EngineConfig;
import dev.sovereign.engine.base.Refusal;
import dev.sovereign.engine.lease.Lease;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * A child process that churns actor leases on a database through its own engine (real clock, short
 * TTLs, so leases expire and are taken over by the others) until its stop-file appears: acquires,
 * renewals (also with stale tokens), heartbeats, releases (also stale). Worker 0 also adds an actor
 * every 25 operations, 15 at most. Prints {@code READY} once its engine is open and {@code DONE <ops>} at the end.
 *
 * <p>Arguments: database, stop-file, seed, worker index, number of actors created by the parent.
 */
public final class LeaseChurnWorker {
    private static final int MAX_ACTORS_ADDED = 15;

    private LeaseChurnWorker() {}

    public static void main(String[] args) throws Exception {
        Path database = Path.of(args[0]);
        Path stop = Path.of(args[1]);
        Random random = new Random(Long.parseLong(args[2]));
        int worker = Integer.parseInt(args[3]);
        List<String> actors = new ArrayList<>();
        for (int i = 0; i < Integer.parseInt(args[4]); i++) {
            actors.add("actor-" + i);
        }
        List<Long> oldTokens = new ArrayList<>();
        long ops = 0;
        int added = 0;
        try (Engine e = Engine.open(EngineConfig.forDatabase(database)
                .heartbeat(false)
                .busyBound(Duration.ofSeconds(60))
                .processLabel("churn " + worker)
                .build())) {
            System.out.println("READY");
            System.out.flush();
            long deadline = System.nanoTime() + 300_000_000_000L;
            while (!Files.exists(stop) && System.nanoTime() < deadline) {
                ops++;
                String actor = actors.get(random.nextInt(actors.size()));
                List<Lease> held = e.leases().held();
                Lease mine = held.isEmpty() ? null : held.get(random.nextInt(held.size()));
                long old = oldTokens.isEmpty() ? 1 : oldTokens.get(random.nextInt(oldTokens.size()));
                Duration ttl = Duration.ofMillis(30 + random.nextInt(300));
                int kind = random.nextInt(100);
                try {
                    if (worker == 0 && ops % 25 == 0 && added < MAX_ACTORS_ADDED) {
                        String id = "actor-w0-" + added++;
                        e.actors().add(id);
                        actors.add(id);
                    } else if (kind < 35) {
                        oldTokens.add(e.leases().acquire(actor, ttl).token());
                    } else if (kind < 55 && mine != null) {
                        e.leases().renew(mine.actor(), mine.token(), ttl);
                    } else if (kind < 60) {
                        e.leases().renew(actor, old);
                    } else if (kind < 72) {
                        e.heartbeatNow();
                    } else if (kind < 87 && mine != null) {
                        e.leases().release(mine.actor(), mine.token());
                    } else if (kind < 90) {
                        e.leases().release(actor, old);
                    } else {
                        oldTokens.add(e.leases().acquireOrRenew(actor, ttl).token());
                    }
                } catch (Refusal expected) {
                    // held by another, stale token: part of the churn
                }
            }
        }
        System.out.println("DONE " + ops);
        System.out.flush();
    }
}
