package dev.sovereign.engine.spi;

import dev.sovereign.engine.actor.Actors;
import dev.sovereign.engine.admin.EpochStart;
import dev.sovereign.engine.admin.LedgerMetrics;
import dev.sovereign.engine.admin.LedgerSummary;
import dev.sovereign.engine.admin.PruneOptions;
import dev.sovereign.engine.admin.PruneReport;
import dev.sovereign.engine.admin.Retention;
import dev.sovereign.engine.base.Refusal;
import dev.sovereign.engine.base.RefusalCategory;
import dev.sovereign.engine.journal.Journal;
import dev.sovereign.engine.lease.ActorLeases;
import dev.sovereign.engine.lease.Beat;
import dev.sovereign.engine.mailbox.Mailbox;
import dev.sovereign.engine.process.ProcessInfo;
import dev.sovereign.engine.process.Processes;

/**
 * One open ledger, as a backend provides it to one {@code Engine}: the stores of every kind of grant,
 * all writing under this process's identity and tracking what it holds in the engine's {@link Grants}.
 * Every consequential write is ONE compare-and-set statement in one short write transaction, its token
 * minted in that same transaction; every refusal of a presented token or pointer is journalled as
 * REJECTED. The contract is docs/contract.md, sections 3-10 and 14; the SQLite backend is the reference.
 *
 * <p>Lifecycle: opened by {@link StorageBackend#open}, which registers the process (or, with
 * {@code EngineConfig.registerLazily}, defers its row to the first write that commits); closed once by the
 * engine, after it released what it holds. Implementations are thread-safe.
 */
public interface Ledger extends AutoCloseable {
    /** This process's fencing identity, registered (or taken over, for {@code actAs}) when opened. */
    String processIdentity();

    Actors actors();

    ActorLeases leases();

    Journal journal();

    Processes processes();

    Mailbox mailbox();

    RunStore runs();

    RecoveryStore recovery();

    /**
     * One heartbeat: renews every lease and attempt in {@link Grants}, presenting their tokens, in one
     * transaction; journals each one it could not renew as REJECTED in that same transaction; and, after the
     * commit, drops the lost ones from {@link Grants} and reports them to its listeners
     * ({@code Grants.leaseLost}/{@code attemptLost}) — a backend that skipped that would leave a holder
     * working on a lease it lost.
     */
    Beat beat();

    /**
     * Marks this process stopped: the last write of a clean close. A process opened with
     * {@code EngineConfig.registerLazily} that never wrote has no row, and this writes nothing.
     */
    void markStopped();

    /**
     * An operator's stop of any process ({@code sovereign process stop ID}): in one write transaction, reads the
     * row, asks {@code ProcessRules.whyNotStoppable} (refusing {@code unknown_process} or {@code process_stopped}),
     * sets {@code stopped_at} where it is still null, and journals a {@code PROCESS_STOPPED} event (resource
     * {@code process}/ID, written under this process's identity, detail {@code ProcessRules.stoppedByOperator}).
     * Releases nothing: the stopped process's leases and attempts expire on their own.
     *
     * @return the row as it was before the stop
     */
    ProcessInfo stopProcess(String identity);

    /**
     * {@code sovereign fence bump} (decision 0604): in one write transaction, starts a new epoch of the token counter
     * above every epoch the ledger has been in or heard of and above {@code aboveEpoch}, records it in the ledger's
     * history and journal ({@code FENCE_BUMPED}), and deletes every lease row through the release path (journalled
     * {@code LEASE_RELEASED}), so every grant of an older epoch is lost to its holder. The next grant gets the new
     * epoch's first token. Also ends a halt after a ledger went backwards (decision 0605).
     *
     * @param aboveEpoch an epoch the operator knows was used (by a ledger this one replaced); -1 for none
     */
    EpochStart bumpFence(long aboveEpoch);

    /**
     * Whether a worker login may add actors (decision 0116): on a ledger with logins, whether the ledger's owner
     * allowed it; a ledger without logins (SQLite) lets every process that can write it add actors.
     */
    default boolean workersMayAddActors() {
        return true;
    }

    /**
     * The owner's switch for {@link #workersMayAddActors()}; checked after it is thrown, so a login that is not the
     * owner is refused rather than ignored. A ledger without logins refuses: there is nothing to switch.
     */
    default void setWorkersMayAddActors(boolean allow) {
        throw Refusal.of(
                        RefusalCategory.INVALID_ARGUMENT,
                        "This ledger has no logins: every process that can write it may add actors already.")
                .build();
    }

    /** The ledger's state as numbers, read in one read transaction ({@code sovereign metrics}, decision 0319). */
    LedgerMetrics metrics();

    /** The retention policy and the pruning watermark (decision 0018). */
    Retention retention();

    /** Sets how long rows of {@code kind} are kept (an hour to 100 years; decisions 0018 and 0020). */
    Retention keep(Retention.Kind kind, java.time.Duration keep);

    /**
     * Prunes what the retention policy lets go, in short batches (or counts it, for a dry run; decisions 0018 and
     * 0020). {@code prunedRun} is told, after each batch's commit, the assignment id and workspace policy of every
     * run that batch pruned (the caller removes its folder); it answers whether a folder was removed.
     */
    PruneReport prune(PruneOptions options, java.util.function.BiPredicate<String, String> prunedRun);

    /** The counts a {@code status} shows, read in one snapshot. */
    LedgerSummary summary();

    /**
     * Whether this ledger was created as a lab sandbox (a durable mark written with its schema that no
     * write can change): only there may the lab's broken-fence mode take effect.
     */
    boolean isLabSandbox();

    @Override
    void close();
}
