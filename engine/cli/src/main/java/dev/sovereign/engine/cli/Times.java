package dev.sovereign.engine.cli;

import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;

/**
 * Human renderings of times for the CLI's tables: local wall time plus how far from now, e.g.
 * {@code 14:03:12 (in 12s)} or {@code 2026-01-03 09:00:00 (2d ago)}. JSON output never uses this: it
 * carries epoch milliseconds. Immutable.
 */
final class Times {
    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("HH:mm:ss");
    private static final DateTimeFormatter DATE_TIME = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss");

    private final ZoneId zone;
    private final long now;

    Times(ZoneId zone, long now) {
        this.zone = zone;
        this.now = now;
    }

    long now() {
        return now;
    }

    /** Beyond this many years from now a time is not a date anyone plans for: it was pinned there (by hand). */
    private static final long FAR_YEARS = 1_000;

    /**
     * Local time, with the date when it is not today, and the distance from now; a time beyond the year 9999
     * (or before the year 1), which only a hand-made row can hold, in words.
     */
    String at(long epochMillis) {
        if (isFar(epochMillis)) {
            return wall(epochMillis);
        }
        return wall(epochMillis) + " (" + relative(epochMillis) + ")";
    }

    String wall(long epochMillis) {
        ZonedDateTime t = Instant.ofEpochMilli(epochMillis).atZone(zone);
        if (isFar(epochMillis)) {
            return "the year " + t.getYear() + " (pinned far in the " + (epochMillis > now ? "future" : "past") + ")";
        }
        LocalDate today = Instant.ofEpochMilli(now).atZone(zone).toLocalDate();
        return (t.toLocalDate().equals(today) ? TIME : DATE_TIME).format(t);
    }

    /** A time outside the years 1-9999, or more than a thousand years from now. */
    private boolean isFar(long epochMillis) {
        int year = Instant.ofEpochMilli(epochMillis).atZone(zone).getYear();
        int thisYear = Instant.ofEpochMilli(now).atZone(zone).getYear();
        return year > 9999 || year < 1 || Math.abs((long) year - thisYear) > FAR_YEARS;
    }

    /** {@code in 12s}, {@code 3s ago} or {@code now}; {@code in 126702 years} for a time pinned far away. */
    String relative(long epochMillis) {
        if (isFar(epochMillis)) {
            long years = Math.abs(Instant.ofEpochMilli(epochMillis).atZone(zone).getYear()
                    - (long) Instant.ofEpochMilli(now).atZone(zone).getYear());
            return epochMillis > now ? "in " + years + " years" : years + " years ago";
        }
        long delta = epochMillis - now;
        if (delta == 0) {
            return "now";
        }
        String span = span(Duration.ofMillis(Math.abs(delta)));
        return delta > 0 ? "in " + span : span + " ago";
    }

    /**
     * A compact duration, to the nearest second from one second up: {@code 500ms}, {@code 12s},
     * {@code 4m 12s}, {@code 2h 5m}, {@code 3d 4h}.
     */
    static String span(Duration d) {
        long ms = d.toMillis();
        if (ms < 1_000) {
            return ms + "ms";
        }
        long s = (ms + 500) / 1_000;
        if (s < 60) {
            return s + "s";
        }
        if (s < 3_600) {
            return s / 60 + "m" + (s % 60 == 0 ? "" : " " + s % 60 + "s");
        }
        if (s < 86_400) {
            return s / 3_600 + "h" + (s % 3_600 / 60 == 0 ? "" : " " + s % 3_600 / 60 + "m");
        }
        return s / 86_400 + "d" + (s % 86_400 / 3_600 == 0 ? "" : " " + s % 86_400 / 3_600 + "h");
    }
}
