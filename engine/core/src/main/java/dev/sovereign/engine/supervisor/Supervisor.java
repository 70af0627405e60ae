package dev.sovereign.engine.supervisor;

import java.util.Optional;

/**
 * Recovers work whose process died, against the durable ledger only. Thread-safe; several
 * supervisors (threads, engines or processes) may tick at once: every recovery is a fenced
 * compare-and-set, so a lost race writes nothing.
 *
 * <p>{@link #tick()} runs contract §10 in this order:
 * <ol>
 *   <li>report expired actor leases and stale processes (read-only: expiry is not a fault);</li>
 *   <li>sweep expired mailbox claims back to NEW;</li>
 *   <li>recover abandoned attempts: each ACTIVE attempt that is still its assignment's current
 *       attempt and has expired is, in ONE transaction, ended by a fenced update of the assignment to
 *       FAILED (clearing the pointer) first, then one receipt {@code failed} / {@code worker_lost} /
 *       outcome unknown naming the attempt and its token, then the attempt RECOVERED and the events.
 *       A RUNNING assignment whose pointer an operator stole is recovered the same way once its
 *       attempt expired. Expired ACTIVE attempts that are no longer current are retired (SUPERSEDED or
 *       LOST) so they leave the worklist. Workspaces are reclaimed only after each commit;</li>
 *   <li>nothing else: it never creates work and never guesses success.</li>
 * </ol>
 * One failing item is recorded in the report and the tick goes on. Each report is stored in
 * {@code supervisor_ticks}. A second tick over the same ledger finds nothing to recover.
 */
public interface Supervisor {
    TickReport tick();

    /** The most recent stored tick report of any supervisor on this database. */
    Optional<TickRecord> lastTick();
}
