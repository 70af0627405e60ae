package dev.sovereign.console.fx;

import java.time.Clock;
import java.util.function.LongConsumer;
import javafx.animation.AnimationTimer;

/**
 * Drives the countdowns: on the FX thread, about ten times a second, hands the console clock's
 * reading to a consumer (the ledger's {@code tick}). Nothing is re-read from the database for this.
 */
public final class FxTicker {
    private static final long EVERY_NANOS = 100_000_000L;

    private final AnimationTimer timer;

    public FxTicker(Clock clock, LongConsumer tick) {
        this.timer = new AnimationTimer() {
            private long last;

            @Override
            public void handle(long nowNanos) {
                if (nowNanos - last >= EVERY_NANOS) {
                    last = nowNanos;
                    tick.accept(clock.millis());
                }
            }
        };
    }

    public void start() {
        timer.start();
    }

    public void stop() {
        timer.stop();
    }
}
