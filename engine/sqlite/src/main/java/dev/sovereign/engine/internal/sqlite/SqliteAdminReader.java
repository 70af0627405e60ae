package dev.sovereign.engine.internal.sqlite;

import dev.sovereign.engine.admin.AdminReader;
import dev.sovereign.engine.admin.AdminSnapshot;
import dev.sovereign.engine.admin.EventSentences;
import dev.sovereign.engine.admin.ExportProgress;
import dev.sovereign.engine.admin.JournalEntry;
import dev.sovereign.engine.admin.JournalSlice;
import dev.sovereign.engine.admin.JournalSubject;
import dev.sovereign.engine.admin.LedgerHistory;
import dev.sovereign.engine.admin.LedgerMetrics;
import dev.sovereign.engine.admin.ProcessRow;
import dev.sovereign.engine.base.EngineConfig;
import dev.sovereign.engine.base.LedgerLocation;
import dev.sovereign.engine.base.StorageException;
import dev.sovereign.engine.base.StorageException.Problem;
import dev.sovereign.engine.internal.jdbc.Dialect;
import dev.sovereign.engine.internal.jdbc.JdbcAdminJournal;
import dev.sovereign.engine.internal.jdbc.JdbcAdminLeases;
import dev.sovereign.engine.internal.jdbc.JdbcAdminRows;
import dev.sovereign.engine.internal.jdbc.JdbcLedgerMetrics;
import dev.sovereign.engine.spi.JournalExport;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.ZoneId;
import java.util.List;

/**
 * The operators' read model of a SQLite ledger: its own query-only connection ({@link ReadConnection}, which
 * refuses a file that is missing, not ours, older or newer, and shares {@link Database}'s busy and error
 * policy), and the three small readers both backends share over it — {@link JdbcAdminLeases} (every actor's
 * lease, incrementally, by the lease change marker), {@link JdbcAdminRows} (processes, runs, attempts, messages,
 * the last tick and the true counts) and {@link JdbcAdminJournal} (journal rows with their sentences). A snapshot is one read transaction
 * across all of them, so everything in it agrees.
 *
 * <p>Thread-safe: every public method holds this object's monitor while it uses the connection (a CSV export
 * in the background interleaves page by page with a poller).
 */
public final class SqliteAdminReader implements AdminReader {
    private final ReadConnection db;
    private final Clock clock;
    private final JdbcAdminLeases leases;
    private final JdbcAdminRows rows;
    private final JdbcAdminJournal journal;
    private boolean closed;
    private int leaseRowsReadLastSnapshot;
    private long fullLeaseReads;

    private SqliteAdminReader(ReadConnection db, Path dataDirectory, Clock clock, ZoneId zone) {
        this.db = db;
        this.clock = clock;
        // an actor added moves their count and max(rowid) together
        this.leases =
                new JdbcAdminLeases(Dialect.SQLITE, q -> q.scalarLong("SELECT coalesce(max(rowid), 0) FROM actors"));
        this.rows = new JdbcAdminRows(dataDirectory);
        this.journal = new JdbcAdminJournal(new EventSentences(zone));
    }

    /** Opens {@code database} for reading, refusing a file that is missing, foreign, older or newer. */
    public static SqliteAdminReader open(Path database, Clock clock, ZoneId zone) {
        Path file = database.toAbsolutePath().normalize();
        return open(file, EngineConfig.defaultDataDirectory(file), clock, zone);
    }

    /** {@link #open(Path, Clock, ZoneId)} for a database whose data directory is not the default one. */
    public static SqliteAdminReader open(Path database, Path dataDirectory, Clock clock, ZoneId zone) {
        ReadConnection db = ReadConnection.open(database.toAbsolutePath().normalize());
        return new SqliteAdminReader(db, dataDirectory.toAbsolutePath().normalize(), clock, zone);
    }

    @Override
    public LedgerLocation location() {
        return LedgerLocation.file(db.file());
    }

    @Override
    public int schemaVersion() {
        return db.schemaVersion();
    }

