package dev.sovereign.engine.run;

/**
 * The states of an assignment (see docs/concepts.md, "Assignments"):
 * <pre>
 *   CREATED ──runAssignment (attempt started)──▶ RUNNING ──fenced terminal write──▶ COMPLETED | BLOCKED | FAILED
 *                                                  │
 *                                                  └──supervisor recovery (attempt expired)──▶ FAILED (worker_lost)
 * </pre>
 * COMPLETED, BLOCKED and FAILED are terminal. A FAILED or BLOCKED assignment can be
 * <em>retried</em>, which creates a new assignment ({@code retry_of}); never automatically.
 */
public enum AssignmentState {
    CREATED,
    RUNNING,
    COMPLETED,
    BLOCKED,
    FAILED;

    public boolean isTerminal() {
        return this == COMPLETED || this == BLOCKED || this == FAILED;
    }
}
