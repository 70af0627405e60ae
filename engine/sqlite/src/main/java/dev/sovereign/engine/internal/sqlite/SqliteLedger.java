package dev.sovereign.engine.internal.sqlite;

import dev.sovereign.engine.admin.EpochStart;
import dev.sovereign.engine.admin.LedgerSummary;
import dev.sovereign.engine.base.EngineConfig;
import dev.sovereign.engine.internal.jdbc.JdbcLedger;
import dev.sovereign.engine.internal.jdbc.JdbcMailbox;
import dev.sovereign.engine.internal.jdbc.JdbcRuns;
import dev.sovereign.engine.spi.Grants;

/**
 * One SQLite file opened for one engine: the {@link Database} door and the shared stores over it, all writing under
 * this process's identity. Thread-safe (the {@link Database} serialises access).
 */
public final class SqliteLedger extends JdbcLedger {
    /**
     * What SQLite gives the shared stores: a release the schema's trigger journals (V0008), a run in two transactions
     * (decision 0508), no row locks ({@code BEGIN IMMEDIATE} holds the file's one write lock), {@code rowid} to order
     * messages sent within one millisecond, and a sweep that looks before it writes so an idle tick takes no lock.
     */
    static final Parts PARTS = new Parts(
            SqliteLeaseWrites.INSTANCE,
            true,
            SqliteStoreHooks.INSTANCE,
            new JdbcMailbox.Hooks("rowid", true, JdbcMailbox.Writes.NONE),
            JdbcRuns.Writes.NONE);

    private final Database db;

    private SqliteLedger(Database db, EngineConfig config, Grants grants) {
        super(db, config, grants, PARTS);
        this.db = db;
    }

    /** Opens the file and the stores over it; the file is closed again when building them fails. */
    static SqliteLedger open(EngineConfig config, Grants grants, boolean createIfMissing) {
        Database db = Database.open(config, createIfMissing);
        try {
            return new SqliteLedger(db, config, grants);
        } catch (RuntimeException e) {
            db.close();
            throw e;
        }
    }

    /** A run store for a test that calls {@code finish} or {@code startAttempt} by hand, tracking no grants. */
    public static JdbcRuns runStore(Database db, boolean ignoreTerminalFence) {
        return runStore(db, PARTS, new Grants(), ignoreTerminalFence);
    }

    /** The storage door, for this backend's own tools and tests. */
    public Database database() {
        return db;
    }

    @Override
    public EpochStart bumpFence(long aboveEpoch) {
        return db.write(tx -> SqliteLedgerHistory.startEpoch(
                tx, "bump", aboveEpoch, null, "sovereign fence bump by process " + tx.processIdentity()));
    }

    @Override
    public LedgerSummary summary() {
        return SqliteLedgerSummary.read(db);
    }

    @Override
    public void close() {
        db.close();
    }
}
