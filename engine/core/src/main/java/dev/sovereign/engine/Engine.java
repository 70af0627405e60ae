package dev.sovereign.engine;

import dev.sovereign.engine.actor.Actors;
import dev.sovereign.engine.admin.EpochStart;
import dev.sovereign.engine.admin.LedgerMetrics;
import dev.sovereign.engine.admin.LedgerSummary;
import dev.sovereign.engine.admin.PruneOptions;
import dev.sovereign.engine.admin.PruneReport;
import dev.sovereign.engine.admin.Retention;
import dev.sovereign.engine.base.EngineConfig;
import dev.sovereign.engine.internal.run.AssignmentRunner;
import dev.sovereign.engine.internal.run.EngineSupervisor;
import dev.sovereign.engine.internal.run.Workspaces;
import dev.sovereign.engine.journal.Journal;
import dev.sovereign.engine.lease.ActorLeases;
import dev.sovereign.engine.lease.Beat;
import dev.sovereign.engine.lease.GrantLossListener;
import dev.sovereign.engine.lease.Lease;
import dev.sovereign.engine.mailbox.Mailbox;
import dev.sovereign.engine.process.ProcessInfo;
import dev.sovereign.engine.process.Processes;
import dev.sovereign.engine.provider.Providers;
import dev.sovereign.engine.rules.RetentionRules;
import dev.sovereign.engine.run.Runs;
import dev.sovereign.engine.spi.Backends;
import dev.sovereign.engine.spi.Grants;
import dev.sovereign.engine.spi.Ledger;
import dev.sovereign.engine.supervisor.Supervisor;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * One engine instance is one <em>process</em> for fencing: it mints a fresh identity
 * ({@code proc_<uuid>}, never a PID) when it opens, registers it, heartbeats it, and marks it
 * stopped when it closes. Two engines in one JVM are two processes; tests rely on this. With
 * {@link EngineConfig#registerLazily()} the row is written only with the first write that commits, so an
 * engine that only reads (a CLI {@code status}) leaves the registry as it found it (docs/decisions/0304).
 *
 * <p>Lifecycle: {@code open → (heartbeating) → close}. {@link #close()} stops the heartbeat,
 * cancels the providers of runs still in progress (their attempts count as lost), releases the leases this instance still holds (each by compare-and-set on its token) and marks
 * the process stopped — unless the engine was opened to act as an existing identity
 * ({@link EngineConfig#actAs()}), in which case it leaves that identity exactly as it found it.
 *
 * <p>Thread-safe: every operation may be called from any thread; writes are serialised on the
 * engine's one connection and, across processes, by SQLite's write lock.
 */
public final class Engine implements AutoCloseable {
    private final EngineConfig config;
    private final Ledger ledger;
    private final Grants grants = new Grants();
    private final String identity;
    private final Actors actors;
    private final ActorLeases leases;
    private final Journal journal;
    private final Processes processes;
    private final Mailbox mailbox;
    private final Providers providers = Providers.withBuiltIns();
    private final Runs runs;
    private final Supervisor supervisor;
    private final Workspaces workspaces;
    private final ScheduledExecutorService heartbeatThread;
    private volatile RuntimeException lastHeartbeatFailure;
    private volatile boolean closed;
    private volatile boolean heartbeatSuspended;
    /**
     * Whether the background heartbeat beats. An engine that registers lazily starts beating with its first
     * grant (a run's lease) or its first explicit {@link #heartbeatNow()}, not when it opens: a beat is a write,
     * and it would register a process whose every call was refused (decision 0315).
     */
    private volatile boolean beating;

    static {
        // The backend's ledger is reachable for backends, their tests and tools through the port
        // (EngineAccess, for them only), never from the embedder's API.
        EngineAccess.install(engine -> engine.ledger, engine -> engine.grants);
    }

    private Engine(EngineConfig config, boolean createIfMissing) {
        this.config = config;
        this.beating = !config.registerLazily();
        // The backend that serves the database the user named (a ServiceLoader look-up): the core
        // never names one, so a new backend is a new module, not a change here (docs/architecture.md).
        this.ledger = Backends.forDatabase(config.location()).open(config, grants, createIfMissing);
        try {
            this.identity = ledger.processIdentity();
            this.processes = ledger.processes();
            this.actors = ledger.actors();
            this.leases = ledger.leases();
            this.journal = ledger.journal();
            this.mailbox = ledger.mailbox();
            this.workspaces = new Workspaces(config.dataDirectory());
            this.runs = new AssignmentRunner(
                    ledger.runs(),
                    leases,
                    grants,
                    providers,
                    this.workspaces,
                    config.defaultTtl(),
                    config.heartbeat() ? config.heartbeatInterval() : null,
                    config.allowedCommands());
            this.supervisor =
                    new EngineSupervisor(ledger.recovery(), mailbox, this.workspaces, config.clock(), identity);
        } catch (RuntimeException e) {
            ledger.close();
            throw e;
        }
        if (config.heartbeat()) {
            heartbeatThread = Executors.newSingleThreadScheduledExecutor(r -> {
                Thread t =
                        new Thread(r, "sovereign-heartbeat-" + identity.substring(0, Math.min(13, identity.length())));
                t.setDaemon(true);
                return t;
            });
            long every = config.heartbeatInterval().toMillis();
            heartbeatThread.scheduleWithFixedDelay(this::scheduledBeat, every, every, TimeUnit.MILLISECONDS);
        } else {
            heartbeatThread = null;
        }
    }

    /**
     * Opens (creating and migrating when needed) the database named by {@code config}. Only a path where no file exists
     * becomes a new ledger; an existing empty file, or any file that is not a ledger, is refused and left as it was.
     */
    public static Engine open(EngineConfig config) {
        return new Engine(config, true);
    }

    /** Opens an existing database; a missing file is a {@link dev.sovereign.engine.base.StorageException}, not a new file. */
    public static Engine openExisting(EngineConfig config) {
        return new Engine(config, false);
    }

    /** The counts {@code status} shows, read in one snapshot of this engine's ledger. */
    public LedgerSummary summary() {
        return ledger.summary();
    }

    /** Opens {@code database} with the default configuration. */
    public static Engine open(Path database) {
        return open(EngineConfig.forDatabase(database).build());
    }

    /**
     * Whether this ledger was created as a lab sandbox (a durable mark written with its schema, which
     * no write can change). Only there does the lab's broken-fence mode
     * ({@link Runs#FAULT_IGNORE_TERMINAL_FENCE}) take effect; on any other ledger it is ignored and the
     * database refuses an unfenced terminal write by itself.
     */
    public boolean isLabSandbox() {
        return ledger.isLabSandbox();
    }

    public EngineConfig config() {
        return config;
    }

    /** This process's fencing identity, {@code proc_<uuid>}. */
    public String processIdentity() {
        return identity;
    }

    public Actors actors() {
        return actors;
    }

    public ActorLeases leases() {
        return leases;
    }

    public Journal journal() {
        return journal;
    }

    public Processes processes() {
        return processes;
    }

    /** The compare-and-set mailbox; claims default to {@link EngineConfig#defaultTtl()}. */
    public Mailbox mailbox() {
        return mailbox;
    }

    /** Assignments, execution attempts and receipts; {@code runAssignment} runs one (contract §6). */
    public Runs runs() {
        return runs;
    }

    /** The provider kinds this engine knows; embedders register their own here. */
    public Providers providers() {
        return providers;
    }

    /** The supervisor (contract §10): {@code tick()} on demand, or wrap it in a {@code SupervisorLoop}. */
    public Supervisor supervisor() {
        return supervisor;
    }

    /**
     * An operator action: marks another process (or this one) stopped, as its own clean close would, and
     * journals it as {@code PROCESS_STOPPED} under this engine's identity. Its leases and attempts are NOT
     * released: they expire on their own, and the fence keeps a stale holder out of anything it lost.
     *
     * @return the process as it was before the stop
     * @throws dev.sovereign.engine.base.Refusal {@code unknown_process}, {@code process_stopped}
     */
    public ProcessInfo stopProcess(String identity) {
        return ledger.stopProcess(identity);
    }

    /**
     * An operator action, {@code sovereign fence bump} (decision 0604): starts a new epoch of the token counter, above
     * every token the ledger has issued or any engine reported seeing, and voids every lease (their holders must
     * acquire them again; attempts and claims of older epochs can no longer finish and expire). Run it after a
     * PostgreSQL ledger was restored with {@code pg_restore}, or when an engine found the ledger gone backwards. On
     * PostgreSQL only the ledger's owner may run it.
     *
     * @param aboveEpoch an epoch the new one must exceed too (the epoch of a ledger this one replaced), or -1
     */
    public EpochStart bumpFence(long aboveEpoch) {
        return ledger.bumpFence(aboveEpoch);
    }

    /**
     * Whether a worker login may add actors ({@link dev.sovereign.engine.actor.Actors#ensure}); always on a ledger
     * without logins (SQLite). See decision 0116.
     */
    public boolean workersMayAddActors() {
        return ledger.workersMayAddActors();
    }

    /**
     * {@code sovereign actor workers-may-add on|off}: the ledger owner's switch for worker logins adding actors. On
     * PostgreSQL only the owner may throw it (another login is refused, as a storage error naming the owner); a
     * ledger without logins refuses {@code invalid_argument}: there is nothing to switch.
     */
    public void setWorkersMayAddActors(boolean allow) {
        ledger.setWorkersMayAddActors(allow);
    }

    /**
     * The ledger's state as numbers, read in one read transaction: live and expired leases, grants, takeovers and
     * refusals by category, runs by state, lost workers, processes, rows per table, size on disk, the oldest event and
     * the journal's growth (decision 0319). What {@code sovereign metrics} gives Prometheus, for an embedding program.
     */
    public LedgerMetrics metrics() {
        return ledger.metrics();
    }

    /**
     * The ledger's retention policy and its pruning watermark (decision 0018): how long the journal, the supervisor's
     * ticks and the contention counts are kept, and how far pruning went. One row in the ledger, so every process agrees.
     */
    public Retention retention() {
        return ledger.retention();
    }

    /**
     * Sets how long the journal is kept, for every process of this ledger (decision 0018); refused
     * ({@code invalid_argument}) below an hour or above 100 years. On PostgreSQL it takes the operator role.
     */
    public Retention keepJournalFor(Duration keep) {
        return keep(Retention.Kind.JOURNAL, keep);
    }

    /**
     * Sets how long rows of {@code kind} are kept, for every process of this ledger (decisions 0018 and 0020); refused
     * ({@code invalid_argument}) below an hour or above 100 years. On PostgreSQL it takes the operator role.
     */
    public Retention keep(Retention.Kind kind, Duration keep) {
        RetentionRules.requireKeep(kind, keep);
        return ledger.keep(kind, keep);
    }

    /**
     * Prunes what the retention policy lets go (decisions 0018 and 0020): journal rows below the watermark the
     * database checks and that no live row needs, supervisor ticks and contention counts older than the policy, then
     * finished runs (with their attempts, receipts and, for a {@code temporary} workspace, their run folder on this
     * host), finished messages and stopped processes that hold nothing, each older than its kind's policy, in short
     * write transactions of at most {@code options.batchRows()} rows, so workers keep writing in between. With
     * {@code options.dryRun()} it only counts. A prune stopped by {@code options.maxBatches()} is gone on with by the
     * next prune of this engine, from where it stopped (decision 0021). Tokens are untouched: the counter is never
     * pruned.
     */
    public PruneReport prune(PruneOptions options) {
        return ledger.prune(options, (assignment, policy) -> {
            try {
                return workspaces.removePruned(assignment, policy);
            } catch (IOException | RuntimeException e) {
                System.getLogger(Engine.class.getName())
                        .log(System.Logger.Level.WARNING, "the pruned run " + assignment + "'s folder stays: " + e);
                return false;
            }
        });
    }

    /** Registers a listener told at once when a renewal finds a lease or attempt lost. */
    public void addGrantLossListener(GrantLossListener listener) {
        grants.addListener(listener);
    }

    public void removeGrantLossListener(GrantLossListener listener) {
        grants.removeListener(listener);
    }

    /**
     * Beats once now: one transaction renewing every lease and attempt this instance holds. Tests
     * with a settable clock call this instead of waiting for the heartbeat thread.
     */
    public Beat heartbeatNow() {
        beating = true;
        return ledger.beat();
    }

    /** The last failure of the background heartbeat, or null if its last beat succeeded. */
    public RuntimeException lastHeartbeatFailure() {
        return lastHeartbeatFailure;
    }

    /**
     * Suspends (or resumes) the background heartbeat, as a cooperative stand-in for SIGSTOP on
     * platforms without it: while suspended, this process's leases and attempts are not renewed and
     * expire like a paused process's would.
     */
    public void suspendHeartbeat(boolean suspended) {
        this.heartbeatSuspended = suspended;
    }

    private void scheduledBeat() {
        if (closed || heartbeatSuspended) {
            return;
        }
        if (!beating) {
            if (grants.leases().isEmpty() && grants.attempts().isEmpty()) {
                return; // registered lazily and holding nothing: nothing to keep alive, and no row to stamp yet
            }
            beating = true;
        }
        try {
            ledger.beat();
            lastHeartbeatFailure = null;
        } catch (RuntimeException e) {
            // Busy past the bound or closed under us: the next beat tries again; if leases expire
            // meanwhile, that beat finds them lost and tells the listeners.
            lastHeartbeatFailure = e;
        }
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        if (heartbeatThread != null) {
            heartbeatThread.shutdownNow();
            try {
                heartbeatThread.awaitTermination(5, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        // Runs still in progress lose their attempts now: each one's provider is cancelled (a command's
        // process group is stopped) instead of working on for a process that is going away.
        grants.attempts().forEach(grants::attemptLost);
        try {
            if (config.actAs().isEmpty()) {
                for (Lease l : grants.leases()) {
                    try {
                        leases.release(l.actor(), l.token());
                    } catch (RuntimeException ignored) {
                        // Best effort: an unreleased lease simply expires.
                    }
                }
                ledger.markStopped();
            }
        } catch (RuntimeException ignored) {
            // Closing must not fail; a process not marked stopped turns stale by its heartbeat.
        } finally {
            ledger.close();
        }
    }
}
