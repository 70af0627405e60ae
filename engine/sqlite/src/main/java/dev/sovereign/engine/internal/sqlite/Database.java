package dev.sovereign.engine.internal.sqlite;

import dev.sovereign.engine.base.Durability;
import dev.sovereign.engine.base.EngineConfig;
import dev.sovereign.engine.base.FencingTokens;
import dev.sovereign.engine.base.OwnerOnly;
import dev.sovereign.engine.base.Refusal;
import dev.sovereign.engine.base.StorageException;
import dev.sovereign.engine.base.StorageException.Problem;
import dev.sovereign.engine.internal.jdbc.IdentityClaim;
import dev.sovereign.engine.internal.jdbc.JdbcTx;
import dev.sovereign.engine.internal.jdbc.Rejections;
import dev.sovereign.engine.internal.jdbc.Transactions;
import dev.sovereign.engine.internal.jdbc.TxWork;
import dev.sovereign.engine.internal.jdbc.WentBackwardsGuard;
import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import org.sqlite.SQLiteConfig;
import org.sqlite.SQLiteException;

/**
 * The one door to the database file. Owns a single read-write connection, guarded by a fair lock
 * so the heartbeat thread and callers take turns; every write runs in {@link #write} as ONE
 * {@code BEGIN IMMEDIATE} transaction whose {@code now} is read after the write lock is held.
 *
 * <p>Busy: SQLite's own busy handler waits briefly ({@link EngineConfig#sqliteBusyTimeout()}, 50 ms by
 * default); past that the whole transaction is retried after a short random pause
 * ({@link EngineConfig#busyRetryPauseMin()}..{@link EngineConfig#busyRetryPauseMax()}), until the
 * configured bound, then a
 * {@link StorageException} naming the file. Random pauses keep one process from starving the others
 * the way SQLite's growing sleeps do.
 *
 * <p>Refusals thrown by a transaction body roll it back; a fencing refusal is then journalled as a
 * {@code REJECTED} event in its own transaction, so other processes see it.
 */
public final class Database implements Transactions, AutoCloseable {
    /** 'SOVR': marks a file as ours in {@code PRAGMA application_id}. */
    public static final int APPLICATION_ID = 0x534F5652;
    /** Serialises creating a database file and opening connections in this JVM (see createOwnerOnly). */
    static final Object CREATING = new Object();

    static final int DEFAULT_SQLITE_BUSY_TIMEOUT_MS = 50;

    private final Path file;
    private final Clock clock;
    private final long busyBoundMs;
    private final int sqliteBusyTimeoutMs;
    private final long pauseMinNanos;
    private final long pauseMaxNanos;
    private final Durability durability;
    private final Connection connection;
    private final StatementCache statements;
    private final ReentrantLock lock = new ReentrantLock(true);
    /** Copies committed WAL pages into the file between the callers' commits (decision 0513). */
    private final BackgroundCheckpoints checkpoints;

    private final boolean labSandboxRequested;
    private volatile boolean labSandbox;
    private volatile String processIdentity;
    /** Who acts as a borrowed identity ({@code --process}): see {@link #setClaim}; null for an own identity. */
    private volatile IdentityClaim claim;
    /** Whether the claim's PROCESS_STARTED event is committed; guarded by {@link #lock}. */
    private boolean claimJournalled;
    /**
     * The insert of this process's row, run at the start of the first write that commits, for an engine that
     * registers lazily (docs/decisions/0304); null once that write committed, and always for an eager engine.
     */
    private volatile TxWork<?> pendingRegistration;

    private volatile boolean closed;
    /** Whether this connection builds a new ledger in a temporary file ({@link #createLedger}): only then may it migrate an empty file. */
    private boolean creating;
    /** Writes handed in and not yet run (group commit); guarded by its own monitor. */
    private final ArrayDeque<Pending<?>> queue = new ArrayDeque<>();
    /** Write transactions committed; guarded by {@link #lock}. */
    private long batches;
    /** The highest token this engine saw committed, and whether the ledger went backwards (decision 0605). */
    private final WentBackwardsGuard backwards = new WentBackwardsGuard(new WentBackwardsGuard.Words() {
        @Override
        public String sentence(long seen, long counter) {
            return wentBackwardsSentence(seen, counter);
        }

        @Override
        public Path file() {
            return file;
        }
    });

