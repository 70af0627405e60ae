package dev.sovereign.engine.cli;

import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * Value converters for options whose format is part of the contract. Each rejects bad input with
 * one sentence (picocli prefixes it with the option's name), which the CLI reports as exit 2.
 */
final class Converters {
    private static final Pattern DURATION = Pattern.compile("(\\d{1,12})(ms|s|m|h|d)");
    private static final Pattern WHOLE_NUMBER = Pattern.compile("-?\\d+");

    private Converters() {}

    /** {@code 500ms}, {@code 30s}, {@code 5m}, {@code 1h}: a positive whole number and a unit. */
    static final class DurationConverter implements ITypeConverter<Duration> {
        @Override
        public Duration convert(String value) {
            Matcher m = DURATION.matcher(value.strip());
            if (!m.matches()) {
                throw new TypeConversionException("'" + value
                        + "' is not a duration; write a whole number and a unit, like 500ms, 30s, 5m or 1h");
            }
            long n = Long.parseLong(m.group(1));
            if (n == 0) {
                throw new TypeConversionException("'" + value + "' is zero; a duration must be longer than that");
            }
            switch (m.group(2)) {
                case "ms":
                    return Duration.ofMillis(n);
                case "s":
                    return Duration.ofSeconds(n);
                case "m":
                    return Duration.ofMinutes(n);
                case "d":
                    return Duration.ofDays(n);
                default:
                    return Duration.ofHours(n);
            }
        }
    }

    /** A duration that may be negative ({@code -30s}) or zero: a clock offset. */
    static final class SignedDurationConverter implements ITypeConverter<Duration> {
        @Override
        public Duration convert(String value) {
            return parseSignedDuration(value);
        }
    }

    /** Parses {@code [-]N(ms|s|m|h)}, zero allowed; a bad value is a one-sentence conversion error. */
    static Duration parseSignedDuration(String value) {
        String v = value.strip();
        boolean negative = v.startsWith("-");
        String magnitude = negative || v.startsWith("+") ? v.substring(1) : v;
        if (magnitude.matches("0+(ms|s|m|h)?")) {
            return Duration.ZERO;
        }
        Duration d;
        try {
            d = new DurationConverter().convert(magnitude);
        } catch (TypeConversionException e) {
            // name what was typed, sign included, not the magnitude the parser looked at
            throw new TypeConversionException("'" + value + "' is not a duration; write a whole number and a unit,"
                    + " with - in front for an offset backwards, like -30s, 500ms or 5m");
        }
        return negative ? d.negated() : d;
    }

    /** A fencing token: a positive 64-bit whole number. */
    static final class TokenConverter implements ITypeConverter<Long> {
        @Override
        public Long convert(String value) {
            long n = wholeNumber(value, "a fencing token");
            if (n <= 0) {
                throw new TypeConversionException(
                        "'" + value + "' is not a fencing token; tokens are positive whole numbers");
            }
            return n;
        }
    }

    /** A journal sequence number to start after: zero or more. */
    static final class SeqConverter implements ITypeConverter<Long> {
        @Override
        public Long convert(String value) {
            long n = wholeNumber(value, "a journal sequence number");
            if (n < 0) {
                throw new TypeConversionException("'" + value + "' is negative; sequence numbers start at 0");
            }
            return n;
        }
    }

    /** How many rows to show: 1 to {@value #MAX_LIMIT}. */
    static final class LimitConverter implements ITypeConverter<Integer> {
        static final int MAX_LIMIT = 100_000;

        @Override
        public Integer convert(String value) {
            long n = wholeNumber(value, "a row count");
            if (n < 1 || n > MAX_LIMIT) {
                throw new TypeConversionException("'" + value + "' is out of range; give 1 to " + MAX_LIMIT);
            }
            return (int) n;
        }
    }

    /** How many times a dead-lettered message is re-queued before it is DEAD: 0 to {@value #MAX_RETRIES}. */
    static final class RetriesConverter implements ITypeConverter<Integer> {
        static final int MAX_RETRIES = 1_000_000;

        @Override
        public Integer convert(String value) {
            long n = wholeNumber(value, "a retry count");
            if (n < 0 || n > MAX_RETRIES) {
                throw new TypeConversionException("'" + value + "' is out of range; give 0 to " + MAX_RETRIES);
            }
            return (int) n;
        }
    }

    private static long wholeNumber(String value, String what) {
        String v = value.strip();
        if (!WHOLE_NUMBER.matcher(v).matches()) {
            throw new TypeConversionException("'" + value + "' is not " + what + "; give a whole number");
        }
        try {
            return Long.parseLong(v);
        } catch (NumberFormatException e) {
            throw new TypeConversionException("'" + value + "' is too large for " + what);
        }
    }
}
