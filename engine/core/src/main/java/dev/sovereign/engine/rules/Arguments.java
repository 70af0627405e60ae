package dev.sovereign.engine.rules;

import static dev.sovereign.engine.base.RefusalCategory.INVALID_ARGUMENT;
import static dev.sovereign.engine.base.RefusalCategory.UNKNOWN_WORKSPACE_POLICY;

import dev.sovereign.engine.base.Refusal;
import java.time.Duration;
import java.util.Set;

/** The limits on what a caller may pass, checked before any transaction starts. */
public final class Arguments {
    /** The workspace policies an actor or an assignment may name. */
    public static final Set<String> WORKSPACE_POLICIES = Set.of("temporary", "persistent");

    /** The policy of an actor added without one. */
    public static final String DEFAULT_WORKSPACE_POLICY = "temporary";

    private Arguments() {
    }

    /** A lease TTL in milliseconds: at least 1 ms, at most 365 days (decision 0602). */
    public static long leaseTtlMillis(Duration ttl) {
        return ttlMillis(ttl, "lease");
    }

    /** A message claim's TTL in milliseconds: at least 1 ms, at most 365 days (decision 0602). */
    public static long claimTtlMillis(Duration ttl) {
        return ttlMillis(ttl, "claim");
    }

    private static long ttlMillis(Duration ttl, String what) {
        if (ttl == null || ttl.compareTo(Duration.ofMillis(1)) < 0) {
            throw Refusal.of(INVALID_ARGUMENT, "A " + what + " TTL must be a positive duration of at least 1 ms, got "
                    + ttl + ".").build();
        }
        if (ttl.compareTo(Duration.ofDays(365)) > 0) {
            throw Refusal.of(INVALID_ARGUMENT, "A " + what + " TTL must be at most 365 days, got " + ttl + ".").build();
        }
        return ttl.toMillis();
    }

    /** An execution attempt's TTL, already in milliseconds (it is the lease's). */
    public static void requireAttemptTtl(long ttlMs) {
        if (ttlMs <= 0) {
            throw Refusal.of(INVALID_ARGUMENT, "An attempt TTL must be positive, got " + ttlMs + " ms.").build();
        }
    }

    /** Ids are 1-200 printable characters without control characters. */
    public static void requireValidId(String id, String what) {
        if (id == null || id.isBlank() || id.length() > 200 || id.chars().anyMatch(Character::isISOControl)) {
            throw Refusal.of(INVALID_ARGUMENT, "An " + what + " must be 1 to 200 printable characters, got "
                    + shown(id) + ".").build();
        }
    }

    public static void requirePolicy(String policy) {
        if (!WORKSPACE_POLICIES.contains(policy)) {
            throw Refusal.of(UNKNOWN_WORKSPACE_POLICY, "Unknown workspace policy '" + policy
                    + "'; use 'temporary' or 'persistent'.").build();
        }
    }

    /** A message's sender or recipient: 1-200 printable characters. */
    public static void requireMessageText(String value, String what) {
        if (value == null || value.isBlank() || value.length() > 200
                || value.chars().anyMatch(Character::isISOControl)) {
            throw Refusal.of(INVALID_ARGUMENT, "A message " + what + " must be 1 to 200 printable characters, got "
                    + shown(value) + ".").build();
        }
    }

    public static void requireSubject(String subject) {
        if (subject == null) {
            throw Refusal.of(INVALID_ARGUMENT, "A message needs a subject (it may be empty, not missing).").build();
        }
    }

    public static void requireMaxRetries(int maxRetries) {
        if (maxRetries < 0) {
            throw Refusal.of(INVALID_ARGUMENT, "Max retries must be zero or more, got " + maxRetries + ".").build();
        }
    }

    private static String shown(String value) {
        return value == null ? "nothing" : "'" + value.replaceAll("\\p{Cntrl}", "?") + "'";
    }
}
