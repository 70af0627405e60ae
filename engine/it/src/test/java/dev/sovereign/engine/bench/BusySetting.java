package dev.sovereign.engine.bench;

import dev.sovereign.engine.base.EngineConfig;
import java.time.Duration;

/**
 * One way for the engine to wait for SQLite's write lock (decision 0004, tunable per decision 0501):
 * how long SQLite's own busy handler waits within one attempt, then the random pause between
 * attempts. Passed to child JVMs as a short code.
 */
record BusySetting(String name, Duration sqliteBusyTimeout, Duration pauseMin, Duration pauseMax) {
    /** The engine's default: SQLite waits up to 50 ms (its sleeps grow 1, 2, 5, 10 … ms), then 1–14 ms pauses. */
    static final BusySetting ENGINE_DEFAULT =
            new BusySetting("default", Duration.ofMillis(50), Duration.ofMillis(1), Duration.ofMillis(14));

    /** No SQLite sleeping at all: every wait is a short random pause, so waiters try again often. */
    static final BusySetting SHORT_PAUSES =
            new BusySetting("short-pauses", Duration.ZERO, Duration.ofNanos(20_000), Duration.ofNanos(500_000));

    EngineConfig.Builder apply(EngineConfig.Builder b) {
        return b.sqliteBusyTimeout(sqliteBusyTimeout).busyRetryPause(pauseMin, pauseMax);
    }

    String code() {
        return name + ":" + sqliteBusyTimeout.toNanos() + ":" + pauseMin.toNanos() + ":" + pauseMax.toNanos();
    }

    static BusySetting parse(String code) {
        String[] p = code.split(":");
        return new BusySetting(
                p[0],
                Duration.ofNanos(Long.parseLong(p[1])),
                Duration.ofNanos(Long.parseLong(p[2])),
                Duration.ofNanos(Long.parseLong(p[3])));
    }

    /** In words, for the report. */
    String describe() {
        return "SQLite busy_timeout " + millis(sqliteBusyTimeout) + ", then random pauses of " + micros(pauseMin) + "–"
                + micros(pauseMax);
    }

    private static String millis(Duration d) {
        return d.toMillis() + " ms";
    }

    private static String micros(Duration d) {
        long us = d.toNanos() / 1000;
        return us >= 1000 && us % 1000 == 0 ? (us / 1000) + " ms" : us + " µs";
    }
}
