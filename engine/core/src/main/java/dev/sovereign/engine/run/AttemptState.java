package dev.sovereign.engine.run;

/**
 * The states of an execution attempt (see docs/concepts.md, "Attempts"):
 * <pre>
 *   ACTIVE ──terminal write committed──────────────────────────▶ DONE
 *     │────expired, and a new attempt started for the assignment──▶ SUPERSEDED
 *     │────expired while current: supervisor recovery────────────▶ RECOVERED
 *     └────expired, no longer current (pointer cleared elsewhere)──▶ LOST
 * </pre>
 * Only an ACTIVE attempt that its assignment's {@code current_attempt} points at, and whose bound
 * actor-lease token is still this process's lease, can commit the assignment's terminal state.
 */
public enum AttemptState {
    ACTIVE,
    DONE,
    SUPERSEDED,
    RECOVERED,
    LOST
}
