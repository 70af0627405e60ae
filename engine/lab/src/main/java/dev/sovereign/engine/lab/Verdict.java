package dev.sovereign.engine.lab;

import java.util.Locale;

/** A scenario's outcome, decided by its checker from the journal and the ledger. */
public enum Verdict {
    /** The scenario produced its situation and every safety check held: the fence held. */
    HELD,
    /** A safety check failed: a stale writer committed, or something was committed twice. */
    VIOLATED,
    /**
     * No safety check failed, but the scenario did not reach the situation it teaches (a worker did
     * not start, a takeover did not happen in time): nothing was proven either way.
     */
    INCONCLUSIVE;

    /** {@code held}, {@code violated}, {@code inconclusive}: the CLI's and JSON's word. */
    public String code() {
        return name().toLowerCase(Locale.ROOT);
    }
}
