package dev.sovereign.engine.lab;

/**
 * Told what a running scenario does, as it happens, on the scenario's own thread (a console hands
 * each call to its UI thread). Implementations must return quickly and must not throw.
 */
public interface LabListener {
    /** Does nothing. */
    LabListener NONE = step -> {};

    /** A step started, ended or was skipped. */
    void onStep(LabStep step);

    /** The run chose its fresh actor ({@code <scenario>-<n>}); called once, before the first step. */
    default void onActor(String actor) {}

    /** The scenario started a real worker process (it stops it again before the run ends). */
    default void onWorkerStarted(WorkerProcess worker) {}

    /** A scenario worker printed a line. */
    default void onWorkerLine(WorkerProcess worker, String line) {}
}
