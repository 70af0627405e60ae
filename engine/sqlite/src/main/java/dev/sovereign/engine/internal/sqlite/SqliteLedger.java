package dev.sovereign.engine.internal.sqlite;

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
 * One SQLite file opened for one engine: the {@link Database} door and the stores over it, all writing
 * under this process's identity. Thread-safe (the {@link Database} serialises access).
 */
public final class SqliteLedger implements Ledger {
    private final Database db;
    private final Grants grants;
    private final String identity;
    private final SqliteActors actors;
    private final JdbcLeases leases;
    private final SqliteJournal journal;
    private final JdbcProcesses processes;
    private final SqliteMailbox mailbox;
    private final SqliteRuns runs;
    private final SqliteSupervisor recovery;
    private final Heartbeat heartbeat;

    SqliteLedger(EngineConfig config, Grants grants, boolean createIfMissing) {
        this.grants = grants;
        this.db = Database.open(config, createIfMissing);
        try {
            this.processes = new JdbcProcesses(db);
            this.identity = processes.register(config);
            db.setProcessIdentity(identity);
            this.actors = new SqliteActors(db);
            this.leases = new JdbcLeases(db, grants, SqliteLeaseWrites.INSTANCE);
            this.journal = new SqliteJournal(db);
            this.heartbeat = new Heartbeat(db, grants);
            this.mailbox = new SqliteMailbox(db, grants, config.defaultTtl());
            // The lab's broken-fence switch: SqliteRuns honours it only on a ledger created as a lab sandbox.
            this.runs = new SqliteRuns(db, grants, Boolean.getBoolean(Runs.FAULT_IGNORE_TERMINAL_FENCE));
            this.recovery = new SqliteSupervisor(db);
        } catch (RuntimeException e) {
            db.close();
            throw e;
        }
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
    public SqliteActors actors() {
        return actors;
    }

    @Override
    public JdbcLeases leases() {
        return leases;
    }

    @Override
    public SqliteJournal journal() {
        return journal;
    }

    @Override
    public JdbcProcesses processes() {
        return processes;
    }

    @Override
    public SqliteMailbox mailbox() {
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
