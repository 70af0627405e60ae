package dev.sovereign.engine.testing;

import java.time.Duration;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/** Waits for a condition another thread or process brings about, up to a deadline (never a fixed sleep). */
public final class Poll {
    private Poll() {}

    public static void until(BooleanSupplier condition, Duration timeout, Supplier<String> waitingFor) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("gave up after " + timeout + " waiting for " + waitingFor.get());
            }
            LockSupport.parkNanos(Duration.ofMillis(10).toNanos());
        }
    }
}
