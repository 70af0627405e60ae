package dev.sovereign.engine.bench;

import dev.sovereign.engine.base.Durability;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Fills an engine database file with a long history, fast, through plain JDBC batch inserts that
 * match the schema (V0001): finished assignments with their DONE attempts and receipts, finished
 * messages, stopped processes, and a large fence journal. Nothing in it is due: no live or expired
 * lease, no ACTIVE attempt, no CLAIMED message. An idle supervisor tick on such a file must read only
 * what is due, via the worklist indexes, whatever the size of the history.
 *
 * <p>Written with {@code synchronous=OFF} in one transaction (it is test data), with the secondary
 * indexes of the big tables dropped during the load and re-created from their own stored definitions
 * afterwards (sorting once is far faster than a million random index inserts), then checkpointed and
 * analysed. The schema afterwards is exactly the migrated one.
 */
final class LedgerHistory {
    static final long DAY_MS = 86_400_000L;
    /** System property naming a ready history file that benchmarks copy instead of generating their own. */
    static final String TEMPLATE_PROPERTY = "sovereign.bench.historyTemplate";

    static final int JOURNAL_ROWS = 1_000_000;
    static final int FINISHED_ATTEMPTS = 100_000;

    /** Generates the standard history (1,000,000 journal rows, 100,000 finished attempts) once, under {@code work}. */
    static Path template(Path work) throws SQLException, IOException {
        Path dir = work.resolve("history-template");
        BenchFiles.deleteRecursively(dir);
        Files.createDirectories(dir);
        Path file = BenchFiles.createEngineFile(dir, Durability.FULL);
        new LedgerHistory(JOURNAL_ROWS, FINISHED_ATTEMPTS).writeInto(file, System.currentTimeMillis());
        return file;
    }

    /**
     * Puts the standard history at {@code dir/sovereign.db}: a copy of the template named by
     * {@link #TEMPLATE_PROPERTY} when there is one, else freshly generated.
     */
    static Path standardHistoryIn(Path dir) throws SQLException, IOException {
        Path file = dir.resolve("sovereign.db");
        String template = System.getProperty(TEMPLATE_PROPERTY);
        if (template != null && Files.isRegularFile(Path.of(template))) {
            Files.copy(Path.of(template), file);
            return file;
        }
        BenchFiles.createEngineFile(dir, Durability.FULL);
        new LedgerHistory(JOURNAL_ROWS, FINISHED_ATTEMPTS).writeInto(file, System.currentTimeMillis());
        return file;
    }

    final int journalRows;
    final int finishedAttempts;
    final int actors;
    final int processes;
    final int finishedMessages;

    LedgerHistory(int journalRows, int finishedAttempts) {
        this.journalRows = journalRows;
        this.finishedAttempts = finishedAttempts;
        this.actors = 1_000;
        this.processes = 200;
        this.finishedMessages = 10_000;
    }

