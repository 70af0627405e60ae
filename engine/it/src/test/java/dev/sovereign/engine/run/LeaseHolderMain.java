package dev.sovereign.engine.run;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.base.EngineConfig;
import dev.sovereign.engine.lease.Lease;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;

/**
 * Child JVM: hosts an actor and holds its lease (heartbeating) until killed.
 * Args: database, actor, ttlMs. Prints {@code HELD <token> <process>} once the lease is held, and
 * {@code LOST <kind> <resource> <token>} when a heartbeat renewal is refused.
 */
public final class LeaseHolderMain {
    private LeaseHolderMain() {}

    public static void main(String[] args) throws Exception {
        long ttl = Long.parseLong(args[2]);
        Engine engine = Engine.open(EngineConfig.forDatabase(Path.of(args[0]))
                .heartbeat(true)
                .heartbeatInterval(Duration.ofMillis(Math.max(50, ttl / 5)))
                .processKind("test-holder")
                .build());
        engine.addGrantLossListener(lost -> {
            System.out.println("LOST " + lost.kind() + " " + lost.resourceId() + " " + lost.token());
            System.out.flush();
        });
        Lease lease = engine.leases().acquire(args[1], Duration.ofMillis(ttl));
        System.out.println("HELD " + lease.token() + " " + engine.processIdentity());
        System.out.flush();
        new CountDownLatch(1).await();
    }
}
