package dev.sovereign.engine.rules;

import static dev.sovereign.engine.base.RefusalCategory.INVALID_ARGUMENT;
import static dev.sovereign.engine.base.RefusalCategory.UNKNOWN_WORKSPACE_POLICY;

import dev.sovereign.engine.base.EngineConfig;
import dev.sovereign.engine.base.Refusal;
import java.time.Duration;
import java.time.Instant;
import java.util.Set;

/** The limits on what a caller may pass, checked before any transaction starts. */
public final class Arguments {
    /** The workspace policies an actor or an assignment may name. */
    public static final Set<String> WORKSPACE_POLICIES = Set.of("temporary", "persistent");

    /** The policy of an actor added without one. */
    public static final String DEFAULT_WORKSPACE_POLICY = "temporary";

    private Arguments() {}

    /** The longest duration Sovereign takes anywhere: {@link EngineConfig#LONGEST_DURATION} (decision 0602). */
    public static final Duration LONGEST = EngineConfig.LONGEST_DURATION;

    /** The shortest: 1 ms, the unit every time is stored in. */
    public static final Duration SHORTEST = EngineConfig.SHORTEST_DURATION;

    /** A lease TTL in milliseconds: at least 1 ms, at most 365 days (decision 0602). */
    public static long leaseTtlMillis(Duration ttl) {
        return ttlMillis(ttl, "lease");
    }

    /** A message claim's TTL in milliseconds: at least 1 ms, at most 365 days (decision 0602). */
    public static long claimTtlMillis(Duration ttl) {
        return ttlMillis(ttl, "claim");
    }

    /** A run's TTL (its attempt's, and its lease's when the run acquires it): at least 1 ms, at most 365 days. */
    public static long runTtlMillis(Duration ttl) {
        return ttlMillis(ttl, "run");
    }

    private static long ttlMillis(Duration ttl, String what) {
        return durationMillis(ttl, what + " TTL");
    }

    /**
     * Any other duration a caller passes ({@code what}: "busy timeout", "supervisor interval", …) in
     * milliseconds: at least {@link #SHORTEST}, at most {@link #LONGEST}; else {@code invalid_argument} naming
     * {@code what} and the limit.
     */
    public static long durationMillis(Duration d, String what) {
        if (d == null || d.compareTo(SHORTEST) < 0) {
            throw Refusal.of(
                            INVALID_ARGUMENT,
                            a(what) + " must be a positive duration of at least 1 ms, got " + shown(d) + ".")
                    .build();
        }
        if (d.compareTo(LONGEST) > 0) {
            throw Refusal.of(INVALID_ARGUMENT, a(what) + " must be at most 365 days, got " + shown(d) + ".")
                    .build();
        }
        return d.toMillis();
    }

    /** Refuses {@code invalid_argument} for a missing value ({@code what}: "lease keeping", …). */
    public static <T> T requirePresent(T value, String what) {
        if (value == null) {
            throw Refusal.of(INVALID_ARGUMENT, a(what) + " must be given, got null.")
                    .build();
        }
        return value;
    }

    /** An instant a caller passes, in epoch milliseconds; {@code invalid_argument} when null or out of range. */
    public static long instantMillis(Instant t, String what) {
        requirePresent(t, what);
        try {
            return t.toEpochMilli();
        } catch (ArithmeticException tooFar) {
            throw Refusal.of(INVALID_ARGUMENT, a(what) + " is out of range, got " + t + ".")
                    .build();
        }
    }

    /**
     * A signed duration (a clock offset: ahead, or behind with a minus) of at most {@link #LONGEST} either
     * way; zero is allowed.
     */
    public static long offsetMillis(Duration d, String what) {
        if (d == null
                || d.compareTo(LONGEST) > 0
                || d.compareTo(LONGEST.negated()) < 0) { // abs() overflows at the extreme
            throw Refusal.of(INVALID_ARGUMENT, a(what) + " must be at most 365 days either way, got " + shown(d) + ".")
                    .build();
        }
        return d.toMillis();
    }

    /**
     * How many heartbeat intervals a run's TTL must span at least (decision 0114): the attempt is renewed only
     * by the beat, so a TTL under one interval expires between two beats and a healthy run is recovered as
     * {@code worker_lost}; two intervals let one late beat pass.
     */
    public static final int RUN_TTL_MIN_BEATS = 2;

