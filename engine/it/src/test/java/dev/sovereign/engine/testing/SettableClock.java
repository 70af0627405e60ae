package dev.sovereign.engine.testing;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongConsumer;

/**
 * A clock tests move by hand instead of sleeping. A backend whose expiry decisions read the database
 * server's clock (PostgreSQL) follows it through {@link #onMove}. Thread-safe.
 */
public final class SettableClock extends Clock {
    private final AtomicLong millis;
    private final List<LongConsumer> followers = new CopyOnWriteArrayList<>();

    public SettableClock(long startMillis) {
        this.millis = new AtomicLong(startMillis);
    }

    public SettableClock() {
        this(1_800_000_000_000L);
    }

    public void advance(Duration d) {
        moved(millis.addAndGet(d.toMillis()));
    }

    public void set(long epochMillis) {
        millis.set(epochMillis);
        moved(epochMillis);
    }

    /**
     * Calls {@code follower} with the new reading after every move, on the moving thread, before the move
     * returns (so the next statement of the test already sees the server's clock where this one is).
     */
    public void onMove(LongConsumer follower) {
        followers.add(follower);
    }

    private void moved(long now) {
        followers.forEach(f -> f.accept(now));
    }

    @Override
    public long millis() {
        return millis.get();
    }

    @Override
    public Instant instant() {
        return Instant.ofEpochMilli(millis.get());
    }

    @Override
    public ZoneId getZone() {
        return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
        return this;
    }
}
