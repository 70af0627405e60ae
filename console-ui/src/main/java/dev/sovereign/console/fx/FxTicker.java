package dev.sovereign.console.fx;

import java.time.Clock;
import java.util.function.LongConsumer;

/**
 * Drives the countdowns: ten times a second, hands the console clock's reading to a consumer (the
 * ledger's {@code tick}) on the FX thread. Nothing is re-read from the database for this.
 *
 * <p>Not an {@code AnimationTimer}: a running one makes JavaFX run a pulse 60 times a second, with its
 * CSS and layout checks and a render, even when nothing changed — most of an idle console's CPU (issue 17,
 * item 15). A daemon timer thread posts the tick instead, so a pulse runs only when a tick changed
 * something on screen.
 */
public final class FxTicker {
    private static final long EVERY_MS = 100;

    private final Clock clock;
    private final LongConsumer tick;
    private java.util.concurrent.ScheduledExecutorService timer;
    /** One tick at a time in the FX queue: a busy FX thread gets no backlog of ticks. */
    private final java.util.concurrent.atomic.AtomicBoolean queued = new java.util.concurrent.atomic.AtomicBoolean();

    public FxTicker(Clock clock, LongConsumer tick) {
        this.clock = clock;
        this.tick = tick;
    }

    public void start() {
        if (timer != null) {
            return;
        }
        timer = java.util.concurrent.Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "console-ticker");
            t.setDaemon(true);
            return t;
        });
        timer.scheduleAtFixedRate(() -> {
            if (queued.compareAndSet(false, true)) {
                javafx.application.Platform.runLater(() -> {
                    queued.set(false);
                    tick.accept(clock.millis());
                });
            }
        }, 0, EVERY_MS, java.util.concurrent.TimeUnit.MILLISECONDS);
    }

    public void stop() {
        if (timer != null) {
            timer.shutdownNow();
            timer = null;
        }
    }
}
