package dev.sovereign.engine.provider;

import java.util.Locale;

/** What a provider reports for a job; also the status of a receipt. Stored in lower case. */
public enum Outcome {
    COMPLETED,
    BLOCKED,
    FAILED;

    /** The stable lower-case name used in receipts, JSON and provider specs. */
    public String code() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** The outcome named {@code code} (case-insensitive), or {@link IllegalArgumentException}. */
    public static Outcome fromCode(String code) {
        for (Outcome o : values()) {
            if (o.code().equalsIgnoreCase(code)) {
                return o;
            }
        }
        throw new IllegalArgumentException("unknown outcome '" + code + "' (use completed, blocked or failed)");
    }
}
