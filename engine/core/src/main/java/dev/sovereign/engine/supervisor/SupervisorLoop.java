package dev.sovereign.engine.supervisor;

import dev.sovereign.engine.base.EngineConfig;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * Runs {@link Supervisor#tick()} now and then every {@code interval} until {@link #stop()}.
 *
 * <p>Lifecycle: {@code NEW → RUNNING (run() called) → STOPPING (stop() called) → STOPPED (run()
 * returned)}. {@code stop()} may be called from any thread at any time, also before {@code run()}
 * (which then returns at once), and more than once. A tick in progress is finished, never
 * abandoned halfway; the wait between ticks ends at once. A tick that throws is handed to
 * {@code onFailure} and the loop goes on. The loop never forks, daemonises or installs anything;
 * wiring SIGINT/SIGTERM to {@code stop()} (a shutdown hook) is the host's job. Thread-safe.
 */
public final class SupervisorLoop {
    private final Supervisor supervisor;
    private final Duration interval;
    private final Consumer<TickReport> onTick;
    private final Consumer<RuntimeException> onFailure;
    private final CountDownLatch stopRequested = new CountDownLatch(1);
    private final CountDownLatch stopped = new CountDownLatch(1);
    private volatile boolean started;

    public SupervisorLoop(
            Supervisor supervisor,
            Duration interval,
            Consumer<TickReport> onTick,
            Consumer<RuntimeException> onFailure) {
        this.supervisor = Objects.requireNonNull(supervisor, "supervisor");
        if (interval == null
                || interval.isNegative()
                || interval.isZero()
                || interval.compareTo(EngineConfig.LONGEST_DURATION) > 0) {
            throw new IllegalArgumentException(
                    "interval must be a positive duration of at most 365 days, got " + interval);
        }
        this.interval = interval;
        this.onTick = Objects.requireNonNull(onTick, "onTick");
        this.onFailure = Objects.requireNonNull(onFailure, "onFailure");
    }

    /** Ticks until stopped; returns normally after the last tick. May be called once. */
    public void run() {
        synchronized (this) {
            if (started) {
                throw new IllegalStateException("a supervisor loop runs once");
            }
            started = true;
        }
        try {
            while (stopRequested.getCount() > 0) {
                try {
                    onTick.accept(supervisor.tick());
                } catch (RuntimeException e) {
                    onFailure.accept(e);
                }
                if (stopRequested.await(interval.toNanos(), TimeUnit.NANOSECONDS)) {
                    break;
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            stopped.countDown();
        }
    }

    /** Asks the loop to stop after the tick in progress; returns at once. */
    public void stop() {
        stopRequested.countDown();
    }

    /** After {@link #stop()}: waits until {@link #run()} has returned (true) or the timeout passed. */
    public boolean awaitStopped(Duration timeout) throws InterruptedException {
        if (!started) {
            return true;
        }
        return stopped.await(timeout.toNanos(), TimeUnit.NANOSECONDS);
    }

    public boolean isStopRequested() {
        return stopRequested.getCount() == 0;
    }
}
