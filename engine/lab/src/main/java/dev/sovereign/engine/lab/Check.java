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
 * <p>A statement is phrased as the guarantee ("A's attempt made no terminal commit after B's takeover"), so
 * that "this did not hold: …" would be a double negative; {@code broken} says instead, in plain words, what
 * happened when the check failed ("A's stale write was accepted after B's takeover"), for the verdict's
 * sentence. It is only the words: whether the check passed is {@code passed}.
 *
 * @param evidence journal sequence numbers, tokens and ids that support the answer
 * @param broken   what a failure means, as a plain clause (no capital, no full stop), or null when the
 *                 statement has none
 */
public record Check(Kind kind, String statement, boolean passed, String evidence, String broken) {
    public enum Kind {
        SAFETY,
        SETUP
    }

    public Check {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(statement, "statement");
        evidence = evidence == null ? "" : evidence;
    }

    /** A check without a plain sentence for its failure. */
    public Check(Kind kind, String statement, boolean passed, String evidence) {
        this(kind, statement, passed, evidence, null);
    }

    /** The same check, saying in plain words what its failure means. */
    Check whenBroken(String clause) {
        return new Check(kind, statement, passed, evidence, clause);
    }

    static Check safety(String statement, boolean passed, String evidence) {
        return new Check(Kind.SAFETY, statement, passed, evidence);
    }

    static Check setup(String statement, boolean passed, String evidence) {
        return new Check(Kind.SETUP, statement, passed, evidence);
    }
}
