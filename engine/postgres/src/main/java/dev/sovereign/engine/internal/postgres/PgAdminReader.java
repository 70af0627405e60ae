package dev.sovereign.engine.internal.postgres;

import dev.sovereign.engine.admin.AdminReader;
import dev.sovereign.engine.admin.AdminSnapshot;
import dev.sovereign.engine.admin.ConnectionSecurity;
import dev.sovereign.engine.admin.EventSentences;
import dev.sovereign.engine.admin.ExportProgress;
import dev.sovereign.engine.admin.JournalEntry;
import dev.sovereign.engine.admin.JournalSlice;
import dev.sovereign.engine.admin.JournalSubject;
import dev.sovereign.engine.admin.LedgerMetrics;
import dev.sovereign.engine.admin.ProcessRow;
import dev.sovereign.engine.base.LedgerLocation;
import dev.sovereign.engine.internal.jdbc.Dialect;
import dev.sovereign.engine.internal.jdbc.JdbcAdminJournal;
import dev.sovereign.engine.internal.jdbc.JdbcAdminLeases;
import dev.sovereign.engine.internal.jdbc.JdbcAdminRows;
import dev.sovereign.engine.internal.jdbc.JdbcLedgerMetrics;
import dev.sovereign.engine.internal.jdbc.JdbcTx;
import dev.sovereign.engine.spi.JournalExport;
import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Clock;
import java.time.ZoneId;
import java.util.List;

/**
 * The operators' read model of a PostgreSQL ledger (decision 0905): its own read-only session
 * ({@link PgDatabase#openForReading}, which refuses a database with no ledger, a foreign schema, an older or a
 * newer ledger in one sentence without secrets), and the three small readers both backends share over it —
 * {@link JdbcAdminLeases} (every actor's lease, incrementally by the lease change marker of decision 0414, on
 * statements kept prepared: {@link PgKeptStatements}), {@link JdbcAdminRows} (processes, runs, attempts, messages,
 * the last tick and the true counts) and {@link JdbcAdminJournal} (journal rows with their sentences). A snapshot is ONE {@code REPEATABLE READ READ ONLY}
 * transaction across all of them, so everything in it agrees, and its {@code takenAt} is the server's clock.
 *
 * <p>The change marker (decision 0904): the server's transaction snapshot ({@code pg_current_snapshot()}: the
 * oldest running transaction id, the next one to be assigned, and the ids running in between) changes whenever
 * a transaction that wrote anything commits, anywhere on the server, and stays the same otherwise. This reader
 * keeps the last one it saw and moves its own counter when a new one differs. It costs one round trip, needs no
 * privilege and no schema change, and is exact in the direction that matters (no change missed); it also moves
 * for commits in other databases of the same server, which costs a snapshot read that finds nothing new.
 *
 * <p>Thread-safe: every public method holds this object's monitor while it uses the connection.
 */
public final class PgAdminReader implements AdminReader {
    private final PgDatabase db;
    private final Clock clock;
    private final int schemaVersion;
    private final ConnectionSecurity connection;
    private final PgKeptStatements leaseStatements;
    private final JdbcAdminLeases leases;
    private final JdbcAdminRows rows;
    private final JdbcAdminJournal journal;
    private String lastServerSnapshot;
    private long changeMarker;
    private volatile long clockOffset;
    private boolean closed;
    private int leaseRowsReadLastSnapshot;

    private PgAdminReader(PgDatabase db, Path dataDirectory, Clock clock, ZoneId zone) {
        this.db = db;
        this.clock = clock;
        this.leaseStatements = new PgKeptStatements();
        // actors are only ever added (no role but the owner may delete one), so their count alone tells that one was
        this.leases = new JdbcAdminLeases(Dialect.POSTGRES, q -> 0);
        this.rows = new JdbcAdminRows(dataDirectory);
        this.journal = new JdbcAdminJournal(new EventSentences(zone));
        this.schemaVersion = db.read(
                tx -> (int) tx.scalarLong("SELECT coalesce(max(schema_version), 0) FROM" + " schema_migrations"));
        this.connection = db.read(tx -> PgConnectionSecurity.of(tx, db.location()));
    }

    /** Opens the ledger at {@code location} for reading, refusing one that is missing, foreign, older or newer. */
    public static PgAdminReader open(LedgerLocation location, Path dataDirectory, Clock clock, ZoneId zone) {
        PgDatabase db = PgDatabase.openForReading(location);
        try {
            return new PgAdminReader(db, dataDirectory.toAbsolutePath().normalize(), clock, zone);
        } catch (RuntimeException e) {
            db.close();
            throw e;
        }
    }

    @Override
    public LedgerLocation location() {
        return db.location();
    }