    private Database(Path file, EngineConfig config, Connection connection, Object fileKey) {
        this.file = file;
        this.clock = config.clock();
        this.busyBoundMs = config.busyBound().toMillis();
        this.sqliteBusyTimeoutMs = (int) config.sqliteBusyTimeout().toMillis();
        this.pauseMinNanos = config.busyRetryPauseMin().toNanos();
        this.pauseMaxNanos = config.busyRetryPauseMax().toNanos();
        this.durability = config.durability();
        this.connection = connection;
        this.statements = new StatementCache(connection);
        this.labSandboxRequested = config.createAsLabSandbox();
        this.checkpoints = new BackgroundCheckpoints(file, durability, fileKey);
    }

    /**
     * Opens (creating when allowed) and migrates the database file, refusing files that are not ours
     * or are newer than this code.
     */
    public static Database open(EngineConfig config, boolean createIfMissing) {
        return open(config, createIfMissing, false);
    }

    /**
     * As {@link #open(EngineConfig, boolean)}; {@code restoring}: the restore's own open of the copy it is about to
     * put in place, which may still be marked as a backup (every other open refuses a backup).
     *
     * <p>Only a path where no file exists becomes a ledger, and it appears there whole: the new ledger is built in
     * a temporary file beside it and linked into place ({@link #createLedger}). So a file that exists is always
     * either a ledger or something that is not one; an empty file (0 bytes, perhaps a ledger that lost its
     * contents) or an SQLite file without a ledger is refused and left as it was (contract §16).
     */
    static Database open(EngineConfig config, boolean createIfMissing, boolean restoring) {
        Path file = config.database();
        checkPath(file, createIfMissing);
        if (createIfMissing && !Files.exists(file)) {
            createLedger(config);
        }
        requireNotEmpty(file);
        Connection c;
        Object fileKey = BackgroundCheckpoints.fileKey(file); // before the open: the file the connection then opens
        synchronized (CREATING) {
            c = connect(file, (int) config.sqliteBusyTimeout().toMillis());
        }
        Database db = new Database(file, config, c, fileKey);
        try {
            new Migrator(db).migrate();
            db.keepTemporaryStorageInMemory();
            db.labSandbox = db.readLabSandboxMark();
            db.read(tx -> {
                SqliteLedgerHistory.requireUsable(tx, restoring);
                return null;
            });
        } catch (RuntimeException e) {
            db.close();
            throw e;
        }
        return db;
    }

    /**
     * Builds a new ledger at {@code config.database()}: created {@code 0600} (SQLite would create it by the umask,
     * often world-readable, and it gives the {@code -wal}, {@code -shm} and {@code -journal} files the mode of the
     * database file, docs/decisions/0801) under a temporary name in the same folder, migrated there to the latest
     * version (with the lab-sandbox mark when asked for), closed (which checkpoints it whole into the file), then
     * linked to its name, which fails if another process put a ledger there meanwhile (theirs is then opened). No
     * other process ever sees an empty or half-made file under the ledger's name, and no connection of this JVM
     * has the new file open while its descriptors are closed (closing any descriptor of a file drops this process's
     * POSIX locks on it).
     */
    private static void createLedger(EngineConfig config) {
        Path file = config.database();
        Path building = file.resolveSibling("." + file.getFileName() + ".creating-" + UUID.randomUUID());
        try {
            OwnerOnly.createFile(building);
        } catch (IOException e) {
            throw new StorageException(
                    Problem.MISSING_DIRECTORY, file, "Cannot create " + file + ": " + e.getMessage() + ".", e);
        }
        try {
            Object fileKey = BackgroundCheckpoints.fileKey(building);
            Database db = new Database(
                    building,
                    config,
                    connect(building, (int) config.sqliteBusyTimeout().toMillis()),
                    fileKey);
            db.creating = true;
            try {
                new Migrator(db).migrate();
            } finally {
                db.close();
            }
            try {
                Files.createLink(file, building);
            } catch (FileAlreadyExistsException raced) {
                // another process created the ledger meanwhile: that one is opened
            } catch (UnsupportedOperationException | IOException noLinks) {
                try {
                    Files.move(building, file); // no hard links here: a rename that refuses to replace a file
                } catch (FileAlreadyExistsException raced) {
                    // as above
                }
            }
        } catch (IOException e) {
            throw new StorageException(Problem.IO, file, "Cannot create " + file + ": " + e.getMessage() + ".", e);
        } finally {
            deleteQuietly(building);
        }
    }

