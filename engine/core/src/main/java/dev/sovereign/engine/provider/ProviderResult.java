package dev.sovereign.engine.provider;

import java.util.Objects;

/**
 * What a provider produced: an {@link Outcome}, a failure category for {@code failed} (a short
 * snake_case word such as {@code exit_status} or {@code cancelled}; null otherwise) and a one-line
 * summary for the receipt. Immutable.
 */
public record ProviderResult(Outcome outcome, String failureCategory, String summary) {
    public ProviderResult {
        Objects.requireNonNull(outcome, "outcome");
    }

    public static ProviderResult completed(String summary) {
        return new ProviderResult(Outcome.COMPLETED, null, summary);
    }

    public static ProviderResult blocked(String summary) {
        return new ProviderResult(Outcome.BLOCKED, null, summary);
    }

    public static ProviderResult failed(String failureCategory, String summary) {
        return new ProviderResult(Outcome.FAILED, failureCategory, summary);
    }

    /** The result of a job that stopped because it was cancelled. */
    public static ProviderResult cancelled(String why) {
        return failed("cancelled", "cancelled: " + why);
    }
}
