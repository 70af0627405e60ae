package dev.sovereign.engine.lab;

/**
 * Thrown inside a scenario when it cannot reach the situation it teaches (a worker did not start, an
 * expected event did not appear in time). The run still checks the ledger; the verdict is at best
 * {@link Verdict#INCONCLUSIVE}.
 */
final class Inconclusive extends Exception {
    private static final long serialVersionUID = 1L;

    Inconclusive(String message) {
        super(message, null, false, false);
    }
}