    /** Removes a file Sovereign made for itself and the files SQLite keeps beside it; best effort. */
    static void deleteQuietly(Path file) {
        for (String suffix : new String[] {"", "-wal", "-shm", "-journal"}) {
            try {
                Files.deleteIfExists(file.resolveSibling(file.getFileName() + suffix));
            } catch (IOException ignored) {
                // left behind: a name starting with '.', never opened as a ledger
            }
        }
    }

    /** An empty file is not a ledger (contract §16): refused, never turned into one, left as it was. */
    private static void requireNotEmpty(Path file) {
        long size;
        try {
            size = Files.size(file);
        } catch (IOException e) {
            return; // SQLite says what is wrong with it
        }
        if (size == 0) {
            throw new StorageException(
                    Problem.NOT_OURS,
                    file,
                    "The file " + file + " is empty (0 bytes), so it is not a"
                            + " Sovereign ledger (a ledger is never empty: this may be one that lost its contents); it was left as"
                            + " it was: put a backup in place with 'sovereign restore', or delete it and run 'sovereign init' for"
                            + " a new ledger.",
                    null);
        }
    }

    private static void checkPath(Path file, boolean createIfMissing) {
        Path parent = file.getParent();
        if (parent != null && !Files.isDirectory(parent)) {
            throw new StorageException(
                    Problem.MISSING_DIRECTORY,
                    file,
                    "Cannot open " + file + ": the directory " + parent + " does not exist.",
                    null);
        }
        if (Files.isDirectory(file)) {
            throw new StorageException(
                    Problem.NOT_OURS, file, "Cannot open " + file + ": it is a directory, not a database file.", null);
        }
        if (!Files.exists(file) && !createIfMissing) {
            throw new StorageException(
                    Problem.MISSING_FILE,
                    file,
                    "There is no database at " + file + " (create one with 'sovereign init').",
                    null);
        }
        if (Files.exists(file) && !Files.isReadable(file)) {
            // not "read-only": this user may not even read it (issue 26)
            throw new StorageException(
                    Problem.IO,
                    file,
                    "Cannot open " + file + ": this user may not read it"
                            + " (permission denied); its owner can grant access, or run Sovereign as the user who owns it.",
                    null);
        }
        if (Files.exists(file) && !Files.isWritable(file)) {
            throw new StorageException(
                    Problem.READ_ONLY, file, "Cannot write to " + file + ": the file is read-only.", null);
        }
    }

    /** A connection with the default SQLite busy wait (50 ms), for readers outside an engine. */
    static Connection connect(Path file, Durability durability) {
        return connect(file, DEFAULT_SQLITE_BUSY_TIMEOUT_MS);
    }

    static Connection connect(Path file, int sqliteBusyTimeoutMs) {
        try {
            Properties p = new Properties();
            p.setProperty("foreign_keys", "true");
            p.setProperty("recursive_triggers", "true");
            p.setProperty("busy_timeout", Integer.toString(sqliteBusyTimeoutMs));
            // The driver otherwise compiles and runs "SELECT last_insert_rowid()" after every INSERT for
            // getGeneratedKeys(), which nothing here calls (RETURNING says what a write made): about 3 µs per
            // INSERT, measured (bench/analysis.md, 2026-12-05).
            p.setProperty(SQLiteConfig.Pragma.JDBC_GET_GENERATED_KEYS.pragmaName, "false");
            Connection c = DriverManager.getConnection("jdbc:sqlite:" + file, p);
            try (Statement s = c.createStatement()) {
                s.execute("PRAGMA busy_timeout = " + sqliteBusyTimeoutMs);
                s.execute("PRAGMA foreign_keys = ON");
                // REPLACE's implicit delete then fires the DELETE guards too (contract §14). The schema does
                // not rely on it: every guard has a BEFORE INSERT twin for clients that leave it off.
                s.execute("PRAGMA recursive_triggers = ON");
            }
            return c;
        } catch (SQLException e) {
            throw translate(file, e, "open");
        }
    }

