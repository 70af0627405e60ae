package dev.sovereign.engine.lab;

import java.util.Objects;

/**
 * One statement a scenario's checker verified against the journal and the ledger, and what it found.
 * Immutable.
 *
 * <p>A {@link Kind#SAFETY} check is a fencing guarantee ("no stale commit", "at most one receipt"):
 * it is phrased so that it holds vacuously when nothing happened, and a failed one makes the verdict
 * {@link Verdict#VIOLATED}. A {@link Kind#SETUP} check says the scenario really produced the situation
 * it teaches ("the second worker took over", "the paused holder tried to write"); a failed one makes
 * the verdict {@link Verdict#INCONCLUSIVE}, never held.
 *
 * @param evidence journal sequence numbers, tokens and ids that support the answer
 */
public record Check(Kind kind, String statement, boolean passed, String evidence) {
    public enum Kind {
        SAFETY,
        SETUP
    }

    public Check {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(statement, "statement");
        evidence = evidence == null ? "" : evidence;
    }

    static Check safety(String statement, boolean passed, String evidence) {
        return new Check(Kind.SAFETY, statement, passed, evidence);
    }

    static Check setup(String statement, boolean passed, String evidence) {
        return new Check(Kind.SETUP, statement, passed, evidence);
    }
}
