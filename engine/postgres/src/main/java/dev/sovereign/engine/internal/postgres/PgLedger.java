package dev.sovereign.engine.internal.postgres;

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
 * One PostgreSQL ledger opened for one engine: the {@link PgDatabase} door (one connection) and the stores
 * over it, all writing under this process's identity. Thread-safe (the {@link PgDatabase} serialises this
 * engine's access; other engines write at the same time through their own connections, and the row locks,
 * the token counter and the guards keep them apart).
 */
public final class PgLedger implements Ledger {
    private final PgDatabase db;
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

    PgLedger(EngineConfig config, Grants grants, boolean createIfMissing) {
        this.grants = grants;
        this.db = PgDatabase.open(config, createIfMissing);
        try {
            this.processes = new JdbcProcesses(db);
            this.identity = processes.register(config);
            db.setProcessIdentity(identity);
            this.actors = new JdbcActors(db);
            this.leases = new JdbcLeases(db, grants, PgLeaseWrites.INSTANCE);
            this.journal = new JdbcJournal(db);
            PgStoreHooks hooks = new PgStoreHooks(db);
            this.heartbeat = new JdbcHeartbeat(db, grants, hooks, hooks);
            // Row locks in decision 0900's order: a claim or finish reads the recipient's lease FOR SHARE, a lost
            // compare-and-set under the locks is a conflict the door retries whole, sent_seq orders messages sent
            // within one millisecond, and the sweep goes straight to its one write.
            this.mailbox = new JdbcMailbox(db, grants, config.defaultTtl(), new JdbcMailbox.Hooks(
                    JdbcActors::requireActor, JdbcLeases::currentIn, JdbcLeases::sharedIn,
                    what -> new PgConflict(what + " changed under its row lock"), "sent_seq", false));
            // The lab's broken-fence switch: the run store honours it only on a ledger created as a lab sandbox.
            this.runs = runStore(db, Boolean.getBoolean(Runs.FAULT_IGNORE_TERMINAL_FENCE));
            this.recovery = new JdbcRecovery(db, hooks, hooks);
        } catch (RuntimeException e) {
            db.close();
            throw e;
        }
    }

    @Override
    public dev.sovereign.engine.admin.EpochStart bumpFence(long aboveEpoch) {
        return db.write(tx -> PgLedgerHistory.startEpoch(tx, "bump", aboveEpoch,
                "sovereign fence bump by process " + tx.processIdentity()));
    }

    /**
     * What the run store takes from this backend: its actor and lease reads (the lease a write relies on locked FOR
     * SHARE, decision 0900), and a conflict {@link PgDatabase#write} runs again for a compare-and-set that lost a race
     * the lock order did not exclude.
     */
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
            return JdbcLeases.sharedIn(tx, actor);
        }

        @Override
        public RuntimeException changedUnderLock(String what) {
            return new PgConflict(what + " under its row lock");
        }
    };

    /**
     * The run store on {@code db}; it writes a run in four transactions (decision 0508). {@code ignoreTerminalFence}
     * is the lab's broken-fence switch, honoured only on a ledger created as a lab sandbox.
     */
    public static JdbcRuns runStore(PgDatabase db, boolean ignoreTerminalFence) {
        return new JdbcRuns(db, RUN_HOOKS, ignoreTerminalFence);
    }

    /** The storage door, for this backend's own tools and tests. */
    public PgDatabase database() {
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
    public LedgerSummary summary() {
        return PgLedgerSummary.read(db);
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