    @Override
    public int schemaVersion() {
        return schemaVersion;
    }

    @Override
    public ConnectionSecurity connection() {
        return connection;
    }

    @Override
    public long ledgerClockOffsetMillis() {
        return clockOffset;
    }

    @Override
    public synchronized long changeMarker() {
        ensureOpen();
        return markerFor(db.read(PgAdminReader::serverSnapshot));
    }

    /** The server's transaction snapshot as text: {@code xmin:xmax:running,ids}. */
    static String serverSnapshot(JdbcTx tx) throws SQLException {
        return tx.one("SELECT pg_current_snapshot()::text", rs -> rs.getString(1))
                .orElseThrow();
    }

    /** This reader's counter for {@code serverSnapshot}: moved when it differs from the last one seen. */
    private long markerFor(String serverSnapshot) {
        if (!serverSnapshot.equals(lastServerSnapshot)) {
            lastServerSnapshot = serverSnapshot;
            changeMarker++;
        }
        return changeMarker;
    }

    @Override
    public synchronized AdminSnapshot snapshot() {
        ensureOpen();
        JdbcAdminLeases.Read[] read = new JdbcAdminLeases.Read[1];
        String[] seen = new String[1];
        AdminSnapshot s = db.snapshot(tx -> {
            seen[0] = serverSnapshot(tx); // the first statement: the very snapshot every row below is read in
            long now = tx.now();
            clockOffset = now - clock.millis();
            long lastSeq = tx.scalarLong("SELECT coalesce(max(seq), 0) FROM fence_events");
            long lastToken = tx.lastToken();
            List<ProcessRow> processes = rows.processes(tx);
            read[0] = leases.read(leaseStatements.on(tx), processes);
            return new AdminSnapshot(
                    db.location(),
                    schemaVersion,
                    0,
                    now,
                    lastSeq,
                    lastToken,
                    read[0].baseline().rows(),
                    JdbcAdminLeases.withLeaseCounts(
                            processes, read[0].baseline().held()),
                    rows.assignments(tx),
                    rows.attempts(tx),
                    rows.messages(tx),
                    rows.lastTick(tx),
                    rows.counts(tx),
                    PgLedgerHistory.read(tx, String.valueOf(db.location())));
        });
        leases.keep(read[0]);
        leaseRowsReadLastSnapshot = read[0].rowsRead();
        long marker = markerFor(seen[0]);
        return new AdminSnapshot(
                s.location(),
                s.schemaVersion(),
                marker,
                s.takenAt(),
                s.lastSeq(),
                s.lastToken(),
                s.leases(),
                s.processes(),
                s.assignments(),
                s.attempts(),
                s.messages(),
                s.lastTick(),
                s.counts(),
                s.history());
    }

    @Override
    public synchronized LedgerMetrics metrics() {
        ensureOpen();
        return db.snapshot(JdbcLedgerMetrics::read); // one read-only snapshot, stamped with the server's clock
    }

    /** Diagnostics for tests and benchmarks: lease rows the last {@link #snapshot()} read (0: none changed). */
    public synchronized int leaseRowsReadLastSnapshot() {
        return leaseRowsReadLastSnapshot;
    }

    /** Diagnostics for tests: how many statements the lease reader has prepared since this reader opened. */
    public synchronized long leaseStatementsPrepared() {
        return leaseStatements.statementsPrepared();
    }

    /** For tests of this package: the lease reader's kept statements. */
    PgKeptStatements leaseStatements() {
        return leaseStatements;
    }

    @Override
    public synchronized List<JournalEntry> eventsSince(long afterSeq, int limit) {
        ensureOpen();
        return db.read(tx -> journal.eventsSince(tx, afterSeq, limit));
    }

    @Override
    public synchronized List<JournalEntry> recentRejections(int limit) {
        ensureOpen();
        return db.read(tx -> journal.recentRejections(tx, limit));
    }

    @Override
    public synchronized JournalSlice journalAbout(JournalSubject subject, int limit) {
        ensureOpen();
        return db.snapshot(tx -> journal.journalAbout(tx, subject, limit, SUBJECT_SCAN_ROWS)); // rows and count agree
    }

    @Override
    public long exportJournalCsv(Path target, ExportProgress progress) {
        long total;
        synchronized (this) {
            ensureOpen();
            total = db.read(tx -> tx.scalarLong("SELECT count(*) FROM fence_events"));
        }
        return JournalExport.export(target, progress, total, this::eventsSince);
    }

    private void ensureOpen() {
        if (closed) {
            throw new IllegalStateException("the admin reader for " + db.location() + " is closed");
        }
    }

    @Override
    public synchronized void close() {
        if (!closed) {
            closed = true;
            leaseStatements.close();
            db.close();
        }
    }
}
