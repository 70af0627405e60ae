package dev.sovereign.engine.testing;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicLong;

/** A clock tests move by hand instead of sleeping. Thread-safe. */
public final class SettableClock extends Clock {
    private final AtomicLong millis;

    public SettableClock(long startMillis) {
        this.millis = new AtomicLong(startMillis);
    }

    public SettableClock() {
        this(1_800_000_000_000L);
    }

    public void advance(Duration d) {
        millis.addAndGet(d.toMillis());
    }

    public void set(long epochMillis) {
        millis.set(epochMillis);
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
