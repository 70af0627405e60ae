package dev.sovereign.engine.rules;

import dev.sovereign.engine.admin.Retention;
import dev.sovereign.engine.base.Refusal;
import dev.sovereign.engine.base.RefusalCategory;
import java.time.Duration;

/**
 * The retention rules (decision 0018): how long a ledger may keep its journal. The database refuses the same
 * bounds (its CHECK on {@code retention.keep_ms}); the engine says so in one sentence before it writes.
 */
public final class RetentionRules {
    private RetentionRules() {}

    /** Refuses ({@code invalid_argument}) a journal retention below an hour or above 100 years. */
    public static void requireKeep(Duration keep) {
        requireKeep(Retention.Kind.JOURNAL, keep);
    }

    /** Refuses ({@code invalid_argument}) a retention of {@code kind} below an hour or above 100 years. */
    public static void requireKeep(Retention.Kind kind, Duration keep) {
        if (keep == null || keep.compareTo(Retention.MINIMUM_KEEP) < 0 || keep.compareTo(Retention.MAXIMUM_KEEP) > 0) {
            throw Refusal.of(
                            RefusalCategory.INVALID_ARGUMENT,
                            subject(kind) + " kept for at least an hour and at most 100 years; "
                                    + (keep == null ? "no duration" : spoken(keep)) + " is outside that.")
                    .build();
        }
    }

    private static String subject(Retention.Kind kind) {
        return switch (kind) {
            case JOURNAL -> "The journal is";
            case RUNS -> "Finished runs are";
            case MESSAGES -> "Finished messages are";
            case PROCESSES -> "Stopped processes are";
        };
    }

    private static String spoken(Duration d) {
        if (d.isNegative() || d.isZero()) {
            return "a duration of " + d.toMillis() + " ms";
        }
        if (d.toMinutes() < 120) {
            return d.toSeconds() % 60 == 0 ? d.toMinutes() + " minutes" : d.toSeconds() + " seconds";
        }
        return d.toHours() < 48 ? d.toHours() + " hours" : d.toDays() + " days";
    }
}
