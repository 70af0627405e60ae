package dev.sovereign.engine.testing;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicLong;

/** A clock the core's unit tests move by hand: time passes only when a test says so. Thread-safe. */
public final class SettableClock extends Clock {
    /** A fixed, unremarkable start (2027-01-15T08:00:00Z). */
    public static final long START = 1_800_000_000_000L;

    private final AtomicLong millis;

    public SettableClock(long startMillis) {
        this.millis = new AtomicLong(startMillis);
    }

    public SettableClock() {
        this(START);
    }

    public SettableClock advance(Duration d) {
        millis.addAndGet(d.toMillis());
        return this;
    }

    public SettableClock set(long epochMillis) {
        millis.set(epochMillis);
        return this;
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