    /**
     * {@code temp_store = MEMORY} on the engine's own connection, set after the migrations (whose index
     * builds may sort a whole table and should keep spilling to disk). Each write runs in a
     * {@code SAVEPOINT} (group commit, decision 0503), so SQLite keeps a statement journal of the pages it
     * changes; past 64 KiB (about 16 pages: a run's transactions change ~20) that journal spilled into a
     * temporary file, created, unlinked, written and closed in every such transaction (decision 0510).
     * The connection's other temporary structures are the sorts of its reads, which return their rows to
     * Java anyway. The operators' {@link ReadConnection} is not touched.
     */
    private void keepTemporaryStorageInMemory() {
        lock.lock();
        try (Statement s = connection.createStatement()) {
            s.execute("PRAGMA temp_store = MEMORY");
        } catch (SQLException e) {
            throw translate(file, e, "open");
        } finally {
            lock.unlock();
        }
    }

    /** Applies the connection pragmas that need a valid SQLite file (called by the migrator). */
    void applyPragmas() throws SQLException {
        try (Statement s = connection.createStatement()) {
            // Switching to WAL takes an exclusive lock; once the file is in WAL mode it stays so, and
            // reading the mode needs no lock at all.
            String mode;
            try (ResultSet rs = s.executeQuery("PRAGMA journal_mode")) {
                mode = rs.next() ? rs.getString(1) : "";
            }
            if (!"wal".equalsIgnoreCase(mode)) {
                s.execute("PRAGMA journal_mode = WAL");
            }
            s.execute("PRAGMA synchronous = " + durability.name());
        }
    }

    public Path file() {
        return file;
    }

    /** Whether this connection builds a new ledger (the only case in which an empty file may be migrated). */
    boolean creating() {
        return creating;
    }

    /** Whether the open asked to mark a file it creates as a lab sandbox ({@link EngineConfig#createAsLabSandbox()}). */
    boolean labSandboxRequested() {
        return labSandboxRequested;
    }

    /**
     * Whether this ledger was marked as a lab sandbox when it was created (the durable
     * {@code ledger_mark} row, which no write can change). Only on such a ledger may the lab's
     * broken-fence mode switch the terminal fence off; everywhere else the database refuses it too.
     */
    @Override
    public boolean isLabSandbox() {
        return labSandbox;
    }

    private boolean readLabSandboxMark() {
        return read(tx -> tx.one("SELECT lab_sandbox FROM ledger_mark WHERE id = 1", rs -> rs.getInt(1) == 1)
                .orElse(false));
    }

    public Clock clock() {
        return clock;
    }

    /** Set once by the engine so refusals can be journalled under this process's identity. */
    @Override
    public void setProcessIdentity(String identity) {
        this.processIdentity = identity;
    }

    @Override
    public String processIdentity() {
        return processIdentity;
    }

    /**
     * This engine acts as an identity another process registered ({@code --process}, decision 0802): from now
     * on every fence event it writes names the claimant in its detail, and its first transaction that changes
     * anything (not a REJECTED row) also journals one {@code PROCESS_STARTED} event, category
     * {@code identity_claimed}, saying who claimed the identity. A call that only reads or is refused adds no
     * such event.
     */
    @Override
    public void setClaim(IdentityClaim claim) {
        this.claim = claim;
    }

    /**
     * Defers this process's registration to its first write that commits: {@code registration} runs inside
     * that write's transaction (its savepoint), before the write's own statements, so a refused write takes
     * it back with itself and a read never runs it (docs/decisions/0304).
     */
    @Override
    public void registerWithFirstWrite(TxWork<?> registration) {
        this.pendingRegistration = registration;
    }

    /** Whether this process's row is written (always, for an engine that registered when it opened). */
    @Override
    public boolean isRegistered() {
        return pendingRegistration == null;
    }

