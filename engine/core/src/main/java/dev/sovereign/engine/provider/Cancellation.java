package dev.sovereign.engine.provider;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A one-way signal that a job must stop: set by the engine when the lease or attempt the job runs
 * under is lost (or the run is interrupted). Once cancelled it stays cancelled.
 *
 * <p>Providers honour it by polling {@link #isCancelled()}, waiting with {@link #await(Duration)}
 * instead of sleeping, or registering a callback with {@link #onCancel(Runnable)} (for example to
 * destroy a subprocess). The provider's thread is also interrupted. Callbacks run on the cancelling
 * thread (often the heartbeat thread) and must not block. Thread-safe.
 */
public final class Cancellation {
    private final CountDownLatch latch = new CountDownLatch(1);
    private final List<Runnable> callbacks = new CopyOnWriteArrayList<>();
    private volatile String reason;

    /** Cancels (first call wins) and runs every registered callback once. */
    public void cancel(String why) {
        synchronized (this) {
            if (reason != null) {
                return;
            }
            reason = why == null ? "cancelled" : why;
        }
        latch.countDown();
        for (Runnable r : callbacks) {
            if (callbacks.remove(r)) { // removal claims the callback: each one runs exactly once
                runQuietly(r);
            }
        }
    }

    public boolean isCancelled() {
        return reason != null;
    }

    /** Why the job was cancelled, once it was. */
    public Optional<String> reason() {
        return Optional.ofNullable(reason);
    }

    /**
     * Waits up to {@code timeout} for cancellation; returns true when cancelled. Use this instead of
     * {@code Thread.sleep} so a cancelled job stops at once.
     */
    public boolean await(Duration timeout) throws InterruptedException {
        return latch.await(timeout.toNanos(), TimeUnit.NANOSECONDS);
    }

    /** Runs {@code callback} when cancelled; at once if already cancelled. */
    public void onCancel(Runnable callback) {
        callbacks.add(callback);
        if (isCancelled() && callbacks.remove(callback)) {
            runQuietly(callback);
        }
    }

    private static void runQuietly(Runnable r) {
        try {
            r.run();
        } catch (RuntimeException e) {
            Thread t = Thread.currentThread();
            t.getUncaughtExceptionHandler().uncaughtException(t, e);
        }
    }
}
