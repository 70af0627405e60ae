package dev.sovereign.engine.internal.sqlite;

import dev.sovereign.engine.base.Durability;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Objects;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import org.sqlite.SQLiteConfig;
import org.sqlite.SQLiteOpenMode;

/**
 * Copies the pages an engine committed from the write-ahead log into the database file on a thread of its own, so the
 * caller whose {@code COMMIT} crosses SQLite's automatic checkpoint (1,000 WAL pages) mostly finds them copied already
 * (decision 0513). Every {@value #COMMITS_PER_CHECKPOINT} write transactions the engine commits wake it; it runs one
 * {@code PRAGMA wal_checkpoint(PASSIVE)} on its own connection, which takes no lock a writer or reader waits for and
 * gives up at once if another checkpoint is running.
 *
 * <p>It only helps: the writers' automatic checkpoint stays on, because only a checkpoint between a writer's commits
 * lets the log start again from its beginning — a checkpoint on another thread while the same process keeps writing
 * never catches up (measured: the log grew to 959,533 frames in 15 s with the automatic one off). And when a pass
 * finds the log at the writers' mark or past it, the passes already asked for are dropped, so that the commits after it
 * find the checkpoint lock free (on a slow disk, passes back to back kept it busy and the log grew to 14,000
 * frames). A failed pass changes nothing: the automatic checkpoint does the work, as it did before this class.
 *
 * <p>Started by the {@value #COMMITS_PER_CHECKPOINT}th commit, not at open: a CLI call's one or two writes start no
 * thread. Nothing here throws into the commit path: a committed write is never reported as failed because a thread
 * could not start. Its connection syncs as the engine's does ({@code synchronous} is the engine's durability), since a
 * checkpoint's sync of the database file is what lets the log be written over, and it opens the ledger only if it is
 * still the file the engine opened, never creating the database file at its path (contract §16).
 */
final class BackgroundCheckpoints implements AutoCloseable {
    /** Write transactions between two passes: about 140 WAL pages of acquires and releases. */
    static final int COMMITS_PER_CHECKPOINT = 16;
    /** SQLite's automatic checkpoint, which the engine's connection keeps (its default). */
    static final int WRITERS_CHECKPOINT_PAGES = 1000;
    /** Commits after which a thread that could not start or open its connection is tried again. */
    static final int RETRY_AFTER_COMMITS = 1024;

    private final Path file;
    private final Durability durability;
    /**
     * The file the engine opened (inode and device), read before its connection opened it; null where the platform
     * has none (Windows, where a file SQLite holds cannot be renamed or deleted): then only its existence is checked.
     */
    private final Object fileKey;

    private final Object monitor = new Object();
    /** Held for each pass: {@link #pause} waits on it for a pass in progress. */
    private final ReentrantLock passing = new ReentrantLock();
    /** Guarded by {@link #monitor}. */
    private Thread thread;
    /** Guarded by {@link #monitor}. */
    private boolean closed;

    private volatile boolean paused;
    /** Write transactions committed: counted by the thread holding the engine's connection, read by the thread. */
    private volatile long commits;
    /** The commit count before which no thread is started again after one failed to start or connect. */
    private volatile long retryAt;

    private volatile long wanted;
    private volatile long passes;
    private volatile long failedPasses;
    private volatile Throwable failure;

    BackgroundCheckpoints(Path file, Durability durability, Object fileKey) {
        this.file = file;
        this.durability = durability;
        this.fileKey = fileKey;
    }

    /** The key {@link #BackgroundCheckpoints} wants: read before the engine's connection opens the file. */
    static Object fileKey(Path file) {
        try {
            return Files.readAttributes(file, BasicFileAttributes.class).fileKey();
        } catch (IOException e) {
            return null; // the open that follows says what is wrong with the path
        }
    }

    /** Called after each committed write transaction, by the thread holding the engine's connection. Never throws. */
    void committed() {
        if (++commits % COMMITS_PER_CHECKPOINT != 0 || paused || commits < retryAt) {
            return;
        }
        try {
            Thread t;
            synchronized (monitor) {
                if (closed) {
                    return;
                }
                if (thread == null || !thread.isAlive()) {
                    t = new Thread(null, this::run, "sovereign-checkpoints " + file.getFileName(), 0, false);
                    t.setDaemon(true);
                    t.setContextClassLoader(BackgroundCheckpoints.class.getClassLoader());
                    t.start();
                    thread = t;
                }
                t = thread;
            }
            wanted++;
            LockSupport.unpark(t);
        } catch (Throwable e) { // no thread to be had (a limit on processes): the write committed all the same
            failure = e;
            retryAt = commits + RETRY_AFTER_COMMITS;
        }
    }

