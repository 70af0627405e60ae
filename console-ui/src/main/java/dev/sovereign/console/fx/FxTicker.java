package dev.sovereign.console.fx;

import java.time.Clock;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
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
    /** The clock reading last handed out; written on the FX thread, read by the timer's. */
    private volatile long lastTick = Long.MIN_VALUE;
    /** Whether the last offer found fine ticks wanted; written on the FX thread, read by the timer's. */
    private volatile boolean fine = true;
    /** Set by {@link #recheck()}: the next beat asks the FX thread again, whatever the rate. */
    private final AtomicBoolean recheck = new AtomicBoolean();

    /** The timer thread, or null when stopped. */
    private volatile Thread timer;
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

    public synchronized void start() {
        if (timer != null) {
            return;
        }
        Thread t = new Thread(this::beat, "console-ticker");
        t.setDaemon(true);
        timer = t;
        t.start();
    }

    /**
     * The timer: every 100 ms while fine ticks are wanted; otherwise it sleeps until the next tick is due (or a
     * {@link #recheck()} wakes it). At the coarse rate the FX thread, and this thread, wake once a second: ten wake-ups
     * a second that handed nothing out were a measurable part of an idle console's CPU (issue 31 item 21).
     */
    private void beat() {
        Thread me = Thread.currentThread();
        while (timer == me) {
            long now = clock.millis();
            if (due(now) && queued.compareAndSet(false, true)) {
                Platform.runLater(() -> {
                    queued.set(false);
                    offer(clock.millis());
                });
            }
            LockSupport.parkNanos(this, TimeUnit.MILLISECONDS.toNanos(sleep(now)));
        }
    }

    /** How long the timer sleeps after its beat at {@code now}. */
    long sleep(long now) {
        long last = lastTick;
        if (fine || recheck.get() || last == Long.MIN_VALUE || now < last) {
            return EVERY_MS;
        }
        return Math.max(EVERY_MS, last + COARSE_MS - now);
    }

    /**
     * Whether the timer's beat at {@code now} posts to the FX thread: while fine ticks were wanted at the last offer,
     * when a second has passed since the last tick (or the clock stepped back), or after {@link #recheck()}.
     */
    boolean due(long now) {
        long last = lastTick;
        return fine || last == Long.MIN_VALUE || now - last >= COARSE_MS || now < last || recheck.getAndSet(false);
    }

    /**
     * Asks the FX thread at the next beat whether fine ticks are wanted, instead of at the next coarse tick: called
     * when what decides it changed (a new snapshot, the timeline shown or zoomed), so a short countdown shows its
     * tenths at once. Any thread.
     */
    public void recheck() {
        recheck.set(true);
        wake();
    }

    private void wake() {
        Thread t = timer;
        if (t != null) {
            LockSupport.unpark(t);
        }
    }

    /** Hands {@code now} to the consumer when it is due: a second after the last tick, or when fine ticks are wanted. */
    void offer(long now) {
        boolean wanted = wantsFineTicks.test(now);
        boolean was = fine;
        fine = wanted;
        if (wanted && !was) {
            wake(); // it may be sleeping until the next coarse tick
        }
        if (lastTick == Long.MIN_VALUE || now - lastTick >= COARSE_MS || now < lastTick || wanted) {
            lastTick = now;
            tick.accept(now);
        }
    }

    public synchronized void stop() {
        Thread t = timer;
        timer = null;
        if (t != null) {
            LockSupport.unpark(t);
        }
    }
}