    @Override
    public synchronized long changeMarker() {
        ensureOpen();
        if (!Files.exists(db.file())) {
            throw new StorageException(
                    Problem.MISSING_FILE,
                    db.file(),
                    "The database file " + db.file() + " is gone (moved or deleted); what is shown is its last state.",
                    null);
        }
        return db.read("read", db::changeMarker);
    }

    @Override
    public synchronized AdminSnapshot snapshot() {
        ensureOpen();
        return db.read("read", () -> {
            JdbcAdminLeases.Read[] read = new JdbcAdminLeases.Read[1];
            AdminSnapshot s = db.inReadTransaction(() -> {
                long lastSeq = db.scalar("SELECT coalesce(max(seq), 0) FROM fence_events");
                long changeMarker = db.changeMarker();
                Long counter = SqliteLedgerHistory.counter(db);
                long lastToken = counter == null ? -1 : counter; // never a damaged counter shown as 0
                LedgerHistory history = SqliteLedgerHistory.read(db, db.file().toString());
                List<ProcessRow> processes = rows.processes(db);
                read[0] = leases.read(db, processes);
                return new AdminSnapshot(
                        LedgerLocation.file(db.file()),
                        db.schemaVersion(),
                        changeMarker,
                        clock.millis(),
                        lastSeq,
                        lastToken,
                        read[0].baseline().rows(),
                        JdbcAdminLeases.withLeaseCounts(
                                processes, read[0].baseline().held()),
                        rows.assignments(db),
                        rows.attempts(db),
                        rows.messages(db),
                        rows.lastTick(db),
                        rows.counts(db),
                        history);
            });
            leases.keep(read[0]);
            leaseRowsReadLastSnapshot = read[0].rowsRead();
            if (read[0].full()) {
                fullLeaseReads++;
            }
            return s;
        });
    }

    @Override
    public synchronized LedgerMetrics metrics() {
        ensureOpen();
        // this reader's clock is the engine's on SQLite (every writer stamps with its host's clock)
        return db.read("read", () -> db.inReadTransaction(() -> JdbcLedgerMetrics.read(db, clock.millis())));
    }

    /**
     * Diagnostics for tests and benchmarks: how many lease rows the last {@link #snapshot()} read from
     * the database (every actor after a full read, only the changed ones after an incremental read,
     * 0 when no lease changed).
     */
    public synchronized int leaseRowsReadLastSnapshot() {
        return leaseRowsReadLastSnapshot;
    }

    /** Diagnostics: how many snapshots since this reader opened read every actor's lease row. */
    public synchronized long fullLeaseReads() {
        return fullLeaseReads;
    }

    /** Diagnostics for tests: how many statements this reader's connection has prepared since it opened. */
    public synchronized long statementsPrepared() {
        return db.statementsPrepared();
    }

    /** For tests of this package: the reader's connection. */
    ReadConnection readConnection() {
        return db;
    }

    @Override
    public synchronized List<JournalEntry> eventsSince(long afterSeq, int limit) {
        ensureOpen();
        return db.read("read", () -> journal.eventsSince(db, afterSeq, limit));
    }

    @Override
    public synchronized List<JournalEntry> recentRejections(int limit) {
        ensureOpen();
        return db.read("read", () -> journal.recentRejections(db, limit));
    }

    @Override
    public synchronized JournalSlice journalAbout(JournalSubject subject, int limit) {
        ensureOpen();
        return db.read(
                "read", () -> db.inReadTransaction(() -> journal.journalAbout(db, subject, limit, SUBJECT_SCAN_ROWS)));
    }

    @Override
    public long exportJournalCsv(Path target, ExportProgress progress) {
        long total;
        synchronized (this) {
            ensureOpen();
            total = db.read("read", () -> db.scalar("SELECT count(*) FROM fence_events"));
        }
        return JournalExport.export(target, progress, total, this::eventsSince);
    }

    private void ensureOpen() {
        if (closed) {
            throw new IllegalStateException("the admin reader for " + db.file() + " is closed");
        }
    }

    @Override
    public synchronized void close() {
        if (!closed) {
            closed = true;
            db.close();
        }
    }
}
