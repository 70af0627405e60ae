package dev.sovereign.console.ledger;

import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.Locale;

/** How the console writes times, durations and tokens. Stateless and thread-safe. */
public final class Formats {
    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("HH:mm:ss", Locale.ROOT);
    private static final DateTimeFormatter TIME_MS = DateTimeFormatter.ofPattern("HH:mm:ss.SSS", Locale.ROOT);

    private final ZoneId zone;

    public Formats(ZoneId zone) {
        this.zone = zone;
    }

    /** The zone times are shown in. */
    public ZoneId zone() {
        return zone;
    }

    /** {@code 10:42:07}; empty for 0. */
    public String time(long epochMs) {
        return epochMs == 0 ? "" : TIME.withZone(zone).format(Instant.ofEpochMilli(epochMs));
    }

    /** {@code 10:42:07.123}; empty for 0. */
    public String preciseTime(long epochMs) {
        return epochMs == 0 ? "" : TIME_MS.withZone(zone).format(Instant.ofEpochMilli(epochMs));
    }

    /** {@code 850 ms}, {@code 4.2 s}, {@code 3 min 07 s}, {@code 2 h 05 min}. */
    public static String duration(long ms) {
        long abs = Math.abs(ms);
        String sign = ms < 0 ? "-" : "";
        if (abs < 1_000) {
            return sign + abs + " ms";
        }
        if (abs < 60_000) {
            return sign + String.format(Locale.ROOT, "%.1f s", abs / 1000.0);
        }
        if (abs < 3_600_000) {
            return sign + String.format(Locale.ROOT, "%d min %02d s", abs / 60_000, (abs / 1000) % 60);
        }
        return sign + String.format(Locale.ROOT, "%d h %02d min", abs / 3_600_000, (abs / 60_000) % 60);
    }

    /** {@code 3.0 s ago}, or {@code in 2.0 s} for a time ahead of {@code now} (a skewed writer clock). */
    public static String age(long then, long now) {
        if (then == 0) {
            return "";
        }
        long d = now - then;
        return d >= 0 ? duration(d) + " ago" : "in " + duration(-d);
    }

    /** A nullable token as text: {@code 42} or an em dash. */
    /** {@code msg_5fcb432f…}: a long id cut after its prefix and 8 characters (ids up to 13 stay whole). */
    public static String shortId(String id) {
        return id == null || id.length() <= 13 ? id : id.substring(0, 12) + "\u2026";
    }

    public static String token(Long token) {
        return token == null ? "\u2014" : token.toString();
    }
}