    /** The claim this engine acts under, or null. */
    @Override
    public IdentityClaim claim() {
        return claim;
    }

    Connection connection() {
        return connection;
    }

    /**
     * Runs {@code work} in one {@code BEGIN IMMEDIATE} transaction. {@code now} is read from the
     * clock after the lock is held. The body may run more than once (busy retries), so it must not
     * have effects outside the transaction.
     *
     * <p><b>Group commit</b> (issue 16): writes that other threads of this engine hand in while one is
     * running wait in a queue, and the next thread to hold the connection runs them all in ONE
     * transaction — each work in its own {@code SAVEPOINT}, so each is still its own compare-and-set with
     * its own outcome, a refusal or failure rolls back only its own savepoint, and the journal rows of
     * fencing refusals are written in the same transaction after their work was rolled back. One
     * {@code COMMIT} (one fsync at FULL) then makes the whole batch durable; no caller returns before it.
     * Works run in the order they were handed in, each seeing the ones before it, exactly as if they had
     * run one by one; a failed {@code COMMIT} fails every work of the batch.
     */
    @Override
    public <T> T write(TxWork<T> work) {
        return write(work, true);
    }

    private <T> T write(TxWork<T> work, boolean mayJournalClaim) {
        return backwards.guard(
                () -> writeAnyway(work, mayJournalClaim),
                () -> read(tx -> SqliteLedgerHistory.counter(tx)),
                seen -> writeAnyway(
                        tx -> {
                            SqliteLedgerHistory.recordWentBackwards(tx, seen);
                            return null;
                        },
                        false));
    }

    /** A beat read the counter: below a token this engine saw committed, the ledger went backwards (decision 0605). */
    @Override
    public void requireCounterNotBelowSeen(long counter) {
        backwards.requireCounterNotBelowSeen(counter);
    }

    /** A mint returned {@code minted}: not above a token this engine saw committed, the ledger went backwards. */
    void requireForward(long minted) {
        backwards.requireForward(minted);
    }

    /** What this engine says when the ledger went backwards (decision 0605). */
    private String wentBackwardsSentence(long seen, long counter) {
        return "The ledger " + file + " went backwards: this engine (process " + processIdentity + ") had seen token "
                + FencingTokens.describe(seen) + ", but the counter is at "
                + (counter < 0 ? "a value that is not a token" : FencingTokens.describe(counter))
                + ", so the file was put back without 'sovereign restore'; it refuses to write until an operator runs"
                + " 'sovereign fence bump'.";
    }

    /** The highest token this engine minted in a committed transaction (decision 0605); 0 before its first. */
    public long highestTokenSeen() {
        return backwards.highestSeen();
    }

    private <T> T writeAnyway(TxWork<T> work, boolean mayJournalClaim) {
        Pending<T> mine = new Pending<>(work, mayJournalClaim);
        synchronized (queue) {
            queue.add(mine);
        }
        lock.lock();
        try {
            if (!mine.done) {
                List<Pending<?>> batch;
                synchronized (queue) {
                    batch = new ArrayList<>(queue);
                    queue.clear();
                }
                runBatch(batch, mine);
            }
        } finally {
            lock.unlock();
        }
        return mine.outcome();
    }

    /** A write handed in, and once its batch is done, what became of it. */
    private static final class Pending<T> {
        final TxWork<T> work;
        final boolean mayJournalClaim;
        T result;
        Refusal refusal;
        RuntimeException failure;
        Error error;
        volatile boolean done;

        Pending(TxWork<T> work, boolean mayJournalClaim) {
            this.work = work;
            this.mayJournalClaim = mayJournalClaim;
        }

        void reset() {
            result = null;
            refusal = null;
            failure = null;
            error = null;
        }

        boolean committedWork() {
            return refusal == null && failure == null && error == null;
        }

        T outcome() {
            if (error != null) {
                throw error;
            }
            if (failure != null) {
                throw failure;
            }
            if (refusal != null) {
                throw refusal;
            }
            return result;
        }
    }