    /** Writes the history into {@code file}, which the engine has already created and migrated. */
    void writeInto(Path file, long now) throws SQLException {
        long start = now - 30 * DAY_MS;
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + file)) {
            try (Statement s = c.createStatement()) {
                s.execute("PRAGMA journal_mode = WAL");
                s.execute("PRAGMA synchronous = OFF");
                s.execute("PRAGMA foreign_keys = ON");
                s.execute("PRAGMA cache_size = -262144");
                s.execute("PRAGMA temp_store = MEMORY");
            }
            c.setAutoCommit(false);
            List<String> names = new ArrayList<>();
            List<String> indexes = new ArrayList<>();
            try (Statement s = c.createStatement();
                    ResultSet rs = s.executeQuery(
                            "SELECT name, sql FROM sqlite_master WHERE type = 'index'"
                                    + " AND sql IS NOT NULL AND tbl_name IN ('fence_events', 'assignments', 'execution_attempts')")) {
                while (rs.next()) {
                    names.add(rs.getString(1));
                    indexes.add(rs.getString(2));
                }
            }
            // The schema's guards (V0003, V0005) refuse what this generator does on purpose: rows inserted in
            // their final states, no token minted per row. They are set aside for the bulk insert and put back
            // with their exact text, so the engine's open-time guard check accepts the file.
            List<String> triggerNames = new ArrayList<>();
            List<String> triggers = new ArrayList<>();
            try (Statement s = c.createStatement();
                    ResultSet rs = s.executeQuery(
                            "SELECT name, sql FROM sqlite_master WHERE type = 'trigger'" + " ORDER BY rowid")) {
                while (rs.next()) {
                    triggerNames.add(rs.getString(1));
                    triggers.add(rs.getString(2));
                }
            }
            try (Statement s = c.createStatement()) {
                for (String name : names) {
                    s.execute("DROP INDEX " + name);
                }
                for (String name : triggerNames) {
                    s.execute("DROP TRIGGER \"" + name + "\"");
                }
            }
            insertProcesses(c, start);
            phase("insertProcesses");
            insertActors(c, start);
            phase("insertActors");
            insertAssignmentsAttemptsReceipts(c, start);
            phase("insertAssignmentsAttemptsReceipts");
            insertMessages(c, start);
            phase("insertMessages");
            insertJournal(c, start, now);
            phase("insertJournal");
            try (Statement s = c.createStatement()) {
                for (String sql : indexes) {
                    s.execute(sql);
                }
                phase("indexes");
                s.execute("UPDATE token_counter SET last_token = " + (lastTokenUsed() + 1) + " WHERE id = 1");
                for (String sql : triggers) {
                    s.execute(sql);
                }
            }
            c.commit();
            c.setAutoCommit(true);
            try (Statement s = c.createStatement()) {
                s.execute("PRAGMA wal_checkpoint(TRUNCATE)");
                s.execute("ANALYZE");
            }
            phase("checkpoint+analyze");
        }
    }

    private long phaseStart = System.nanoTime();

    private void phase(String name) {
        if (Boolean.getBoolean("sovereign.bench.trace")) {
            System.err.printf("%s %.1f s%n", name, (System.nanoTime() - phaseStart) / 1e9);
        }
        phaseStart = System.nanoTime();
    }

    long lastTokenUsed() {
        return 2L * finishedAttempts + journalRows;
    }

    static String process(int i) {
        return "proc_history_" + i;
    }

    static String actor(int i) {
        return "history-actor-" + i;
    }

    private void insertProcesses(Connection c, long start) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO processes (identity, pid, host, kind, label,"
                + " started_at, heartbeat_at, heartbeat_interval_ms, stopped_at) VALUES (?, ?, 'bench', 'worker', ?,"
                + " ?, ?, 1000, ?)")) {
            for (int i = 0; i < processes; i++) {
                long at = start + i * 1000L;
                ps.setString(1, process(i));
                ps.setInt(2, 10_000 + i);
                ps.setString(3, "history " + i);
                ps.setLong(4, at);
                ps.setLong(5, at + 3_600_000L);
                ps.setLong(6, at + 3_600_000L);
                ps.addBatch();
            }
            ps.executeBatch();
        }
    }

    private void insertActors(Connection c, long start) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(
                "INSERT INTO actors (id, workspace_policy, created_at) VALUES (?, 'temporary', ?)")) {
            for (int i = 0; i < actors; i++) {
                ps.setString(1, actor(i));
                ps.setLong(2, start);
                ps.addBatch();
            }
            ps.executeBatch();
        }
    }

    private void insertAssignmentsAttemptsReceipts(Connection c, long start) throws SQLException {
        String[] states = {
            "COMPLETED",
            "COMPLETED",
            "COMPLETED",
            "COMPLETED",
            "COMPLETED",
            "COMPLETED",
            "COMPLETED",
            "COMPLETED",
            "BLOCKED",
            "FAILED"
        };
        long span = 30 * DAY_MS;
        try (PreparedStatement a = c.prepareStatement("INSERT INTO assignments (id, actor_id, provider_spec,"
                        + " workspace_policy, state, current_attempt, retry_of, created_at, updated_at)"
                        + " VALUES (?, ?, 'scripted:ms=0,outcome=completed', 'temporary', ?, NULL, NULL, ?, ?)");
                PreparedStatement t = c.prepareStatement("INSERT INTO execution_attempts (id, assignment_id, actor_id,"
                        + " process_identity, token, lease_token, state, ttl_ms, started_at, renewed_at, expires_at, ended_at)"
                        + " VALUES (?, ?, ?, ?, ?, ?, 'DONE', 10000, ?, ?, ?, ?)");
                PreparedStatement r =
                        c.prepareStatement("INSERT INTO receipts (assignment_id, attempt_id, attempt_token,"
                                + " process_identity, status, failure_category, outcome_known, summary, created_at)"
                                + " VALUES (?, ?, ?, ?, ?, NULL, 1, 'generated history', ?)")) {
            for (int i = 0; i < finishedAttempts; i++) {
                String id = "asg_history_" + i;
                String attempt = "att_history_" + i;
                String actor = actor(i % actors);
                String proc = process(i % processes);
                String state = states[i % states.length];
                long created = start + span * i / finishedAttempts;
                long ended = created + 2_000;
                long leaseToken = 2L * i + 1;
                long token = 2L * i + 2;
                a.setString(1, id);
                a.setString(2, actor);
                a.setString(3, state);
                a.setLong(4, created);
                a.setLong(5, ended);
                a.addBatch();
                t.setString(1, attempt);
                t.setString(2, id);
                t.setString(3, actor);
                t.setString(4, proc);
                t.setLong(5, token);
                t.setLong(6, leaseToken);
                t.setLong(7, created);
                t.setLong(8, created + 1_000);
                t.setLong(9, created + 11_000);
                t.setLong(10, ended);
                t.addBatch();
                r.setString(1, id);
                r.setString(2, attempt);
                r.setLong(3, token);
                r.setString(4, proc);
                r.setString(5, state.toLowerCase(Locale.ROOT));
                r.setLong(6, ended);
                r.addBatch();
                if (i % 10_000 == 9_999) {
                    a.executeBatch();
                    t.executeBatch();
                    r.executeBatch();
                }
            }
            a.executeBatch();
            t.executeBatch();
            r.executeBatch();
        }
    }

    private void insertMessages(Connection c, long start) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO messages (id, sender, recipient, subject, body,"
                + " state, retry_count, max_retries, created_at, updated_at) VALUES (?, 'history', ?, 'generated', NULL,"
                + " ?, 0, 3, ?, ?)")) {
            for (int i = 0; i < finishedMessages; i++) {
                long at = start + 30 * DAY_MS * i / finishedMessages;
                ps.setString(1, "msg_history_" + i);
                ps.setString(2, actor(i % actors));
                ps.setString(3, i % 50 == 0 ? "DEAD" : "DONE");
                ps.setLong(4, at);
                ps.setLong(5, at + 500);
                ps.addBatch();
            }
            ps.executeBatch();
        }
    }

    private void insertJournal(Connection c, long start, long now) throws SQLException {
        String[] kinds = {
            "LEASE_ACQUIRED",
            "LEASE_RENEWED",
            "LEASE_RENEWED",
            "LEASE_RENEWED",
            "ATTEMPT_STARTED",
            "ATTEMPT_DONE",
            "LEASE_RELEASED",
            "MESSAGE_SENT",
            "CLAIM_GRANTED",
            "MESSAGE_DONE"
        };
        long span = now - start - 60_000;
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO fence_events (at, kind, resource_type, resource_id,"
                + " actor_id, process_identity, token, presented_token, current_token, category, detail)"
                + " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")) {
            for (int i = 0; i < journalRows; i++) {
                boolean rejected = i % 500 == 499;
                String kind = rejected ? "REJECTED" : kinds[i % kinds.length];
                String type = kind.startsWith("ATTEMPT")
                        ? "attempt"
                        : kind.startsWith("MESSAGE") || kind.startsWith("CLAIM") ? "message" : "actor";
                String actor = actor(i % actors);
                ps.setLong(1, start + span * i / journalRows);
                ps.setString(2, kind);
                ps.setString(3, type);
                ps.setString(4, type.equals("actor") ? actor : type + "_history_" + (i / 10));
                ps.setString(5, actor);
                ps.setString(6, process(i % processes));
                ps.setLong(7, 2L * finishedAttempts + i + 1);
                if (rejected) {
                    ps.setLong(8, 2L * finishedAttempts + i - 5);
                    ps.setLong(9, 2L * finishedAttempts + i);
                    ps.setString(10, "actor_lease_lost");
                    ps.setString(11, "generated rejection");
                } else {
                    ps.setNull(8, Types.INTEGER);
                    ps.setNull(9, Types.INTEGER);
                    ps.setNull(10, Types.VARCHAR);
                    ps.setString(11, "generated history");
                }
                ps.addBatch();
                if (i % 20_000 == 19_999) {
                    ps.executeBatch();
                }
            }
            ps.executeBatch();
        }
    }
}
