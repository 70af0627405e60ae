package dev.sovereign.engine.lab;

import java.util.Locale;

/**
 * One step of a scenario's narrative as it happens: the listener receives a step when it starts
 * ({@link Status#RUNNING}) and again when it ends ({@link Status#DONE} with what was seen,
 * {@link Status#VIOLATED} when what was seen is the fence failing, or {@link Status#FAILED} with why the
 * scenario could not carry on); steps never reached end {@link Status#SKIPPED}. Immutable.
 *
 * @param index  0-based position in {@link ScenarioInfo#steps()}
 * @param of     how many steps the scenario has
 * @param title  the step's title
 * @param status where it is
 * @param detail what was seen (tokens, pids, journal sequence numbers), or why it failed; may be empty
 * @param at     wall-clock time of this update, epoch ms (display only)
 */
public record LabStep(int index, int of, String title, Status status, String detail, long at) {
    public enum Status {
        PENDING,
        RUNNING,
        DONE,
        /**
         * The step happened, and what it saw is the fence failing: a stale write accepted, or the rightful
         * holder's result refused or lost (only with the terminal fence switched off). Shown as a failure
         * of the fence, never as a success.
         */
        VIOLATED,
        /** The scenario could not carry on at this step (nothing was proven either way). */
        FAILED,
        SKIPPED;

        public String code() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /** {@code [2/7]}. */
    public String position() {
        return "[" + (index + 1) + "/" + of + "]";
    }
}
