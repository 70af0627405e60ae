package dev.sovereign.console.ledger;

import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * How the console writes times, durations and tokens: one time format everywhere ({@code 10:42:07}, with
 * milliseconds where the order of refusals matters), in the machine's zone or in UTC (View → Show times in
 * UTC). ISO-8601 appears only in exports: engine sentences that carry an ISO instant are shown through
 * {@link #humanize}. The zone may be switched on the UI thread; reading is thread-safe.
 */
public final class Formats {
    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("HH:mm:ss", Locale.ROOT);
    private static final DateTimeFormatter TIME_MS = DateTimeFormatter.ofPattern("HH:mm:ss.SSS", Locale.ROOT);
    /** An ISO-8601 instant as the engine writes it in its sentences: {@code 2027-01-15T08:01:05Z}, {@code ...05.123Z}. */
    private static final Pattern ISO_INSTANT =
            Pattern.compile("\\b\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(?:\\.\\d{1,9})?(?:Z|[+-]\\d{2}:\\d{2})");

    private final ZoneId local;
    private volatile ZoneId zone;
    private volatile boolean utc;

    public Formats(ZoneId zone) {
        this.local = zone;
        this.zone = zone;
    }

    /** The zone times are shown in. */
    public ZoneId zone() {
        return zone;
    }

    /** Shows times in UTC, or (false) in the machine's own zone. */
    public void showUtc(boolean utc) {
        this.utc = utc;
        zone = utc ? ZoneOffset.UTC : local;
    }

    public boolean isUtc() {
        return utc;
    }

    /** {@code local times (UTC+05:30)} or {@code times in UTC}: what the status bar says of the times shown. */
    public String zoneText(long at) {
        if (utc) {
            return "times in UTC";
        }
        String offset = zone.getRules().getOffset(Instant.ofEpochMilli(at)).getId();
        return "local times (UTC" + ("Z".equals(offset) ? "" : offset) + ")";
    }

    /** {@code text} with every ISO-8601 instant in it written as {@link #time}: engine sentences, shown. */
    public String humanize(String text) {
        if (text == null || text.indexOf('T') < 0) {
            return text;
        }
        Matcher m = ISO_INSTANT.matcher(text);
        StringBuilder sb = new StringBuilder();
        while (m.find()) {
            String replacement;
            try {
                replacement = time(OffsetDateTime.parse(m.group()).toInstant().toEpochMilli());
            } catch (DateTimeParseException e) {
                replacement = m.group();
            }
            m.appendReplacement(sb, Matcher.quoteReplacement(replacement));
        }
        m.appendTail(sb);
        return sb.toString();
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

    /** {@code just now}, {@code 3 s ago}, {@code 2 min ago}: an age that changes at most once a second. */
    public static String secondsAgo(long then, long now) {
        if (then == 0) {
            return "";
        }
        long s = Math.abs(now - then) / 1000;
        String span = s < 120 ? s + " s" : s / 60 + " min";
        return s == 0 ? "just now" : now >= then ? span + " ago" : "in " + span; // ahead: a skewed writer clock
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
