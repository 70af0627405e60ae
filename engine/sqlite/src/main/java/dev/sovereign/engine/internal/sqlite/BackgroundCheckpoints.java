package dev.sovereign.engine.internal.sqlite;

import dev.sovereign.engine.base.Durability;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.locks.LockSupport;

/**
 * Copies the pages an engine committed from the write-ahead log into the database file on a thread of its own, so the
 * caller whose {@code COMMIT} crosses SQLite's automatic checkpoint (1,000 WAL pages) mostly finds them copied already
 * (decision 0513). Every {@value #COMMITS_PER_CHECKPOINT} write transactions the engine commits wake it; it runs one
 * {@code PRAGMA wal_checkpoint(PASSIVE)} on its own connection, which takes no lock a writer or reader waits for and
 * gives up at once if another checkpoint is running.
 *
 * <p>It only helps: the writers' automatic checkpoint stays on, because only a checkpoint between a writer's commits
 * lets the log start again from its beginning — a checkpoint on another thread while the same process keeps writing
 * never catches up (measured: the log grew to 959,533 frames in 15 s with the automatic one off). So the log stays
 * bounded exactly as before, and the writer's share is the few pages committed since this thread's last pass and the
 * restart. A failed pass is not retried: the automatic checkpoint does the work, as it did before this class.
 *
 * <p>Started by the {@value #COMMITS_PER_CHECKPOINT}th commit, not at open: a CLI call's one or two writes start no
 * thread. Its connection syncs as the engine's does ({@code synchronous} is the engine's durability), since a
 * checkpoint's sync of the database file is what lets the log be written over.
 */
final class BackgroundCheckpoints implements AutoCloseable {
    /** Write transactions between two passes: about 140 WAL pages of acquires and releases. */
    static final int COMMITS_PER_CHECKPOINT = 16;

    private final Path file;
    private final Durability durability;
    private final Object monitor = new Object();
    /** Guarded by {@link #monitor}. */
    private Thread thread;
    /** Guarded by {@link #monitor}. */
    private boolean closed;
    /** Guarded by {@link #monitor}: tests that count WAL frames switch the passes off. */
    private boolean paused;

    private long commits;
    private volatile long wanted;
    private volatile long passes;
    private volatile SQLException failure;

    BackgroundCheckpoints(Path file, Durability durability) {
        this.file = file;
        this.durability = durability;
    }

    /** Called after each committed write transaction, by the thread holding the engine's connection. */
    void committed() {
        if (++commits % COMMITS_PER_CHECKPOINT != 0) {
            return;
        }
        Thread t;
        synchronized (monitor) {
            if (closed || paused || failure != null) {
                return;
            }
            if (thread == null) {
                thread = new Thread(this::run, "sovereign-checkpoints " + file.getFileName());
                thread.setDaemon(true);
                thread.start();
            }
            t = thread;
        }
        wanted++;
        LockSupport.unpark(t);
    }

    private void run() {
        long done = 0;
        Connection c = null;
        try {
            synchronized (Database.CREATING) {
                c = Database.connect(file, Database.DEFAULT_SQLITE_BUSY_TIMEOUT_MS);
            }
            try (Statement s = c.createStatement()) {
                s.execute("PRAGMA synchronous = " + durability.name());
                s.execute("PRAGMA wal_autocheckpoint = 0"); // it never writes; said so anyway
                while (true) {
                    synchronized (monitor) {
                        if (closed) {
                            return;
                        }
                    }
                    long target = wanted;
                    if (target == done) {
                        LockSupport.park(this);
                        continue;
                    }
                    done = target;
                    try (ResultSet rs = s.executeQuery("PRAGMA wal_checkpoint(PASSIVE)")) {
                        rs.next(); // busy or not: the writers' own checkpoint does what this one could not
                    }
                    passes++;
                }
            }
        } catch (SQLException | RuntimeException e) {
            failure = e instanceof SQLException ? (SQLException) e : new SQLException(e);
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

    /** Stops ({@code true}) or resumes the passes, for a test that counts WAL frames (a pass lets the log start again). */
    void pause(boolean pause) {
        synchronized (monitor) {
            paused = pause;
        }
    }

    /** Passes run so far: for tests. */
    long passes() {
        return passes;
    }

    /** Why the passes stopped, or null: for tests. */
    SQLException failure() {
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
