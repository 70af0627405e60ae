package dev.sovereign.engine.internal.postgres;

import dev.sovereign.engine.admin.EpochStart;
import dev.sovereign.engine.admin.LedgerSummary;
import dev.sovereign.engine.base.EngineConfig;
import dev.sovereign.engine.base.StorageException;
import dev.sovereign.engine.internal.jdbc.JdbcLedger;
import dev.sovereign.engine.internal.jdbc.JdbcMailbox;
import dev.sovereign.engine.internal.jdbc.JdbcRuns;
import dev.sovereign.engine.spi.Grants;

/**
 * One PostgreSQL ledger opened for one engine: the {@link PgDatabase} door (one connection) and the shared stores
 * over it, all writing under this process's identity. Thread-safe (the {@link PgDatabase} serialises this engine's
 * access; other engines write at the same time through their own connections, and the row locks, the token counter
 * and the guards keep them apart).
 */
public final class PgLedger extends JdbcLedger {
    private final PgDatabase db;

    private PgLedger(PgDatabase db, EngineConfig config, Grants grants) {
        super(db, config, grants, parts(db));
        this.db = db;
    }

    /**
     * What PostgreSQL gives the shared stores: the one-call lease, mailbox and run functions (decisions 0506, 0920
     * and 0921), a run in four transactions, the row locks of decisions 0900 and 0913 and the session stamp its guard makes, {@code sent_seq}
     * to order messages sent within one millisecond, and a sweep that goes straight to its one write (it locks only
     * the expired rows).
     */
    static Parts parts(PgDatabase db) {
        return new Parts(
                PgLeaseWrites.INSTANCE,
                false,
                new PgStoreHooks(db),
                new JdbcMailbox.Hooks("sent_seq", false, PgMailboxWrites.INSTANCE),
                PgRunWrites.INSTANCE);
    }

    /** Opens the ledger and the stores over it; the connection is closed again when building them fails. */
    static PgLedger open(EngineConfig config, Grants grants, boolean createIfMissing) {
        PgDatabase db = PgDatabase.open(config, createIfMissing);
        try {
            return new PgLedger(db, config, grants);
        } catch (RuntimeException e) {
            db.close();
            throw e;
        }
    }

    /** A run store for a test that calls {@code finish} or {@code startAttempt} by hand; it writes a run in four. */
    public static JdbcRuns runStore(PgDatabase db, boolean ignoreTerminalFence) {
        return runStore(db, parts(db), new Grants(), ignoreTerminalFence);
    }

    /** The storage door, for this backend's own tools and tests. */
    public PgDatabase database() {
        return db;
    }

    /** The ledger's worker group role (decision 0902's names), as SQL; the role may not exist on an old ledger. */
    private static final String WORKER_ROLE = "'sovereign_' || current_database() || CASE WHEN current_schema() ="
            + " 'public' THEN '' ELSE '_' || current_schema() END || '_worker'";

    /** Whether the worker role holds INSERT on {@code actors}: granted by the owner (decision 0116). */
    @Override
    public boolean workersMayAddActors() {
        return db.read(tx -> tx.scalarLong("SELECT CASE WHEN EXISTS (SELECT 1 FROM pg_roles WHERE rolname = "
                        + WORKER_ROLE + ") AND has_table_privilege(" + WORKER_ROLE + ", 'actors', 'INSERT') THEN 1"
                        + " ELSE 0 END"))
                == 1;
    }

    /**
     * Grants or revokes INSERT on {@code actors} to the worker role. PostgreSQL only warns when a login without the
     * right grants or revokes ("no privileges were granted"), so the privilege is read again after it, in the same
     * transaction, and a switch that did not move is refused with the owner named.
     */
    @Override
    public void setWorkersMayAddActors(boolean allow) {
        db.write(tx -> {
            tx.update("DO $$ BEGIN EXECUTE format('"
                    + (allow ? "GRANT INSERT ON actors TO %I" : "REVOKE INSERT ON" + " actors FROM %I") + "', "
                    + WORKER_ROLE + "); END $$");
            boolean now = tx.scalarLong("SELECT CASE WHEN has_table_privilege(" + WORKER_ROLE
                            + ", 'actors', 'INSERT') THEN 1 ELSE 0 END")
                    == 1;
            if (now != allow) {
                throw new StorageException(
                        StorageException.Problem.READ_ONLY,
                        null,
                        "Only the owner of the PostgreSQL ledger " + db.location() + " may "
                                + (allow ? "let" : "stop") + " worker logins "
                                + (allow ? "add" : "adding") + " actors; this login is not the owner.",
                        null);
            }
            return null;
        });
    }

    @Override
    public EpochStart bumpFence(long aboveEpoch) {
        return db.write(tx -> PgLedgerHistory.startEpoch(
                tx, "bump", aboveEpoch, "sovereign fence bump by process " + tx.processIdentity()));
    }

    @Override
    public LedgerSummary summary() {
        return PgLedgerSummary.read(db);
    }

    @Override
    public void close() {
        db.close();
    }
}