    private void run() {
        long done = 0; // a thread started again after a failure passes at once
        Connection c = null;
        try {
            synchronized (monitor) {
                if (closed) {
                    return;
                }
            }
            c = connect();
            try (Statement s = c.createStatement()) {
                while (true) {
                    synchronized (monitor) {
                        if (closed) {
                            return;
                        }
                    }
                    long target = wanted;
                    if (target == done) {
                        LockSupport.park(this);
                        // an interrupt would make every park return at once: only close() stops this thread
                        Thread.interrupted();
                        continue;
                    }
                    done = target;
                    if (pass(s) >= WRITERS_CHECKPOINT_PAGES) {
                        // the passes asked for meanwhile are dropped: the lock is left to the writers' commits, whose
                        // own checkpoint lets the log start again
                        done = wanted;
                    }
                }
            }
        } catch (NotTheEnginesFile e) { // moved away or replaced: for good, and an operator wants to know
            stop(e, Long.MAX_VALUE);
        } catch (Throwable e) { // a connection refused, a descriptor limit, an Error: the writers' checkpoint goes on
            stop(e, commits + RETRY_AFTER_COMMITS);
        } finally {
            if (c != null) {
                try {
                    c.close();
                } catch (SQLException ignored) {
                    // the file's locks go with the handle
                }
            }
        }
    }

    private void stop(Throwable e, long retry) {
        failure = e;
        retryAt = retry;
        System.getLogger(BackgroundCheckpoints.class.getName())
                .log(
                        System.Logger.Level.INFO,
                        "Checkpoints of " + file + " off the writers' thread stopped"
                                + (retry == Long.MAX_VALUE ? "" : " for the next " + RETRY_AFTER_COMMITS + " commits")
                                + " (the writers' own checkpoints go on): " + e.getMessage());
    }

    /** One {@code PASSIVE} checkpoint unless paused; the frames the log held, or -1 when none ran or it failed. */
    private long pass(Statement s) {
        passing.lock();
        try {
            if (paused) {
                return -1;
            }
            try (ResultSet rs = s.executeQuery("PRAGMA wal_checkpoint(PASSIVE)")) {
                passes++;
                // busy or not: the writers' own checkpoint does what this one could not
                return rs.next() ? rs.getLong(2) : -1;
            } catch (SQLException e) { // a full disk, an I/O error: the next pass may work, the writers' does meanwhile
                failedPasses++;
                failure = e;
                return -1;
            }
        } finally {
            passing.unlock();
        }
    }

    /** The engine's file, opened without creating it, and only if it is still the one the engine opened. */
    private Connection connect() throws SQLException, NotTheEnginesFile {
        requireSameFile();
        SQLiteConfig config = new SQLiteConfig();
        config.resetOpenMode(SQLiteOpenMode.CREATE);
        config.setBusyTimeout(Database.DEFAULT_SQLITE_BUSY_TIMEOUT_MS);
        config.setSynchronous(
                durability == Durability.FULL
                        ? SQLiteConfig.SynchronousMode.FULL
                        : SQLiteConfig.SynchronousMode.NORMAL);
        Connection c;
        synchronized (Database.CREATING) {
            c = config.createConnection("jdbc:sqlite:" + file);
        }
        try {
            requireSameFile();
            return c;
        } catch (NotTheEnginesFile e) {
            c.close();
            throw e;
        }
    }

    private void requireSameFile() throws NotTheEnginesFile {
        Object now;
        try {
            now = Files.readAttributes(file, BasicFileAttributes.class).fileKey();
        } catch (IOException e) {
            throw new NotTheEnginesFile(file + " is gone: " + e.getMessage());
        }
        if (fileKey != null && !Objects.equals(now, fileKey)) {
            throw new NotTheEnginesFile(file + " is no longer the file the engine opened");
        }
    }

    /** The path no longer names the engine's file. */
    private static final class NotTheEnginesFile extends Exception {
        NotTheEnginesFile(String message) {
            super(message, null, false, false);
        }
    }

    /**
     * Stops ({@code true}) or resumes the passes, for a test that counts WAL frames (a pass lets the log start again);
     * returns once no pass is running.
     */
    void pause(boolean pause) {
        paused = pause;
        passing.lock();
        passing.unlock();
    }

    /** Passes run so far: for tests. */
    long passes() {
        return passes;
    }

    /** Passes that failed: for tests. */
    long failedPasses() {
        return failedPasses;
    }

    /** The last failure (a pass, the thread's start or its connection), or null: for tests. */
    Throwable failure() {
        return failure;
    }

    /** Whether the thread was started: for tests. */
    boolean started() {
        synchronized (monitor) {
            return thread != null;
        }
    }

    /** Waits for a pass in progress to end and closes the connection; the engine's own close comes after. */
    @Override
    public void close() {
        Thread t;
        synchronized (monitor) {
            closed = true;
            t = thread;
        }
        if (t == null) {
            return;
        }
        LockSupport.unpark(t);
        boolean interrupted = false;
        while (t.isAlive()) {
            try {
                t.join();
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }
}
