package dev.sovereign.engine.internal.postgres;

import dev.sovereign.engine.internal.jdbc.JdbcLeases;
import dev.sovereign.engine.internal.jdbc.JdbcProcesses;
import dev.sovereign.engine.base.EngineConfig;
import dev.sovereign.engine.admin.LedgerSummary;
import dev.sovereign.engine.lease.Beat;
import dev.sovereign.engine.run.Runs;
import dev.sovereign.engine.spi.Grants;
import dev.sovereign.engine.spi.Ledger;
import dev.sovereign.engine.spi.RecoveryStore;
import dev.sovereign.engine.spi.RunStore;

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
    private final PgActors actors;
    private final JdbcLeases leases;
    private final PgJournal journal;
    private final JdbcProcesses processes;
    private final PgMailbox mailbox;
    private final PgRuns runs;
    private final PgRecovery recovery;
    private final PgHeartbeat heartbeat;

    PgLedger(EngineConfig config, Grants grants, boolean createIfMissing) {
        this.grants = grants;
        this.db = PgDatabase.open(config, createIfMissing);
        try {
            this.processes = new JdbcProcesses(db);
            this.identity = processes.register(config);
            db.setProcessIdentity(identity);
            this.actors = new PgActors(db);
            this.leases = new JdbcLeases(db, grants, PgLeaseWrites.INSTANCE);
            this.journal = new PgJournal(db);
            this.heartbeat = new PgHeartbeat(db, grants);
            this.mailbox = new PgMailbox(db, grants, config.defaultTtl());
            // The lab's broken-fence switch: PgRuns honours it only on a ledger created as a lab sandbox.
            this.runs = new PgRuns(db, Boolean.getBoolean(Runs.FAULT_IGNORE_TERMINAL_FENCE));
            this.recovery = new PgRecovery(db);
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
    public PgActors actors() {
        return actors;
    }

    @Override
    public JdbcLeases leases() {
        return leases;
    }

    @Override
    public PgJournal journal() {
        return journal;
    }

    @Override
    public JdbcProcesses processes() {
        return processes;
    }

    @Override
    public PgMailbox mailbox() {
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
