package dev.sovereign.engine.internal.sqlite;

import dev.sovereign.engine.EngineConfig;
import dev.sovereign.engine.StorageException;
import dev.sovereign.engine.StorageException.Problem;
import dev.sovereign.engine.admin.AdminReader;
import dev.sovereign.engine.admin.AdminSnapshot;
import dev.sovereign.engine.admin.AssignmentRow;
import dev.sovereign.engine.admin.AttemptRow;
import dev.sovereign.engine.admin.EventSentences;
import dev.sovereign.engine.admin.ExportProgress;
import dev.sovereign.engine.admin.JournalCsv;
import dev.sovereign.engine.internal.OwnerOnly;
import dev.sovereign.engine.admin.JournalEntry;
import dev.sovereign.engine.admin.LeaseRow;
import dev.sovereign.engine.admin.LedgerCounts;
import dev.sovereign.engine.admin.MessageRow;
import dev.sovereign.engine.admin.ProcessRef;
import dev.sovereign.engine.admin.ProcessRow;
import dev.sovereign.engine.admin.ReceiptRow;
import dev.sovereign.engine.admin.SupervisorTickRow;
import dev.sovereign.engine.run.RunFolders;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The operators' read model on its own connection, opened for queries only ({@code PRAGMA
 * query_only = ON}, so no statement on it can write) and never migrating: a file that is missing,
 * not ours, older or newer than this code is refused before anything else is read.
 *
 * <p>Why a read-write connection made query-only rather than {@code SQLITE_OPEN_READONLY}: a
 * read-only connection cannot create the WAL index ({@code -shm}); opened while no writer is around
 * it falls back to a private index and may then miss later commits of writers — exactly what a live
 * console must not do. See docs/decisions/0401-admin-reader-connection.md.
 *
 * <p>Incremental leases: a snapshot reads every actor's lease only the first time, after an actor
 * was added, or when most rows changed; otherwise only the lease rows whose change marker
 * ({@code actor_leases.change_seq}, {@code lease_tombstones}) is above what the previous snapshot saw. Every lease write carries the
 * marker (a trigger refuses one that does not), so the result equals a full read; see
 * docs/decisions/0414-lease-change-marker.md.
 *
 * <p>Thread-safe: every public method holds this object's monitor while it uses the connection.
 */
public final class SqliteAdminReader implements AdminReader {
    private static final long BUSY_BOUND_MS = 2_000;
    private static final int EXPORT_PAGE = 1_000;

    private static final String EVENT_SELECT = "SELECT e.seq, e.at, e.kind, e.resource_type, e.resource_id,"
            + " e.actor_id, e.process_identity, e.token, e.presented_token, e.current_token, e.category, e.detail,"
            + " p.label AS p_label, p.pid AS p_pid, p.host AS p_host"
            + " FROM fence_events e LEFT JOIN processes p ON p.identity = e.process_identity";

    private final Path file;
    /** Where the run folders are: the receipts' output folders are derived from it. */
    private final Path dataDirectory;
    private final Clock clock;
    private final Connection connection;
    private final int schemaVersion;
    private final EventSentences sentences;
    private boolean closed;
    /** What the last snapshot knew of the leases, or null before the first (confined to this reader's monitor). */
    private LeaseBaseline baseline;
    /**
     * Refused writes per category up to {@link #categoriesCountedTo} (a journal seq): the journal only
     * grows, so each snapshot counts only the rejections after it, through the partial index
     * {@code fence_events_rejections}. Recounted whole if the total ever disagrees.
     */
    private final Map<String, Long> rejectionsByCategory = new java.util.TreeMap<>();
    private long categoriesCountedTo;
    private int leaseRowsReadLastSnapshot;
    private long fullLeaseReads;

    private SqliteAdminReader(Path file, Path dataDirectory, Clock clock, ZoneId zone, Connection connection,
                              int schemaVersion) {
        this.file = file;
        this.dataDirectory = dataDirectory;
        this.clock = clock;
        this.connection = connection;
        this.schemaVersion = schemaVersion;
        this.sentences = new EventSentences(zone);
    }

    /** Opens {@code database} for reading, refusing a file that is missing, foreign, older or newer. */
    public static SqliteAdminReader open(Path database, Clock clock, ZoneId zone) {
        Path file = database.toAbsolutePath().normalize();
        return open(file, EngineConfig.defaultDataDirectory(file), clock, zone);
    }