    /**
     * Runs {@code batch} in one transaction, retrying the whole of it while the file is busy, and marks each
     * done. {@code leader} is the calling thread's own write: if that thread is interrupted while it waits
     * out a busy file, only its write fails, and the others go back to the queue for the next thread.
     */
    private void runBatch(List<Pending<?>> batch, Pending<?> leader) {
        List<Pending<?>> finished = batch;
        try {
            ensureOpen();
            long deadline = System.nanoTime() + busyBoundMs * 1_000_000L;
            while (!attemptBatch(batch, deadline)) {
                if (!pauseUnlessInterrupted()) {
                    finished = List.of(leader);
                    leader.reset();
                    leader.failure = new StorageException(
                            Problem.BUSY,
                            null,
                            "Interrupted while waiting for the database lock.",
                            new InterruptedException());
                    synchronized (queue) {
                        for (int i = batch.size() - 1; i >= 0; i--) {
                            if (batch.get(i) != leader) {
                                batch.get(i).reset();
                                queue.addFirst(batch.get(i));
                            }
                        }
                    }
                    break;
                }
            }
        } catch (RuntimeException e) { // closed, or busy past the bound
            for (Pending<?> p : batch) {
                p.reset();
                p.failure = e;
            }
        } finally {
            for (Pending<?> p : finished) {
                p.done = true;
            }
        }
    }

    /** {@link #pause()}, but false instead of an exception when this thread is interrupted. */
    private boolean pauseUnlessInterrupted() {
        try {
            pause();
            return true;
        } catch (StorageException interrupted) {
            return false;
        }
    }

    /**
     * One attempt at a batch: false when it met a busy file before {@code deadline} and must be tried again
     * whole; true when every work has its outcome.
     *
     * @throws StorageException when the file stayed busy past {@code deadline}
     */
    private boolean attemptBatch(List<Pending<?>> batch, long deadline) {
        try {
            exec("BEGIN IMMEDIATE");
        } catch (SQLException e) {
            if (isBusy(e) && System.nanoTime() < deadline) {
                return false;
            }
            throw translate(file, e, "begin a transaction on");
        }
        boolean claimWritten = false;
        long minted = 0;
        TxWork<?> registration = pendingRegistration;
        boolean registeredNow = false;
        for (Pending<?> p : batch) {
            p.reset();
            try {
                exec("SAVEPOINT sovereign_work");
            } catch (SQLException e) {
                rollbackQuietly();
                throw translate(file, e, "write to");
            }
            try {
                Tx tx = new Tx(
                        this,
                        backwards,
                        statements,
                        clock.millis(),
                        p.mayJournalClaim && !claimJournalled && !claimWritten ? claim : null);
                boolean registers = p.mayJournalClaim && registration != null && !registeredNow;
                if (registers) {
                    registration.run(tx); // the first write registers the process; undone with it if refused
                }
                run(p, tx);
                exec("RELEASE sovereign_work");
                minted = Math.max(minted, tx.minted());
                claimWritten |= tx.claimWritten();
                registeredNow |= registers;
            } catch (Refusal r) {
                undoWork();
                p.refusal = r;
            } catch (SQLException e) {
                undoWork();
                if (isBusy(e)) {
                    rollbackQuietly();
                    if (System.nanoTime() < deadline) {
                        return false; // the whole batch again, from BEGIN
                    }
                    throw translate(file, e, "write to");
                }
                p.failure = translate(file, e, "write to");
            } catch (RuntimeException e) {
                undoWork();
                p.failure = e;
            } catch (Error e) {
                undoWork();
                p.error = e;
            }
        }
        // the refusals the fence decided are journalled after their work was undone, in this transaction
        for (Pending<?> p : batch) {
            if (p.refusal != null && p.refusal.category().isFencing()) {
                try {
                    exec("SAVEPOINT sovereign_rejection");
                    Rejections.journalIn(
                            new Tx(this, backwards, statements, clock.millis(), null), p.refusal, processIdentity);
                    exec("RELEASE sovereign_rejection");
                } catch (SQLException e) {
                    try {
                        exec("ROLLBACK TO sovereign_rejection");
                        exec("RELEASE sovereign_rejection");
                    } catch (SQLException ignored) {
                        // the COMMIT below decides
                    }
                    p.refusal = p.refusal.withWarning(Rejections.missingRow(translate(file, e, "write to")));
                }
            }
        }
        try {
            exec("COMMIT");
        } catch (SQLException e) {
            rollbackQuietly();
            if (isBusy(e) && System.nanoTime() < deadline) {
                return false;
            }
            StorageException failed = translate(file, e, "write to");
            for (Pending<?> p : batch) {
                if (p.committedWork()) {
                    p.failure = failed;
                } else if (p.refusal != null && p.refusal.category().isFencing()) {
                    p.refusal = p.refusal.withWarning(Rejections.missingRow(failed));
                }
            }
            return true;
        }
        claimJournalled |= claimWritten;
        backwards.committed(minted);
        if (registeredNow) {
            pendingRegistration = null;
        }
        batches++;
        checkpoints.committed();
        return true;
    }

