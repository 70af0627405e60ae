package dev.sovereign.engine.reliability;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The system clock plus an offset that can be changed at any moment: a torture worker's engine
 * runs on it, and the nemesis makes it jump forward and back. Thread-safe.
 */
public final class OffsetClock extends Clock {
    private final AtomicLong offsetMillis = new AtomicLong();

    public void setOffset(long millis) {
        offsetMillis.set(millis);
    }

    public long offset() {
        return offsetMillis.get();
    }

    @Override
    public long millis() {
        return System.currentTimeMillis() + offsetMillis.get();
    }

    @Override
    public Instant instant() {
        return Instant.ofEpochMilli(millis());
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
