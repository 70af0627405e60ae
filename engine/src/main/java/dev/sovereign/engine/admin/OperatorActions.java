package dev.sovereign.engine.admin;

import java.time.Duration;

/**
 * What an operator may <em>do</em> from the console, beside reading. Implemented by the engine on an
 * engine instance the console owns (its own process identity, so every action is fenced and
 * journalled like any other writer's); the console never writes by any other way.
 *
 * <p>Every method is a write: it may block on the database lock, so callers run it off the UI thread.
 * Refusals ({@code dev.sovereign.engine.Refusal}) come back as exceptions carrying their category and
 * sentence; storage failures as {@code StorageException}. Implementations are thread-safe.
 */
public interface OperatorActions extends AutoCloseable {
    /**
     * Retries a recovered or failed assignment: creates a new assignment with {@code retry_of} set
     * (never automatic, at most one retry each).
     *
     * @return the new assignment's id
     */
    String retry(String assignmentId);

    /** Marks a worker-lost (or otherwise failed) assignment as seen by an operator, without retrying it. */
    void acknowledge(String assignmentId);

    /** Runs one supervisor tick now and returns its report. */
    SupervisorTickRow tickSupervisor();

    /** Starts a supervisor that ticks every {@code interval} until {@link #stopSupervisor()}. */
    void startSupervisor(Duration interval);

    /** Stops the auto-ticking supervisor, if one runs; idempotent. */
    void stopSupervisor();

    boolean isSupervisorRunning();

    /** Stops the supervisor and releases the engine instance behind these actions. */
    @Override
    void close();
}
