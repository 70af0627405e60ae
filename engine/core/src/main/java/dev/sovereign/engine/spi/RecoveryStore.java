package dev.sovereign.engine.spi;

import dev.sovereign.engine.lease.Lease;
import dev.sovereign.engine.process.ProcessInfo;
import dev.sovereign.engine.run.Assignment;
import dev.sovereign.engine.run.Attempt;
import dev.sovereign.engine.run.AttemptState;
import dev.sovereign.engine.run.Receipt;
import dev.sovereign.engine.supervisor.TickRecord;
import dev.sovereign.engine.supervisor.TickReport;
import java.time.Clock;
import java.util.List;
import java.util.Optional;

/**
 * The supervisor's side of the ledger (contract §10), as a backend provides it: read-only reports, and the
 * settlement of one expired attempt as ONE transaction whose fenced update comes first (a lost race
 * writes nothing). The tick's order and its report are the core's {@code EngineSupervisor}.
 * Implementations are thread-safe.
 */
public interface RecoveryStore {
    /** What settling one expired attempt did. */
    sealed interface Settlement permits Recovered, Retired, Untouched {}

    /** Recovered as FAILED / worker_lost, with its receipt. */
    record Recovered(Assignment assignment, Attempt attempt, Receipt receipt, boolean fenceWasStolen)
            implements Settlement {}

    /** No longer current: retired as SUPERSEDED or LOST, without a receipt. */
    record Retired(Attempt attempt, AttemptState state) implements Settlement {}

    /** Someone else settled it first, or it is no longer an expired ACTIVE attempt. */
    record Untouched(String why) implements Settlement {}

    /**
     * The time a tick is stamped with: the clock that decides expiry on this ledger. SQLite: the engine's own
     * clock (each writer decides with its own); a server backend: the server's clock, so a tick's time agrees
     * with the expiries it judged (0901). The default is {@code engineClock}'s reading.
     */
    default long tickTime(Clock engineClock) {
        return engineClock.millis();
    }

    /**
     * Refuses, before a tick has done anything, a login that could not record the tick's report at its end
     * (decision 0316: a pass is whole or not at all). A backend whose every writer may record ticks (SQLite: who
     * can write the file can write every table) checks nothing; a server backend checks the login's privilege.
     *
     * @throws dev.sovereign.engine.base.StorageException {@code READ_ONLY}, naming the login and the role it needs
     */
    default void requireMayRecordTicks() {}

    List<Lease> expiredLeases();

    List<ProcessInfo> staleProcesses();

    List<Attempt> expiredActiveAttempts();

    Settlement settle(String attemptId);

    long recordTick(TickReport report, String reportJson);

    Optional<TickRecord> lastTick();
}