    /** {@link #open(Path, Clock, ZoneId)} for a database whose data directory is not the default one. */
    public static SqliteAdminReader open(Path database, Path dataDirectory, Clock clock, ZoneId zone) {
        Path file = database.toAbsolutePath().normalize();
        Path data = dataDirectory.toAbsolutePath().normalize();
        if (Files.isDirectory(file)) {
            throw new StorageException(Problem.NOT_OURS, file,
                    "Cannot open " + file + ": it is a directory, not a database file.", null);
        }
        if (!Files.exists(file)) {
            throw new StorageException(Problem.MISSING_FILE, file, "There is no database at " + file
                    + " (create one with 'sovereign init').", null);
        }
        Connection c = Database.connect(file, dev.sovereign.engine.Durability.FULL);
        try {
            try (Statement s = c.createStatement()) {
                s.execute("PRAGMA query_only = ON");
            }
            int version = checkOwnership(c, file);
            return new SqliteAdminReader(file, data, clock, zone, c, version);
        } catch (SQLException e) {
            closeQuietly(c);
            throw Database.translate(file, e, "open");
        } catch (RuntimeException e) {
            closeQuietly(c);
            throw e;
        }
    }

    private static int checkOwnership(Connection c, Path file) throws SQLException {
        int appId = Migrator.pragma(c, "application_id");
        int version = Migrator.pragma(c, "user_version");
        int objects;
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT count(*) FROM sqlite_master")) {
            objects = rs.next() ? rs.getInt(1) : 0;
        }
        if (appId == 0 && objects == 0) {
            throw new StorageException(Problem.NOT_OURS, file, "The file " + file
                    + " is empty, not a Sovereign database (create one with 'sovereign init').", null);
        }
        if (appId == 0) {
            throw new StorageException(Problem.NOT_OURS, file, "The file " + file
                    + " is an SQLite database that Sovereign did not create; refusing to read it.", null);
        }
        if (appId != Database.APPLICATION_ID) {
            throw new StorageException(Problem.NOT_OURS, file, "The file " + file
                    + " belongs to another application (application_id " + appId + "); refusing to read it.", null);
        }
        if (version > Migrator.LATEST) {
            throw new StorageException(Problem.SCHEMA_TOO_NEW, file, "The database " + file + " has schema version "
                    + version + ", newer than this Sovereign understands (" + Migrator.LATEST + "); upgrade Sovereign.",
                    null);
        }
        if (version < Migrator.LATEST) {
            throw new StorageException(Problem.IO, file, "The database " + file + " has the older schema version "
                    + version + "; open it once with 'sovereign init' to migrate it, then attach again.", null);
        }
        return version;
    }

    @Override
    public Path database() {
        return file;
    }

    @Override
    public int schemaVersion() {
        return schemaVersion;
    }

    @Override
    public synchronized long dataVersion() {
        ensureOpen();
        if (!Files.exists(file)) {
            throw new StorageException(Problem.MISSING_FILE, file, "The database file " + file
                    + " is gone (moved or deleted); what is shown is its last state.", null);
        }
        return withBusyRetry("read", () -> Migrator.pragma(connection, "data_version"));
    }

    @Override
    public synchronized AdminSnapshot snapshot() {
        ensureOpen();
        return withBusyRetry("read", () -> {
            exec("BEGIN");
            try {
                long lastSeq = scalar("SELECT coalesce(max(seq), 0) FROM fence_events");
                long dataVersion = Migrator.pragma(connection, "data_version");
                long lastToken = scalar("SELECT last_token FROM token_counter WHERE id = 1");
                List<ProcessRow> processes = processes();
                LeaseRead leases = leases(processes);
                AdminSnapshot s = new AdminSnapshot(file, schemaVersion, dataVersion, clock.millis(), lastSeq,
                        lastToken, leases.baseline().rows(), withLeaseCounts(processes, leases.baseline().held()),
                        assignments(), attempts(), messages(), lastTick(), counts());
                exec("COMMIT");
                baseline = leases.baseline();
                leaseRowsReadLastSnapshot = leases.rowsRead();
                if (leases.full()) {
                    fullLeaseReads++;
                }
                return s;
            } catch (SQLException | RuntimeException e) {
                rollbackQuietly();
                throw e;
            }
        });
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

    /**
     * The leases of one snapshot, kept to make the next one incremental.
     *
     * @param actorCount    {@code count(*)} of actors when read
     * @param actorMaxRowid {@code max(rowid)} of actors when read (actors are only ever added, so
     *                      the two together change whenever one is)
     * @param lastChange    the lease change counter when read: every lease row written or deleted
     *                      later carries a higher marker
     * @param rows          every actor's lease, by actor id (unmodifiable)
     * @param positions     each actor's index in {@code rows} (never changed once built)
     * @param held          how many of {@code rows} each holder holds (never changed once built)
     */
    private record LeaseBaseline(long actorCount, long actorMaxRowid, long lastChange, List<LeaseRow> rows,
                                 Map<String, Integer> positions, Map<String, Integer> held) {
    }

    private record LeaseRead(LeaseBaseline baseline, int rowsRead, boolean full) {
    }

    /**
     * The actors whose lease changed after a given marker (the three parameters), each with its
     * current lease: the lease rows marked later, then the actors released later whose row is gone
     * (free; a row there again would be marked later still, so it is in the first part). UNION ALL
     * and no join back for the first part: with every row changed this costs about what a full read
     * does, where a UNION of actor ids joined back cost half as much again.
     */
    static final String CHANGED_LEASES_SQL = "SELECT l.actor_id, l.process_identity, l.token, l.ttl_ms,"
            + " l.acquired_at, l.renewed_at, l.expires_at, l.renewals"
            + " FROM actor_leases l WHERE l.change_seq > ?"
            + " UNION ALL SELECT t.actor_id, j.process_identity, j.token, j.ttl_ms,"
            + " j.acquired_at, j.renewed_at, j.expires_at, j.renewals"
            + " FROM lease_tombstones t LEFT JOIN actor_leases j ON j.actor_id = t.actor_id"
            + " WHERE t.change_seq > ? AND (j.actor_id IS NULL OR j.change_seq <= ?)";

    /**
     * Below this many actors a snapshot never switches to a full read because most rows changed:
     * either way costs well under a millisecond, and the incremental path stays the one exercised.
     */
    static final int FULL_READ_MIN_ROWS = 512;

    static final String COUNT_CHANGED_SQL = "SELECT count(*) FROM actor_leases WHERE change_seq > ?";

    private static final String ALL_LEASES_SQL = "SELECT a.id, l.process_identity, l.token, l.ttl_ms,"
            + " l.acquired_at, l.renewed_at, l.expires_at, l.renewals"
            + " FROM actors a LEFT JOIN actor_leases l ON l.actor_id = a.id ORDER BY a.id";

    /**
     * Every actor with its lease: the hot path of a busy console (10,000 actors). Only the first
     * snapshot, one after an actor was added, or one after most rows changed, reads every row;
     * otherwise only the rows whose lease change marker is above the one the previous snapshot saw
     * (renewed, granted, taken over, or released: a tombstone) are read and replaced in a copy of
     * the previous list. All in this snapshot's read transaction, so the counter and the rows agree.
     * A row equal to the previous snapshot's is that same object, so the console's comparisons are
     * mostly identity checks.
     * See docs/decisions/0414-lease-change-marker.md.
     */
    private LeaseRead leases(List<ProcessRow> processes) throws SQLException {
        // two statements: each alone is optimised (about 10 us for 10,000 actors), the two in one
        // SELECT scan the table (about 400 us)
        long actorCount = scalar("SELECT count(*) FROM actors");
        long actorMaxRowid = scalar("SELECT coalesce(max(rowid), 0) FROM actors");
        long lastChange = scalar("SELECT last_change FROM lease_change_counter WHERE id = 1");
        LeaseBaseline before = baseline;
        Holders holders = new Holders(processes);
        if (before == null || before.actorCount() != actorCount || before.actorMaxRowid() != actorMaxRowid
                || lastChange < before.lastChange()) {
            return fullLeaseRead(before, holders, actorCount, actorMaxRowid, lastChange);
        }
        if (lastChange == before.lastChange()) {
            return new LeaseRead(before, 0, false);
        }
        if (actorCount >= FULL_READ_MIN_ROWS && countChangedRows(before.lastChange()) * 2 > actorCount) {
            // most rows changed (every holder's heartbeat came round): replacing them one by one in
            // the previous list costs about a third more than reading them all in order
            return fullLeaseRead(before, holders, actorCount, actorMaxRowid, lastChange);
        }
        List<LeaseRow> rows = new ArrayList<>(before.rows());
        Map<String, Integer> held = new HashMap<>(before.held());
        int read = 0;
        try (PreparedStatement ps = connection.prepareStatement(CHANGED_LEASES_SQL)) {
            ps.setLong(1, before.lastChange());
            ps.setLong(2, before.lastChange());
            ps.setLong(3, before.lastChange());
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    read++;
                    Integer at = before.positions().get(rs.getString(1));
                    if (at == null) {
                        // a lease for an actor the last full read did not see: cannot happen while
                        // actors are only added; read everything rather than guess
                        return fullLeaseRead(before, holders, actorCount, actorMaxRowid, lastChange);
                    }
                    LeaseRow row = leaseRow(rs, holders);
                    LeaseRow previous = rows.get(at);
                    count(held, previous, -1);
                    count(held, row, +1);
                    rows.set(at, row.equals(previous) ? previous : row);
                }
            }
        }
        return new LeaseRead(new LeaseBaseline(actorCount, actorMaxRowid, lastChange, List.copyOf(rows),
                before.positions(), held), read, false);
    }

    /** How many lease rows are marked after {@code lastChange} (an index range, counted in SQLite). */
    private long countChangedRows(long lastChange) throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement(COUNT_CHANGED_SQL)) {
            ps.setLong(1, lastChange);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? rs.getLong(1) : 0;
            }
        }
    }

    private LeaseRead fullLeaseRead(LeaseBaseline before, Holders holders, long actorCount, long actorMaxRowid,
                                    long lastChange) throws SQLException {
        int expected = before == null ? 16 : before.rows().size() + 16;
        List<LeaseRow> rows = new ArrayList<>(expected);
        Map<String, Integer> positions = new HashMap<>(expected * 2);
        Map<String, Integer> held = new HashMap<>();
        try (PreparedStatement ps = connection.prepareStatement(ALL_LEASES_SQL);
             ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                LeaseRow row = leaseRow(rs, holders);
                if (before != null) {
                    Integer at = before.positions().get(row.actor());
                    if (at != null && row.equals(before.rows().get(at))) {
                        row = before.rows().get(at);
                    }
                }
                positions.put(row.actor(), rows.size());
                rows.add(row);
                count(held, row, +1);
            }
        }
        // positions and held are never changed from here on (an incremental read copies held)
        return new LeaseRead(new LeaseBaseline(actorCount, actorMaxRowid, lastChange, List.copyOf(rows),
                positions, held), rows.size(), true);
    }

    /** Adds {@code delta} to the count of {@code row}'s holder, if it has one (a count of 0 is removed). */
    private static void count(Map<String, Integer> held, LeaseRow row, int delta) {
        if (row.holder() != null) {
            held.merge(row.holder().identity(), delta, (a, b) -> a + b == 0 ? null : a + b);
        }
    }

    /** One row of {@link #ALL_LEASES_SQL} or {@link #CHANGED_LEASES_SQL}: actor, then the lease columns (null: free). */
    private LeaseRow leaseRow(ResultSet rs, Holders holders) throws SQLException {
        String actor = rs.getString(1);
        String holder = rs.getString(2);
        if (holder == null) {
            return LeaseRow.free(actor);
        }
        return new LeaseRow(actor, holders.ref(holder), rs.getLong(3), rs.getLong(4), rs.getLong(5), rs.getLong(6),
                rs.getLong(7), rs.getLong(8));
    }

    /** Holders by identity: the snapshot's own process rows, one query for any other (stopped long ago). */
    private final class Holders {
        private final Map<String, ProcessRef> known = new HashMap<>();

        Holders(List<ProcessRow> processes) {
            for (ProcessRow p : processes) {
                known.put(p.process().identity(), p.process());
            }
        }

        ProcessRef ref(String identity) throws SQLException {
            ProcessRef ref = known.get(identity);
            if (ref == null) {
                ref = processRef(identity);
                known.put(identity, ref);
            }
            return ref;
        }
    }

    /**
     * The processes with how many lease rows name each, counted from this snapshot's own lease list
     * (the same read transaction, kept up to date with it) instead of one subquery per process.
     */
    private static List<ProcessRow> withLeaseCounts(List<ProcessRow> processes, Map<String, Integer> held) {
        List<ProcessRow> out = new ArrayList<>(processes.size());
        for (ProcessRow p : processes) {
            out.add(new ProcessRow(p.process(), p.kind(), p.startedAt(), p.heartbeatAt(), p.heartbeatIntervalMs(),
                    p.stoppedAt(), held.getOrDefault(p.process().identity(), 0), p.activeAttempts(), p.lastClaim()));
        }
        return out;
    }

    /** A process the snapshot's process rows did not include (stopped long ago, or unknown). */
    private ProcessRef processRef(String identity) throws SQLException {
        List<ProcessRef> found = query("SELECT p.label AS p_label, p.pid AS p_pid, p.host AS p_host FROM processes p"
                + " WHERE p.identity = ?", rs -> ref(rs, identity), identity);
        return found.isEmpty() ? ProcessRef.unknown(identity) : found.get(0);
    }

    /** The processes shown; {@code leasesHeld} is 0 here and filled in by {@link #withLeaseCounts}. */
    private List<ProcessRow> processes() throws SQLException {
        String columns = "p.identity, p.label AS p_label, p.pid AS p_pid, p.host AS p_host, p.kind, p.started_at,"
                + " p.heartbeat_at, p.heartbeat_interval_ms, p.stopped_at,"
                + " (SELECT count(*) FROM execution_attempts x WHERE x.process_identity = p.identity"
                + "   AND x.state = 'ACTIVE') AS attempts,"
                // the last --process claim of this identity (decision 0802); fence_events_by_resource serves it
                + " (SELECT e.detail FROM fence_events e WHERE e.resource_type = 'process' AND e.resource_id = p.identity"
                + "   AND e.kind = 'PROCESS_STARTED' AND e.category = '" + IdentityClaim.CATEGORY + "'"
                + "   ORDER BY e.seq DESC LIMIT 1) AS claim";
        return query("SELECT * FROM (SELECT " + columns + " FROM processes p WHERE p.stopped_at IS NULL"
                + " UNION ALL SELECT * FROM (SELECT " + columns + " FROM processes p WHERE p.stopped_at IS NOT NULL"
                + " ORDER BY p.started_at DESC LIMIT ?)) ORDER BY stopped_at IS NOT NULL, started_at DESC",
                rs -> new ProcessRow(ref(rs, rs.getString("identity")),
                        rs.getString("kind"), rs.getLong("started_at"), rs.getLong("heartbeat_at"),
                        rs.getLong("heartbeat_interval_ms"), nullableLong(rs, "stopped_at"), 0,
                        rs.getInt("attempts"), rs.getString("claim")), STOPPED_PROCESSES_SHOWN);
    }

    private List<AssignmentRow> assignments() throws SQLException {
        return query("SELECT s.id, s.actor_id, s.provider_spec, s.workspace_policy, s.state, s.current_attempt,"
                + " x.token AS current_token, s.retry_of, (SELECT r2.id FROM assignments r2 WHERE r2.retry_of = s.id)"
                + " AS retried_by, s.acknowledged_at, s.created_at, s.updated_at,"
                + " (SELECT count(*) FROM execution_attempts a WHERE a.assignment_id = s.id) AS attempts,"
                + " r.id AS r_id, r.attempt_id AS r_attempt, r.attempt_token AS r_token, r.process_identity AS r_process,"
                + " r.status AS r_status, r.failure_category AS r_failure, r.outcome_known AS r_known,"
                + " r.summary AS r_summary, r.created_at AS r_created,"
                // fence_events_by_resource serves it, once per receipt shown
                + " CASE WHEN r.id IS NULL THEN 0 ELSE EXISTS (SELECT 1 FROM fence_events st"
                + "   WHERE st.resource_type = 'attempt' AND st.resource_id = r.attempt_id"
                + "   AND st.kind = 'ATTEMPT_STOLEN') END AS r_stolen"
                + " FROM assignments s LEFT JOIN execution_attempts x ON x.id = s.current_attempt"
                + " LEFT JOIN receipts r ON r.assignment_id = s.id"
                // the most recent page, plus every run waiting for an operator however old: never dropped
                + " WHERE s.id IN (SELECT id FROM (SELECT id FROM assignments ORDER BY updated_at DESC, id LIMIT ?)"
                + "   UNION SELECT s2.id FROM assignments s2 WHERE " + NEEDS_OPERATOR.replace("s.", "s2.") + ")"
                + " ORDER BY s.updated_at DESC, s.id", rs -> {
                    ReceiptRow receipt = null;
                    Long rid = nullableLong(rs, "r_id");
                    if (rid != null) {
                        receipt = new ReceiptRow(rid, rs.getString("id"), rs.getString("r_attempt"),
                                rs.getLong("r_token"), rs.getString("r_process"), rs.getString("r_status"),
                                rs.getString("r_failure"), rs.getInt("r_known") == 1, rs.getString("r_summary"),
                                rs.getLong("r_created"), RunFolders.output(dataDirectory, rs.getString("id"),
                                        rs.getString("r_attempt")), rs.getInt("r_stolen") == 1);
                    }
                    return new AssignmentRow(rs.getString("id"), rs.getString("actor_id"), rs.getString("provider_spec"),
                            rs.getString("workspace_policy"), rs.getString("state"), rs.getString("current_attempt"),
                            nullableLong(rs, "current_token"), rs.getString("retry_of"), rs.getString("retried_by"),
                            nullableLong(rs, "acknowledged_at"), rs.getLong("created_at"), rs.getLong("updated_at"),
                            rs.getInt("attempts"), receipt);
                }, FINISHED_ROWS_SHOWN);
    }

    /**
     * A worker-lost failure nobody retried or acknowledged, on an assignment aliased {@code s}: FAILED
     * narrows it through {@code assignments_by_state}; the receipt and the retry are unique-index look-ups.
     */
    private static final String NEEDS_OPERATOR = "s.state = 'FAILED' AND s.acknowledged_at IS NULL"
            + " AND NOT EXISTS (SELECT 1 FROM assignments rt WHERE rt.retry_of = s.id)"
            + " AND EXISTS (SELECT 1 FROM receipts wl WHERE wl.assignment_id = s.id"
            + " AND wl.failure_category = '" + ReceiptRow.WORKER_LOST + "')";

    /**
     * The true totals: index-only counts ({@code assignments_by_state}, {@code messages_inbox},
     * {@code fence_events_rejections}).
     */
    private LedgerCounts counts() throws SQLException {
        long assignments = 0;
        long running = 0;
        Map<String, Long> byState = new java.util.TreeMap<>();
        for (Object[] row : query("SELECT state, count(*) AS n FROM assignments GROUP BY state",
                rs -> new Object[] {rs.getString("state"), rs.getLong("n")})) {
            assignments += (Long) row[1];
            byState.put((String) row[0], (Long) row[1]);
            if ("RUNNING".equals(row[0])) {
                running = (Long) row[1];
            }
        }
        long needsOperator = scalar("SELECT count(*) FROM assignments s WHERE " + NEEDS_OPERATOR);
        long[] m = new long[4];
        for (Object[] row : query("SELECT state, count(*) AS n FROM messages GROUP BY state",
                rs -> new Object[] {rs.getString("state"), rs.getLong("n")})) {
            int i = List.of("NEW", "CLAIMED", "DONE", "DEAD").indexOf((String) row[0]);
            if (i >= 0) {
                m[i] = (Long) row[1];
            }
        }
        // the partial index fence_events_rejections: only REJECTED rows are visited
        long rejections = scalar("SELECT count(*) FROM fence_events WHERE kind = 'REJECTED'");
        countRejectionsByCategory(rejections);
        return new LedgerCounts(assignments, running, needsOperator, m[0], m[1], m[2], m[3], rejections, byState,
                rejectionsByCategory);
    }

    /** Brings {@link #rejectionsByCategory} up to date: the new rejections only, or all if the total disagrees. */
    private void countRejectionsByCategory(long total) throws SQLException {
        long counted = rejectionsByCategory.values().stream().mapToLong(Long::longValue).sum();
        if (counted == total) {
            return;
        }
        if (counted > total) { // never expected (the journal only grows): start again
            rejectionsByCategory.clear();
            categoriesCountedTo = 0;
        }
        long after = categoriesCountedTo;
        long last = after;
        for (Object[] row : query("SELECT coalesce(category, 'unknown') AS c, count(*) AS n, max(seq) AS last"
                        + " FROM fence_events WHERE kind = 'REJECTED' AND seq > ? GROUP BY c",
                rs -> new Object[] {rs.getString("c"), rs.getLong("n"), rs.getLong("last")}, after)) {
            rejectionsByCategory.merge((String) row[0], (Long) row[1], Long::sum);
            last = Math.max(last, (Long) row[2]);
        }
        categoriesCountedTo = last;
    }

    private List<AttemptRow> attempts() throws SQLException {
        return query("SELECT x.id, x.assignment_id, x.actor_id, x.process_identity, p.label AS p_label,"
                + " p.pid AS p_pid, p.host AS p_host, x.token, x.lease_token, x.state, x.ttl_ms, x.started_at,"
                + " x.renewed_at, x.expires_at, x.ended_at,"
                + " EXISTS (SELECT 1 FROM assignments s WHERE s.current_attempt = x.id) AS is_current"
                + " FROM execution_attempts x LEFT JOIN processes p ON p.identity = x.process_identity"
                + " ORDER BY x.started_at DESC, x.token DESC LIMIT ?",
                rs -> new AttemptRow(rs.getString("id"), rs.getString("assignment_id"), rs.getString("actor_id"),
                        ref(rs, rs.getString("process_identity")), rs.getLong("token"), rs.getLong("lease_token"),
                        rs.getString("state"), rs.getInt("is_current") == 1, rs.getLong("ttl_ms"),
                        rs.getLong("started_at"), rs.getLong("renewed_at"), rs.getLong("expires_at"),
                        nullableLong(rs, "ended_at")), FINISHED_ROWS_SHOWN);
    }

    private List<MessageRow> messages() throws SQLException {
        String columns = "m.id, m.sender, m.recipient, m.subject, m.state, m.claim_actor, m.claim_process,"
                + " p.label AS p_label, p.pid AS p_pid, p.host AS p_host, m.claim_token, m.claim_expires_at,"
                + " m.retry_count, m.max_retries, m.created_at, m.updated_at";
        return query("SELECT * FROM (SELECT " + columns + " FROM messages m"
                + " LEFT JOIN processes p ON p.identity = m.claim_process WHERE m.state IN ('NEW', 'CLAIMED')"
                + " UNION ALL SELECT * FROM (SELECT " + columns + " FROM messages m"
                + " LEFT JOIN processes p ON p.identity = m.claim_process WHERE m.state IN ('DONE', 'DEAD')"
                + " ORDER BY m.updated_at DESC LIMIT ?)) ORDER BY created_at DESC, id", rs -> {
                    String claimer = rs.getString("claim_process");
                    return new MessageRow(rs.getString("id"), rs.getString("sender"), rs.getString("recipient"),
                            rs.getString("subject"), rs.getString("state"), rs.getString("claim_actor"),
                            claimer == null ? null : ref(rs, claimer), nullableLong(rs, "claim_token"),
                            nullableLong(rs, "claim_expires_at"), rs.getInt("retry_count"), rs.getInt("max_retries"),
                            rs.getLong("created_at"), rs.getLong("updated_at"));
                }, FINISHED_ROWS_SHOWN);
    }

    private Optional<SupervisorTickRow> lastTick() throws SQLException {
        List<SupervisorTickRow> rows = query("SELECT t.seq, t.at, t.process_identity, p.label AS p_label,"
                + " p.pid AS p_pid, p.host AS p_host, t.expired_leases, t.stale_processes, t.swept_claims,"
                + " t.recovered, t.failures, t.report FROM supervisor_ticks t"
                + " LEFT JOIN processes p ON p.identity = t.process_identity ORDER BY t.seq DESC LIMIT 1",
                rs -> new SupervisorTickRow(rs.getLong("seq"), rs.getLong("at"), ref(rs, rs.getString("process_identity")),
                        rs.getInt("expired_leases"), rs.getInt("stale_processes"), rs.getInt("swept_claims"),
                        rs.getInt("recovered"), rs.getInt("failures"), rs.getString("report")));
        return rows.stream().findFirst();
    }

    @Override
    public synchronized List<JournalEntry> eventsSince(long afterSeq, int limit) {
        ensureOpen();
        return withBusyRetry("read", () -> explainAll(query(EVENT_SELECT + " WHERE e.seq > ? ORDER BY e.seq LIMIT ?",
                SqliteAdminReader::rawEvent, afterSeq, limit)));
    }

    @Override
    public synchronized List<JournalEntry> recentRejections(int limit) {
        ensureOpen();
        return withBusyRetry("read", () -> explainAll(query(EVENT_SELECT
                + " WHERE e.kind = 'REJECTED' ORDER BY e.seq DESC LIMIT ?", SqliteAdminReader::rawEvent, limit)));
    }

    private List<JournalEntry> explainAll(List<JournalEntry> raw) throws SQLException {
        List<JournalEntry> out = new ArrayList<>(raw.size());
        for (JournalEntry e : raw) {
            out.add(withSentence(e, e.isRejection() ? explain(e) : sentences.describe(e)));
        }
        return out;
    }

    /**
     * Finds why a rejection happened: the event that minted the current token (tokens come from one
     * counter, so at most one grant carries it), looked up on the same resource first (indexed), then
     * anywhere before the rejection; or, when nothing was current, the last event on the resource.
     */
    private String explain(JournalEntry r) throws SQLException {
        JournalEntry grant = null;
        JournalEntry ended = null;
        if (r.currentToken() != null) {
            grant = first(EVENT_SELECT + " WHERE e.resource_type = ? AND e.resource_id = ? AND e.seq < ?"
                    + " AND e.token = ? AND e.kind <> 'REJECTED' ORDER BY e.seq LIMIT 1",
                    r.resourceType(), r.resourceId(), r.seq(), r.currentToken());
            if (grant == null) {
                grant = first(EVENT_SELECT + " WHERE e.token = ? AND e.seq < ? AND e.kind <> 'REJECTED'"
                        + " ORDER BY e.seq LIMIT 1", r.currentToken(), r.seq());
            }
        } else {
            ended = first(EVENT_SELECT + " WHERE e.resource_type = ? AND e.resource_id = ? AND e.seq < ?"
                    + " AND e.kind NOT IN ('REJECTED', 'LEASE_RENEWED') ORDER BY e.seq DESC LIMIT 1",
                    r.resourceType(), r.resourceId(), r.seq());
            if (r.presentedToken() != null && r.actor() != null) {
                // A stolen fence is journalled on the attempt, not on the assignment the worker wrote to:
                // find it by the token it presented (fence_events_by_actor, newest first).
                JournalEntry stolen = first(EVENT_SELECT + " WHERE e.actor_id = ? AND e.seq < ?"
                        + " AND e.kind = 'ATTEMPT_STOLEN' AND e.token = ? ORDER BY e.seq DESC LIMIT 1",
                        r.actor(), r.seq(), r.presentedToken());
                if (stolen != null && (ended == null || stolen.seq() > ended.seq())) {
                    ended = stolen;
                }
            }
        }
        return sentences.explainRejection(r, grant, ended);
    }

    private JournalEntry first(String sql, Object... args) throws SQLException {
        List<JournalEntry> rows = query(sql, SqliteAdminReader::rawEvent, args);
        return rows.isEmpty() ? null : rows.get(0);
    }

    private static JournalEntry withSentence(JournalEntry e, String sentence) {
        return new JournalEntry(e.seq(), e.at(), e.kind(), e.resourceType(), e.resourceId(), e.actor(), e.process(),
                e.token(), e.presentedToken(), e.currentToken(), e.category(), e.detail(), sentence);
    }

    private static JournalEntry rawEvent(ResultSet rs) throws SQLException {
        String process = rs.getString("process_identity");
        return new JournalEntry(rs.getLong("seq"), rs.getLong("at"), rs.getString("kind"), rs.getString("resource_type"),
                rs.getString("resource_id"), rs.getString("actor_id"), process == null ? null : ref(rs, process),
                nullableLong(rs, "token"), nullableLong(rs, "presented_token"), nullableLong(rs, "current_token"),
                rs.getString("category"), rs.getString("detail"), null);
    }

    @Override
    public long exportJournalCsv(Path target, ExportProgress progress) {
        Path absolute = target.toAbsolutePath().normalize();
        Path dir = absolute.getParent();
        long total;
        synchronized (this) {
            ensureOpen();
            total = withBusyRetry("read", () -> scalar("SELECT count(*) FROM fence_events"));
        }
        Path part = null;
        try {
            part = OwnerOnly.createTempFile(dir, absolute.getFileName().toString(), ".part"); // 0600 (decision 0801)
            long done = 0;
            try (BufferedWriter w = Files.newBufferedWriter(part, StandardCharsets.UTF_8)) {
                w.write(JournalCsv.header());
                long after = 0;
                while (true) {
                    List<JournalEntry> page = eventsSince(after, EXPORT_PAGE);
                    for (JournalEntry e : page) {
                        w.write(JournalCsv.row(e));
                        after = e.seq();
                    }
                    done += page.size();
                    total = Math.max(total, done);
                    progress.progress(done, total);
                    if (page.size() < EXPORT_PAGE) {
                        break;
                    }
                    if (Thread.currentThread().isInterrupted()) {
                        throw new IOException("the export was cancelled");
                    }
                }
            }
            Files.move(part, absolute, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            return done;
        } catch (IOException e) {
            if (part != null) {
                try {
                    Files.deleteIfExists(part);
                } catch (IOException ignored) {
                    // leave the temporary file; its name says what it is
                }
            }
            throw new UncheckedIOException("Could not export the journal to " + absolute + ": " + e.getMessage(), e);
        }
    }

    // ---- small JDBC helpers: this reader does not use Tx (it belongs to a Database's write connection) ----

    @FunctionalInterface
    private interface Read<T> {
        T run() throws SQLException;
    }

    private <T> T withBusyRetry(String doing, Read<T> read) {
        long deadline = System.nanoTime() + BUSY_BOUND_MS * 1_000_000L;
        while (true) {
            try {
                return read.run();
            } catch (SQLException e) {
                if (Database.isBusy(e) && System.nanoTime() < deadline) {
                    Database.pauseBriefly();
                    continue;
                }
                throw Database.translate(file, e, doing);
            }
        }
    }

    private <T> List<T> query(String sql, Tx.RowMapper<T> mapper, Object... args) throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement(sql)) {
            Tx.bind(ps, args);
            try (ResultSet rs = ps.executeQuery()) {
                List<T> out = new ArrayList<>();
                while (rs.next()) {
                    out.add(mapper.map(rs));
                }
                return out;
            }
        }
    }

    private long scalar(String sql) throws SQLException {
        try (Statement s = connection.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            return rs.next() ? rs.getLong(1) : 0;
        }
    }

    private void exec(String sql) throws SQLException {
        try (Statement s = connection.createStatement()) {
            s.execute(sql);
        }
    }

    private void rollbackQuietly() {
        try {
            exec("ROLLBACK");
        } catch (SQLException ignored) {
            // no transaction was open
        }
    }

    private static ProcessRef ref(ResultSet rs, String identity) throws SQLException {
        return new ProcessRef(identity, rs.getString("p_label"), nullableLong(rs, "p_pid"), rs.getString("p_host"));
    }

    private static Long nullableLong(ResultSet rs, String column) throws SQLException {
        return Tx.nullableLong(rs, column);
    }

    private void ensureOpen() {
        if (closed) {
            throw new IllegalStateException("the admin reader for " + file + " is closed");
        }
    }

    private static void closeQuietly(Connection c) {
        try {
            c.close();
        } catch (SQLException ignored) {
            // nothing to do
        }
    }

    @Override
    public synchronized void close() {
        if (!closed) {
            closed = true;
            closeQuietly(connection);
        }
    }
}