    private static <T> void run(Pending<T> p, JdbcTx tx) throws SQLException {
        p.result = p.work.run(tx);
    }

    /** Undoes the current work's savepoint (its statements), keeping the batch's transaction open. */
    private void undoWork() {
        try {
            exec("ROLLBACK TO sovereign_work");
            exec("RELEASE sovereign_work");
        } catch (SQLException ignored) {
            // the transaction itself is gone: the COMMIT (or the next BEGIN) will say so
        }
    }

    /** The engine's background checkpoints (decision 0513): for tests, and for those that count WAL frames. */
    BackgroundCheckpoints backgroundCheckpoints() {
        return checkpoints;
    }

    /** Diagnostics for tests and benchmarks: how many write transactions (batches) this engine committed. */
    public long batchesCommitted() {
        lock.lock();
        try {
            return batches;
        } finally {
            lock.unlock();
        }
    }

    /** Diagnostics for tests: how many writes are waiting to be run by the next batch. */
    public int writesWaiting() {
        synchronized (queue) {
            return queue.size();
        }
    }

    /** Journals a refusal as a {@code REJECTED} fence event in its own transaction. */
    @Override
    public void journalRejection(Refusal r) {
        write(
                tx -> {
                    Rejections.journalIn(tx, r, processIdentity);
                    return null;
                },
                false);
    }

    /**
     * Journals a refusal like {@link #journalRejection}, but a storage failure of that journal write does
     * not replace the refusal: the refusal comes back carrying a warning that its REJECTED row is missing
     * (docs/decisions/0109). The refusal is the answer; the missing row is reported, never swallowed.
     */
    @Override
    public Refusal journalRejectionOrWarn(Refusal r) {
        return Rejections.orWarn(r, () -> journalRejection(r));
    }

    /** Runs a read in autocommit mode (each statement sees the latest committed state). */
    @Override
    public <T> T read(TxWork<T> work) {
        lock.lock();
        try {
            ensureOpen();
            long deadline = System.nanoTime() + busyBoundMs * 1_000_000L;
            while (true) {
                try {
                    return work.run(new Tx(this, backwards, statements, clock.millis()));
                } catch (SQLException e) {
                    if (isBusy(e) && System.nanoTime() < deadline) {
                        pause();
                        continue;
                    }
                    throw translate(file, e, "read");
                }
            }
        } finally {
            lock.unlock();
        }
    }

    /** A separate read-only-use connection (for the console's polling reader). Caller closes it. */
    public Connection openReaderConnection() {
        return connect(file, sqliteBusyTimeoutMs);
    }

    private void ensureOpen() {
        if (closed) {
            throw new IllegalStateException("the engine for " + file + " is closed");
        }
    }

    /** Runs a transaction-control statement (BEGIN IMMEDIATE, COMMIT, ROLLBACK), prepared once. */
    private void exec(String sql) throws SQLException {
        statements.execute(sql);
    }

    private void rollbackQuietly() {
        try {
            exec("ROLLBACK");
        } catch (SQLException ignored) {
            // No transaction was open (it failed at BEGIN or COMMIT already rolled back).
        }
    }

    long busyBoundMillis() {
        return busyBoundMs;
    }

