package dev.sovereign.console.fx;

import java.time.Clock;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.LongConsumer;
import java.util.function.LongPredicate;
import javafx.application.Platform;

/**
 * Drives the countdowns: hands the console clock's reading to a consumer (the ledger's {@code tick}) on the
 * FX thread, ten times a second while something on screen shows tenths of a second or moves visibly within
 * one ({@code wantsFineTicks}), once a second otherwise. Nothing is re-read from the database for this.
 *
 * <p>Once a second is enough for everything else the clock drives: a countdown of more than a minute shows
 * whole seconds, ages ("12 s ago") change once a second, and a long lease's bar moves by less than a pixel.
 * Ten ticks a second that change nothing still visit every clocked cell on screen and format its text: on
 * an idle console that was most of what remained of its CPU (issue 17, item 15; docs/benchmarks-console.md).
 *
 * <p>Not an {@code AnimationTimer}: a running one makes JavaFX run a pulse 60 times a second, with its
 * CSS and layout checks and a render, even when nothing changed — most of an idle console's CPU (issue 17,
 * item 15). A daemon timer thread posts the tick instead, so a pulse runs only when a tick changed
 * something on screen.
 */
public final class FxTicker {
    private static final long EVERY_MS = 100;
    /** The coarse rate: one tick a second when nothing wants the fine one. */
    static final long COARSE_MS = 1_000;

    private final Clock clock;
    private final LongConsumer tick;
    private final LongPredicate wantsFineTicks;
    /** The clock reading last handed out; FX-thread confined. */
    private long lastTick = Long.MIN_VALUE;

    private ScheduledExecutorService timer;
    /** One tick at a time in the FX queue: a busy FX thread gets no backlog of ticks. */
    private final AtomicBoolean queued = new AtomicBoolean();

    /** A ticker that always ticks ten times a second. */
    public FxTicker(Clock clock, LongConsumer tick) {
        this(clock, tick, now -> true);
    }

    /**
     * @param wantsFineTicks asked on the FX thread before each tick that would come less than a second
     *                       after the last one: whether anything on screen needs it now
     */
    public FxTicker(Clock clock, LongConsumer tick, LongPredicate wantsFineTicks) {
        this.clock = clock;
        this.tick = tick;
        this.wantsFineTicks = wantsFineTicks;
    }

    public void start() {
        if (timer != null) {
            return;
        }
        timer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "console-ticker");
            t.setDaemon(true);
            return t;
        });
        timer.scheduleAtFixedRate(
                () -> {
                    if (queued.compareAndSet(false, true)) {
                        Platform.runLater(() -> {
                            queued.set(false);
                            offer(clock.millis());
                        });
                    }
                },
                0,
                EVERY_MS,
                TimeUnit.MILLISECONDS);
    }

    /** Hands {@code now} to the consumer when it is due: a second after the last tick, or when fine ticks are wanted. */
    void offer(long now) {
        if (lastTick == Long.MIN_VALUE || now - lastTick >= COARSE_MS || now < lastTick || wantsFineTicks.test(now)) {
            lastTick = now;
            tick.accept(now);
        }
    }

    public void stop() {
        if (timer != null) {
            timer.shutdownNow();
            timer = null;
        }
    }
}
