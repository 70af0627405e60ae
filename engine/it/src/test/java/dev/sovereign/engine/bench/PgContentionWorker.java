package dev.sovereign.engine.bench;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.base.Refusal;
import dev.sovereign.engine.base.RefusalCategory;
import dev.sovereign.engine.base.StorageException;
import dev.sovereign.engine.lease.Lease;
import java.io.BufferedOutputStream;
import java.io.DataOutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * One contending process on PostgreSQL (a child JVM started by {@link PgContentionDriver}): its own engine, so
 * its own connection and process identity, otherwise the loop of {@link ContentionWorker} — want the lease,
 * wait until granted, release at once, again. Waiting for a lease another process holds polls the lease row
 * every {@code poll-micros} (a read is a round trip to the server here, not a local page read, so the poll is
 * coarser than SQLite's); expiry is judged on the server's clock by the engine, the poll only decides when to
 * try.
 *
 * <p>Arguments: {@code url go-file actor warmup-ms duration-ms result-file poll-micros data-dir}; the result
 * file has the layout of {@link ContentionWorker}'s.
 */
public final class PgContentionWorker {
    private PgContentionWorker() {}

    public static void main(String[] args) throws Exception {
        String url = args[0];
        Path go = Path.of(args[1]);
        String actor = args[2];
        long warmupNanos = TimeUnit.MILLISECONDS.toNanos(Long.parseLong(args[3]));
        long durationNanos = TimeUnit.MILLISECONDS.toNanos(Long.parseLong(args[4]));
        Path out = Path.of(args[5]);
        long pollNanos = TimeUnit.MICROSECONDS.toNanos(Long.parseLong(args[6]));
        Path dataDir = Path.of(args[7]);
        long[] waits = new long[1 << 16];
        int grants = 0;
        long refusals = 0;
        long storageErrors = 0;
        try (Engine engine = Engine.open(PgBench.engineConfig(url, dataDir)
                .processKind("bench-contender")
                .build())) {
            System.out.println("READY " + engine.processIdentity());
            System.out.flush();
            long startDeadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(300);
            while (!Files.exists(go)) {
                if (System.nanoTime() > startDeadline) {
                    throw new IllegalStateException("no go signal");
                }
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
            }
            String me = engine.processIdentity();
            long measureFrom = System.nanoTime() + warmupNanos;
            long end = measureFrom + durationNanos;
            boolean measuring = warmupNanos == 0;
            while (System.nanoTime() < end) {
                if (!measuring && System.nanoTime() >= measureFrom) {
                    measuring = true;
                    grants = 0;
                    refusals = 0;
                    storageErrors = 0;
                }
                long wanted = System.nanoTime();
                Lease lease = null;
                while (lease == null && System.nanoTime() < end) {
                    Optional<Lease> current = engine.leases().current(actor);
                    if (current.isPresent() && !current.get().process().equals(me)) {
                        LockSupport.parkNanos(pollNanos);
                        continue;
                    }
                    try {
                        lease = engine.leases().acquire(actor, Duration.ofSeconds(30));
                    } catch (Refusal r) {
                        if (r.category() != RefusalCategory.ACTOR_LEASE_HELD) {
                            throw r;
                        }
                        refusals++;
                    } catch (StorageException e) {
                        storageErrors++;
                    }
                }
                if (lease == null) {
                    break;
                }
                long waited = System.nanoTime() - wanted;
                if (grants == waits.length) {
                    waits = Arrays.copyOf(waits, waits.length * 2);
                }
                waits[grants++] = waited;
                while (true) {
                    try {
                        engine.leases().release(actor, lease.token());
                        break;
                    } catch (StorageException e) {
                        storageErrors++;
                    }
                }
            }
        }
        try (DataOutputStream o = new DataOutputStream(new BufferedOutputStream(Files.newOutputStream(out)))) {
            o.writeInt(grants);
            o.writeLong(refusals);
            o.writeLong(storageErrors);
            for (int i = 0; i < grants; i++) {
                o.writeLong(waits[i]);
            }
        }
        System.out.println("DONE " + grants);
    }
}