    /**
     * A run's TTL on an engine that beats every {@code heartbeatInterval} (null: no background heartbeat, the
     * caller beats by hand, nothing to check): at least {@link #RUN_TTL_MIN_BEATS} intervals, else
     * {@code invalid_argument} saying why and what to do.
     */
    public static long runTtlMillis(Duration ttl, Duration heartbeatInterval) {
        long ttlMs = runTtlMillis(ttl);
        if (heartbeatInterval != null && ttl.compareTo(heartbeatInterval.multipliedBy(RUN_TTL_MIN_BEATS)) < 0) {
            throw Refusal.of(
                            INVALID_ARGUMENT,
                            "A run TTL must be at least " + RUN_TTL_MIN_BEATS + " heartbeat"
                                    + " intervals (this engine beats every " + shown(heartbeatInterval) + "), got "
                                    + shown(ttl)
                                    + ": the attempt would expire between two beats and a healthy run would be recovered as"
                                    + " worker_lost; give a longer TTL or beat more often.")
                    .build();
        }
        return ttlMs;
    }

    /**
     * A duration as a person typed it: {@code 8761h}, {@code 90s}, {@code 1500ms} (the largest whole unit),
     * instead of {@code PT8761H}.
     */
    public static String shown(Duration d) {
        if (d == null) {
            return "nothing";
        }
        if (d.getSeconds() >= Long.MAX_VALUE / 1_000 - 1 || d.getSeconds() <= Long.MIN_VALUE / 1_000 + 1) {
            return d.toString(); // beyond what milliseconds can say (a sentence must never fail on what it reports)
        }
        String sign = d.isNegative() ? "-" : "";
        Duration a = d.abs();
        if (a.getNano() % 1_000_000 != 0) {
            return sign + a.toNanos() + "ns";
        }
        long ms = a.toMillis();
        if (ms == 0) {
            return "0ms";
        }
        if (ms % 3_600_000 == 0) {
            return sign + ms / 3_600_000 + "h";
        }
        if (ms % 60_000 == 0) {
            return sign + ms / 60_000 + "m";
        }
        if (ms % 1_000 == 0) {
            return sign + ms / 1_000 + "s";
        }
        return sign + ms + "ms";
    }

    /** An execution attempt's TTL, already in milliseconds (it is the lease's). */
    public static void requireAttemptTtl(long ttlMs) {
        if (ttlMs <= 0) {
            throw Refusal.of(INVALID_ARGUMENT, "An attempt TTL must be positive, got " + ttlMs + " ms.")
                    .build();
        }
    }

    /** Ids are 1-200 printable characters without control characters. */
    public static void requireValidId(String id, String what) {
        if (!isValidId(id)) {
            throw Refusal.of(
                            INVALID_ARGUMENT,
                            "An " + what + " must be 1 to 200 printable characters, got " + shown(id) + ".")
                    .build();
        }
    }

    /** 1-200 printable characters without control characters (an actor's id). */
    public static boolean isValidId(String id) {
        return id != null && !id.isBlank() && id.length() <= 200 && id.chars().noneMatch(Character::isISOControl);
    }

    /** {@code temporary} or {@code persistent}; anything else (nothing included) is {@code unknown_workspace_policy}. */
    public static void requirePolicy(String policy) {
        if (policy == null || !WORKSPACE_POLICIES.contains(policy)) { // Set.of's contains(null) throws
            throw Refusal.of(
                            UNKNOWN_WORKSPACE_POLICY,
                            "Unknown workspace policy " + shown(policy) + "; use 'temporary' or 'persistent'.")
                    .build();
        }
    }

    /** A message's sender or recipient: 1-200 printable characters. */
    public static void requireMessageText(String value, String what) {
        if (value == null
                || value.isBlank()
                || value.length() > 200
                || value.chars().anyMatch(Character::isISOControl)) {
            throw Refusal.of(
                            INVALID_ARGUMENT,
                            "A message " + what + " must be 1 to 200 printable characters, got " + shown(value) + ".")
                    .build();
        }
    }

    public static void requireSubject(String subject) {
        if (subject == null) {
            throw Refusal.of(INVALID_ARGUMENT, "A message needs a subject (it may be empty, not missing).")
                    .build();
        }
    }

    public static void requireMaxRetries(int maxRetries) {
        if (maxRetries < 0) {
            throw Refusal.of(INVALID_ARGUMENT, "Max retries must be zero or more, got " + maxRetries + ".")
                    .build();
        }
    }

    /** {@code what} with its article, capitalised: "A busy timeout", "An idle wait". */
    private static String a(String what) {
        return ("aeiou".indexOf(Character.toLowerCase(what.charAt(0))) >= 0 ? "An " : "A ") + what;
    }

    /** A value as typed, quoted, its control characters as {@code ?}; {@code nothing} for null. */
    public static String shown(String value) {
        return value == null ? "nothing" : "'" + value.replaceAll("\\p{Cntrl}", "?") + "'";
    }
}
