package dev.sovereign.engine.internal.sqlite;

import dev.sovereign.engine.internal.jdbc.JdbcMailbox;
import dev.sovereign.engine.internal.jdbc.JdbcJournal;
import dev.sovereign.engine.internal.jdbc.JdbcActors;
import dev.sovereign.engine.internal.jdbc.JdbcLeases;
import dev.sovereign.engine.internal.jdbc.JdbcProcesses;
import dev.sovereign.engine.internal.jdbc.JdbcRuns;
import dev.sovereign.engine.internal.jdbc.JdbcTx;
import dev.sovereign.engine.internal.jdbc.JdbcHeartbeat;
import dev.sovereign.engine.internal.jdbc.JdbcRecovery;
import dev.sovereign.engine.base.EngineConfig;
import dev.sovereign.engine.actor.Actor;
import dev.sovereign.engine.admin.LedgerSummary;
import dev.sovereign.engine.lease.Lease;
import dev.sovereign.engine.lease.Beat;
import dev.sovereign.engine.run.Runs;
import dev.sovereign.engine.spi.Grants;
import dev.sovereign.engine.spi.Ledger;
import dev.sovereign.engine.spi.RecoveryStore;
import dev.sovereign.engine.spi.RunStore;
import java.sql.SQLException;
import java.util.Optional;

/**
 * One SQLite file opened for one engine: the {@link Database} door and the stores over it, all writing
 * under this process's identity. Thread-safe (the {@link Database} serialises access).
 */
public final class SqliteLedger implements Ledger {
    private final Database db;
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

    SqliteLedger(EngineConfig config, Grants grants, boolean createIfMissing) {
        this.grants = grants;
        this.db = Database.open(config, createIfMissing);
        try {
            this.processes = new JdbcProcesses(db);
            this.identity = processes.register(config);
            db.setProcessIdentity(identity);
            this.actors = new JdbcActors(db);
            this.leases = new JdbcLeases(db, grants, SqliteLeaseWrites.INSTANCE);
            this.journal = new JdbcJournal(db);
            this.heartbeat = new JdbcHeartbeat(db, grants, SqliteStoreHooks.INSTANCE, SqliteStoreHooks.INSTANCE);
            // BEGIN IMMEDIATE holds the file's one write lock: a lease needs no shared read, a lost compare-and-set
            // under it is a bug, rowid orders messages sent within one millisecond, and an idle sweep only reads.
            this.mailbox = new JdbcMailbox(db, grants, config.defaultTtl(), new JdbcMailbox.Hooks(
                    JdbcActors::requireActor, JdbcLeases::currentIn, JdbcLeases::currentIn,
                    what -> new IllegalStateException(what + " changed under the write lock"), "rowid", true));
            // The lab's broken-fence switch: the run store honours it only on a ledger created as a lab sandbox.
            this.runs = runStore(db, grants, Boolean.getBoolean(Runs.FAULT_IGNORE_TERMINAL_FENCE));
            this.recovery = new JdbcRecovery(db, SqliteStoreHooks.INSTANCE, SqliteStoreHooks.INSTANCE);
        } catch (RuntimeException e) {
            db.close();
            throw e;
        }
    }

    /** What the run store takes from this backend: its actor and lease reads; nothing changes under the write lock. */
    private static final JdbcRuns.Hooks RUN_HOOKS = new JdbcRuns.Hooks() {
        @Override
        public Actor requireActor(JdbcTx tx, String id) throws SQLException {
            return JdbcActors.requireActor(tx, id);
        }

        @Override
        public Optional<Lease> lease(JdbcTx tx, String actor) throws SQLException {
            return JdbcLeases.currentIn(tx, actor);
        }

        @Override
        public Optional<Lease> leaseReliedOn(JdbcTx tx, String actor) throws SQLException {
            return JdbcLeases.currentIn(tx, actor); // BEGIN IMMEDIATE already holds the file's one write lock
        }

        @Override
        public RuntimeException changedUnderLock(String what) {
            return new IllegalStateException(what + " under the write lock");
        }
    };

    /** A run's lease writes in the run's own transactions: SQLite writes a run in two, not four (decision 0508). */
    private static final JdbcRuns.LeaseWrites RUN_LEASE_WRITES = new JdbcRuns.LeaseWrites() {
        @Override
        public Lease acquireOrRenewKeepingTtlIn(JdbcTx tx, String actor, long ttlMs) throws SQLException {
            return JdbcLeases.acquireOrRenewKeepingTtlIn(tx, SqliteLeaseWrites.INSTANCE, actor, ttlMs);
        }

        @Override
        public boolean releaseIn(JdbcTx tx, String actor, long token) throws SQLException {
            return JdbcLeases.releaseIn(tx, SqliteLeaseWrites.INSTANCE, actor, token).released();
        }
    };

    /**
     * The run store on {@code db}, tracking the leases its runs take in {@code grants}. {@code ignoreTerminalFence}
     * is the lab's broken-fence switch, honoured only on a ledger created as a lab sandbox.
     */
    public static JdbcRuns runStore(Database db, Grants grants, boolean ignoreTerminalFence) {
        return new JdbcRuns(db, RUN_HOOKS, RUN_LEASE_WRITES, grants, ignoreTerminalFence);
    }

    /** A run store for a test that calls {@code finish} or {@code startAttempt} by hand, tracking no grants. */
    public static JdbcRuns runStore(Database db, boolean ignoreTerminalFence) {
        return runStore(db, new Grants(), ignoreTerminalFence);
    }

    /** The storage door, for this backend's own tools and tests. */
    public Database database() {
        return db;
    }

    /** What the engine believes it holds (the heartbeat renews these), for this backend's tests. */
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
    public dev.sovereign.engine.process.ProcessInfo stopProcess(String identity) {
        return processes.stop(identity);
    }

    @Override
    public dev.sovereign.engine.admin.EpochStart bumpFence(long aboveEpoch) {
        return db.write(tx -> SqliteLedgerHistory.startEpoch(tx, "bump", aboveEpoch, null,
                "sovereign fence bump by process " + tx.processIdentity()));
    }

    @Override
    public LedgerSummary summary() {
        return SqliteLedgerSummary.read(db);
    }

    @Override
    public boolean isLabSandbox() {
        return db.isLabSandbox();
    }

    @Override
    public void close() {
        db.close();
    }
}
