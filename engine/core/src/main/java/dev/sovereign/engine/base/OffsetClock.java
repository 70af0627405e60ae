package dev.sovereign.engine.base;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.Objects;

/**
 * A clock that runs a settable offset ahead of (or behind) another clock — for teaching what a
 * skewed clock can and cannot do. A skewed clock may let a process take over a lease early (time
 * decides when a takeover is allowed); it can never let two writers both commit (tokens decide
 * that). Thread-safe: the offset may be changed while the engine runs.
 */
public final class OffsetClock extends Clock {
    private final Clock base;
    private volatile long offsetMillis;

    public OffsetClock(Clock base, Duration offset) {
        this.base = Objects.requireNonNull(base, "base");
        this.offsetMillis = offset.toMillis();
    }

    public Duration offset() {
        return Duration.ofMillis(offsetMillis);
    }

    public void setOffset(Duration offset) {
        this.offsetMillis = offset.toMillis();
    }

    @Override
    public long millis() {
        return base.millis() + offsetMillis;
    }

    @Override
    public Instant instant() {
        return Instant.ofEpochMilli(millis());
    }

    @Override
    public ZoneId getZone() {
        return base.getZone();
    }

    @Override
    public Clock withZone(ZoneId zone) {
        return new OffsetClock(base.withZone(zone), offset());
    }
}