    /** The configured pause between two attempts at a busy transaction (decision 0501). */
    private void pause() {
        long nanos = pauseMinNanos == pauseMaxNanos
                ? pauseMinNanos
                : ThreadLocalRandom.current().nextLong(pauseMinNanos, pauseMaxNanos + 1);
        LockSupport.parkNanos(nanos);
        if (Thread.currentThread().isInterrupted()) {
            throw new StorageException(
                    Problem.BUSY, null, "Interrupted while waiting for the database lock.", new InterruptedException());
        }
    }

    /**
     * The default 1-14 ms pause, for waits outside a {@link Database}'s transactions (the migrator
     * before the engine exists, the admin reader's own connection).
     */
    static void pauseBriefly() {
        try {
            Thread.sleep(ThreadLocalRandom.current().nextLong(1, 15));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new StorageException(Problem.BUSY, null, "Interrupted while waiting for the database lock.", e);
        }
    }

    static boolean isBusy(SQLException e) {
        int code = primaryCode(e);
        return code == 5 || code == 6;
    }

    static int primaryCode(SQLException e) {
        if (e instanceof SQLiteException se) {
            return se.getResultCode().code & 0xff;
        }
        return e.getErrorCode() & 0xff;
    }

    /** What the retired ledger's guards raise (the a_copied_ledger_is_retired migration, decision 0915). */
    static final String RETIRED_MARK = "fence: retired:";

    /** Wraps a JDBC failure once, as one sentence naming the file. */
    public static StorageException translate(Path file, SQLException e, String doing) {
        int code = primaryCode(e);
        switch (code) {
            case 5, 6:
                return new StorageException(
                        Problem.BUSY,
                        file,
                        "The database " + file
                                + " is locked by another process and stayed busy past the wait bound; try again later.",
                        e);
            case 26:
                return new StorageException(
                        Problem.NOT_OURS,
                        file,
                        "The file " + file + " is not a Sovereign database (it is not an SQLite file).",
                        e);
            case 11:
                return new StorageException(
                        Problem.CORRUPT, file, "The database " + file + " is corrupt; restore it from a copy.", e);
            case 8:
                return new StorageException(
                        Problem.READ_ONLY,
                        file,
                        "Cannot write to " + file + ": the file or its directory is read-only.",
                        e);
            case 14:
                return new StorageException(Problem.IO, file, "Cannot open " + file + ": " + firstLine(e) + ".", e);
            case 19:
                if (String.valueOf(e.getMessage()).contains(RETIRED_MARK)) {
                    return new StorageException(
                            Problem.RETIRED,
                            file,
                            "The ledger " + file + " was moved to a server by"
                                    + " 'sovereign copy' and takes no more writes; point --db (or SOVEREIGN_DB) at the server"
                                    + " ledger ('sovereign status --db " + file + "' names it).",
                            e);
                }
                if (firstLine(e).contains("the ledger went backwards")) {
                    return new StorageException(
                            Problem.WENT_BACKWARDS,
                            file,
                            "The ledger " + file + " went backwards"
                                    + " (an engine that had seen a token above its counter said so in its history, docs/reliability.md),"
                                    + " so it issues no token until an operator runs 'sovereign fence bump'.",
                            e);
                }
                if (firstLine(e).contains("has issued every token of its epoch")) {
                    return new StorageException(
                            Problem.EPOCH_EXHAUSTED,
                            file,
                            "The ledger " + file + " has issued every"
                                    + " token of its epoch (2^40 - 1 of them); run 'sovereign fence bump' to start the next.",
                            e);
                }
                return new StorageException(
                        Problem.CORRUPT,
                        file,
                        "The database " + file + " refused a write that breaks its rules (" + firstLine(e) + ").",
                        e);
            default:
                return new StorageException(
                        Problem.IO, file, "Could not " + doing + " " + file + ": " + firstLine(e) + ".", e);
        }
    }

    private static String firstLine(SQLException e) {
        String m = String.valueOf(e.getMessage());
        int nl = m.indexOf('\n');
        return (nl >= 0 ? m.substring(0, nl) : m).trim();
    }

    @Override
    public void close() {
        lock.lock();
        try {
            if (!closed) {
                closed = true;
                checkpoints.close();
                statements.close();
                connection.close();
            }
        } catch (SQLException ignored) {
            // Closing is best effort; the OS releases the locks with the handle.
        } finally {
            lock.unlock();
        }
    }
}
