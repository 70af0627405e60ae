package dev.sovereign.engine.bench;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.base.Durability;
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
 * One contending process (a child JVM started by {@link ContentionDriver}): its own engine, so its own
 * process identity. After the go-file appears it loops until its deadline: want the lease, wait until
 * it is granted, release it at once, and go again — no think time, the harshest case.
 *
 * <p>Waiting for a lease another process holds is done the way a sensible worker does it: poll the
 * lease row with a read (reads never take the write lock in WAL mode) every {@value #POLL_MICROS} µs,
 * and try {@code acquire} only when the row is free or expired. A lost race is an
 * {@code actor_lease_held} refusal (journalled by the engine) and the worker goes back to polling.
 *
 * <p>Writes its figures to the result file: grants, refusals, storage errors, then every wait in
 * nanoseconds (from wanting the lease to holding it).
 *
 * <p>The first {@code warmup-ms} after the go signal are run but not recorded (JIT compilation of four
 * JVMs on two cores would otherwise dominate the first second).
 *
 * <p>Arguments: {@code db go-file actor warmup-ms duration-ms result-file FULL|NORMAL busy-setting}.
 */
public final class ContentionWorker {
    static final long POLL_MICROS = 100;

    private ContentionWorker() {}

    public static void main(String[] args) throws Exception {
        Path db = Path.of(args[0]);
        Path go = Path.of(args[1]);
        String actor = args[2];
        long warmupNanos = TimeUnit.MILLISECONDS.toNanos(Long.parseLong(args[3]));
        long durationNanos = TimeUnit.MILLISECONDS.toNanos(Long.parseLong(args[4]));
        Path out = Path.of(args[5]);
        Durability durability = Durability.valueOf(args[6]);
        BusySetting busy = BusySetting.parse(args[7]);
        long[] waits = new long[1 << 16];
        int grants = 0;
        long refusals = 0;
        long storageErrors = 0;
        try (Engine engine = Engine.open(busy.apply(BenchFiles.engineConfig(db, durability))
                .processKind("bench-contender")
                .build())) {
            System.out.println("READY " + engine.processIdentity());
            System.out.flush();
            long startDeadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
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
                    if (current.isPresent()
                            && !current.get().process().equals(me)
                            && current.get().expiresAt() > System.currentTimeMillis()) {
                        LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(POLL_MICROS));
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
