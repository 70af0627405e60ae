package dev.sovereign.engine.provider;

import java.time.Duration;
import java.util.Objects;

/**
 * {@code scripted:ms=N,outcome=completed|blocked|failed}: waits N milliseconds (returning early,
 * as {@code failed}/{@code cancelled}, when cancelled), then reports the chosen outcome. For demos,
 * the lab and tests. Both keys are optional ({@code ms=0}, {@code outcome=completed}). Immutable.
 */
public final class ScriptedProvider implements Provider {
    public static final String KIND = "scripted";
    private static final long MAX_MS = Duration.ofDays(1).toMillis();

    private final long millis;
    private final Outcome outcome;

    public ScriptedProvider(long millis, Outcome outcome) {
        if (millis < 0 || millis > MAX_MS) {
            throw new IllegalArgumentException("ms must be between 0 and " + MAX_MS + ", got " + millis);
        }
        this.millis = millis;
        this.outcome = Objects.requireNonNull(outcome, "outcome");
    }

    /** Parses {@code ms=N,outcome=O} (either key optional, in any order). */
    public static ScriptedProvider parse(String argument) {
        long ms = 0;
        Outcome outcome = Outcome.COMPLETED;
        if (!argument.isBlank()) {
            for (String part : argument.split(",", -1)) {
                int eq = part.indexOf('=');
                if (eq < 0) {
                    throw new IllegalArgumentException("expected key=value, got '" + part + "'");
                }
                String key = part.substring(0, eq).strip();
                String value = part.substring(eq + 1).strip();
                switch (key) {
                    case "ms" -> {
                        try {
                            ms = Long.parseLong(value);
                        } catch (NumberFormatException e) {
                            throw new IllegalArgumentException(
                                    "ms must be a whole number of milliseconds, got '" + value + "'");
                        }
                    }
                    case "outcome" -> outcome = Outcome.fromCode(value);
                    default -> throw new IllegalArgumentException("unknown key '" + key + "' (use ms and outcome)");
                }
            }
        }
        return new ScriptedProvider(ms, outcome);
    }

    public long millis() {
        return millis;
    }

    public Outcome outcome() {
        return outcome;
    }

    @Override
    public ProviderResult run(Job job) throws InterruptedException {
        if (millis > 0 && job.cancellation().await(Duration.ofMillis(millis))) {
            return ProviderResult.cancelled(job.cancellation().reason().orElse("cancelled"));
        }
        String summary = "scripted: waited " + millis + " ms, reported " + outcome.code();
        return switch (outcome) {
            case COMPLETED -> ProviderResult.completed(summary);
            case BLOCKED -> ProviderResult.blocked(summary);
            case FAILED -> ProviderResult.failed("scripted_failure", summary);
        };
    }
}
