package dev.sovereign.engine.admin;

import java.time.Duration;

/**
 * What an operator may <em>do</em> from the console, beside reading. Implemented by the engine on an
 * engine instance the console owns (its own process identity, kind {@code console}, so every action
 * is fenced and journalled like any other writer's); the console never writes by any other way.
 *
 * <p>Lifecycle: {@code open → (actions; optionally an auto-ticking supervisor) → close}. Opening
 * registers a process and heartbeats it; {@link #close()} stops the supervisor, and marks the process
 * stopped.
 *
 * <p>Every method is a write: it may block on the database lock, so callers run it off the UI thread.
 * Refusals ({@code dev.sovereign.engine.base.Refusal}) come back as exceptions carrying their category and
 * sentence; storage failures as {@code StorageException}. Implementations are thread-safe.
 */
public interface OperatorActions extends AutoCloseable {
    /** The shortest interval {@link #startSupervisor} accepts. */
    Duration MIN_SUPERVISOR_INTERVAL = Duration.ofMillis(100);

    /** This console's process identity ({@code proc_<uuid>}): every action is journalled under it. */
    String processIdentity();

    /**
     * Retries a recovered or failed assignment: creates a new CREATED assignment with {@code retry_of}
     * set (never automatic, at most one retry each).
     *
     * @return the new assignment's id
     * @throws dev.sovereign.engine.base.Refusal {@code assignment_missing}, {@code assignment_not_retryable}
     */
    String retry(String assignmentId);

    /**
     * Marks a worker-lost (or otherwise failed) assignment as seen by an operator, without retrying it.
     * A second call changes nothing.
     *
     * @throws dev.sovereign.engine.base.Refusal {@code assignment_missing}; {@code invalid_argument} for an
     *     assignment that has not ended as FAILED or BLOCKED
     */
    void acknowledge(String assignmentId);

    /**
     * Marks a process stopped, as its own clean close would, and journals it ({@code PROCESS_STOPPED}); its
     * leases are not released (they expire on their own, and the fence keeps a stale holder out).
     *
     * @throws dev.sovereign.engine.base.Refusal {@code unknown_process}, {@code process_stopped}
     */
    void stopProcess(String identity);

    /** Runs one supervisor tick now and returns its report, as stored. */
    SupervisorTickRow tickSupervisor();

    /**
     * Starts a supervisor that ticks now and then every {@code interval} on a background thread until
     * {@link #stopSupervisor()}; when one already runs, it is replaced by one with the new interval.
     *
     * @throws IllegalArgumentException for an interval shorter than {@link #MIN_SUPERVISOR_INTERVAL}
     */
    void startSupervisor(Duration interval);

    /** Stops the auto-ticking supervisor after its tick in progress, if one runs; idempotent. */
    void stopSupervisor();

    boolean isSupervisorRunning();

    /**
     * Tells {@code listener} about every tick of the auto-ticking supervisor (and of
     * {@link #tickSupervisor()}), on the thread that ticked. A listener must be quick and must not throw.
     */
    void addSupervisorListener(SupervisorListener listener);

    void removeSupervisorListener(SupervisorListener listener);

    /** What a supervisor listener is told. */
    interface SupervisorListener {
        /** A tick finished and its report was stored. */
        void ticked(SupervisorTickRow tick);

        /** A tick of the auto-ticking supervisor failed (busy past the bound, file gone); the loop goes on. */
        void failed(String sentence);
    }

    /** Stops the supervisor and releases the engine instance behind these actions; idempotent. */
    @Override
    void close();
}
