package dev.sovereign.engine.lab;

/**
 * Holds a scenario before its next step, for a class to follow it step by step (decision 0117). Asked only before
 * a step the story can wait for: one that begins with the lab's own next action (start a worker, give a job, tick
 * the supervisor, check the ledger) while nothing of the run depends on when it happens. A step that must follow
 * in real time (freeze A while its job runs, wake A while B still runs) is never held: the workers are real
 * processes with real TTLs, and holding the lab would not stop their clocks, only change the story.
 *
 * <p>The run asks {@link #released} every few milliseconds on its own thread, and stops waiting when it is
 * cancelled. Implementations must return quickly and must not throw.
 */
@FunctionalInterface
public interface LabGate {
    /** Never holds: the scenario plays in real time. */
    LabGate NONE = next -> true;

    /**
     * Whether the run may begin {@code next} (still pending) now; false holds it until a later call says true.
     * The first call for a step is the moment the run starts waiting for it.
     */
    boolean released(LabStep next);
}
