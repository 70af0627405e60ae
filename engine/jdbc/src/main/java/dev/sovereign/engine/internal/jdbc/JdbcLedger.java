package dev.sovereign.engine.internal.jdbc;

import dev.sovereign.engine.admin.LedgerMetrics;
import dev.sovereign.engine.admin.PruneOptions;
import dev.sovereign.engine.admin.PruneReport;
import dev.sovereign.engine.admin.Retention;
import dev.sovereign.engine.base.EngineConfig;
import dev.sovereign.engine.lease.Beat;
import dev.sovereign.engine.process.ProcessInfo;
import dev.sovereign.engine.run.Runs;
import dev.sovereign.engine.spi.Grants;
import dev.sovereign.engine.spi.Ledger;
import dev.sovereign.engine.spi.RecoveryStore;
import dev.sovereign.engine.spi.RunStore;

/**
 * One ledger opened for one engine: a backend's door and the shared stores over it, all writing under this
 * process's identity. A backend subclasses it with its door and the few things only it knows ({@link Parts}), and
 * adds what is its own (the fence bump's epoch, the summary, closing). Thread-safe (the door serialises access).
 */
public abstract class JdbcLedger implements Ledger {
    /**
     * What the shared stores take from a backend.
     *
     * @param leaseWrites        how a lease row is granted, renewed and released where the backend differs (decision
     *                           0506's one-call functions, V0008's release by the schema's trigger)
     * @param runsInTwoTransactions whether a run's lease goes with its attempt and its release with its terminal write
     *                           (decision 0508: SQLite, where every write takes the file's lock)
     * @param storeHooks         the heartbeat's and the recovery's locks and stamps
     * @param mailbox            the mailbox's order of sending and whether its sweep looks before it writes
     * @param runWrites          an attempt's start and a run's terminal write as one call, where the backend has one
     */
    public record Parts(
            JdbcLeases.LeaseWrites leaseWrites,
            boolean runsInTwoTransactions,
            StoreHooks storeHooks,
            JdbcMailbox.Hooks mailbox,
            JdbcRuns.Writes runWrites) {}

    /** The heartbeat's and the recovery's hooks, which one backend class gives both. */
    public interface StoreHooks extends JdbcHeartbeat.Hooks, JdbcRecovery.Hooks {}

    private final Transactions db;
    private final Grants grants;
    private final String identity;
    private final JdbcActors actors;
    private final JdbcLeases leases;
    private final JdbcJournal journal;
    private final JdbcProcesses processes;
    private final JdbcMailbox mailbox;
    private final JdbcRuns runs;
    private final JdbcRecovery recovery;
    private final JdbcHeartbeat heartbeat;
    private final JdbcRetention retention;

    /** Registers this process (or claims {@code config.actAs()}) and builds the stores; the caller closes {@code db}. */
    protected JdbcLedger(Transactions db, EngineConfig config, Grants grants, Parts parts) {
        this.db = db;
        this.grants = grants;
        this.processes = new JdbcProcesses(db);
        this.identity = processes.register(config);
        db.setProcessIdentity(identity);
        this.actors = new JdbcActors(db);
        this.leases = new JdbcLeases(db, grants, parts.leaseWrites());
        this.journal = new JdbcJournal(db);
        this.retention = new JdbcRetention(db);
        this.heartbeat = new JdbcHeartbeat(db, grants, parts.storeHooks());
        this.mailbox = new JdbcMailbox(db, grants, config.defaultTtl(), parts.mailbox());
        // The lab's broken-fence switch: the run store honours it only on a ledger created as a lab sandbox.
        this.runs = runStore(db, parts, grants, Boolean.getBoolean(Runs.FAULT_IGNORE_TERMINAL_FENCE));
        this.recovery = new JdbcRecovery(db, parts.storeHooks());
    }

    /**
     * The run store a backend's {@code parts} make on {@code db}, tracking the leases its runs take in {@code grants}
     * when it writes a run in two transactions. {@code ignoreTerminalFence} is the lab's broken-fence switch, honoured
     * only on a ledger created as a lab sandbox.
     */
    public static JdbcRuns runStore(Transactions db, Parts parts, Grants grants, boolean ignoreTerminalFence) {
        return parts.runsInTwoTransactions()
                ? new JdbcRuns(db, parts.leaseWrites(), parts.runWrites(), grants, ignoreTerminalFence)
                : new JdbcRuns(db, parts.runWrites(), ignoreTerminalFence);
    }

    /** What the engine believes it holds (the heartbeat renews these), for the backends' tests. */
    public Grants grants() {
        return grants;
    }

    @Override
    public String processIdentity() {
        return identity;
    }

    @Override
    public JdbcActors actors() {
        return actors;
    }

    @Override
    public JdbcLeases leases() {
        return leases;
    }

    @Override
    public JdbcJournal journal() {
        return journal;
    }

    @Override
    public JdbcProcesses processes() {
        return processes;
    }

    @Override
    public JdbcMailbox mailbox() {
        return mailbox;
    }

    @Override
    public RunStore runs() {
        return runs;
    }

    @Override
    public RecoveryStore recovery() {
        return recovery;
    }

    @Override
    public Beat beat() {
        return heartbeat.beat();
    }

    @Override
    public void markStopped() {
        processes.markStopped(identity);
    }

    @Override
    public ProcessInfo stopProcess(String identity) {
        return processes.stop(identity);
    }

    @Override
    public LedgerMetrics metrics() {
        return db.read(JdbcLedgerMetrics::read);
    }

    @Override
    public Retention retention() {
        return retention.read();
    }

    @Override
    public Retention keep(Retention.Kind kind, java.time.Duration keep) {
        return retention.keep(kind, keep);
    }

    @Override
    public PruneReport prune(PruneOptions options, java.util.function.BiPredicate<String, String> prunedRun) {
        return retention.prune(options, prunedRun);
    }

    @Override
    public boolean isLabSandbox() {
        return db.isLabSandbox();
    }
}
