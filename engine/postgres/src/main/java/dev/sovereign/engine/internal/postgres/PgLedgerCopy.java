package dev.sovereign.engine.internal.postgres;

import dev.sovereign.engine.SovereignVersion;
import dev.sovereign.engine.base.FencingTokens;
import dev.sovereign.engine.base.LedgerLocation;
import dev.sovereign.engine.base.StorageException;
import dev.sovereign.engine.spi.LedgerRows;
import dev.sovereign.engine.spi.tools.LedgerCopyRefusal;
import dev.sovereign.engine.spi.tools.LedgerCopyReport;
import java.sql.BatchUpdateException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Writes a whole ledger (another backend's {@link LedgerRows}) into an empty PostgreSQL ledger, in ONE
 * transaction (decision 0907). The guards would refuse history written after the fact (an ended assignment,
 * a receipt, a journal row with its own seq), so the copy, as the tables' owner, switches the user triggers
 * of the tables it writes off with {@code ALTER TABLE ... DISABLE TRIGGER USER} inside that transaction and
 * back on to exactly the state it found before it commits; PostgreSQL's DDL is transactional, so a failure
 * anywhere leaves the target as it was, guards and all, and no other session ever sees them off (the ALTER
 * holds its table lock until the commit). Before committing, the counters are raised past every copied value
 * through their own guards, and {@link PgMigrator#verify} must pass.
 *
 * <p>Generic by design: every column is copied by name, so a column both schemas gain is copied without a
 * change here, and a table or column the source has and this ledger lacks refuses the copy rather than being
 * dropped. The only names it knows are those with a rule of their own: the two counters, the tables the
 * target writes itself ({@link #NOT_COPIED}), and the two pointers that close a foreign-key circle
 * ({@link #LATER}). A new trigger of a later migration is switched off and on like the others.
 *
 * <p>Not thread-safe; one call, one connection.
 */
final class PgLedgerCopy {
    /** The target's own: its mark (the source is never a sandbox) and its migration record. */
    static final Set<String> NOT_COPIED = Set.of("ledger_mark", "schema_migrations", "retention");
    /** One row each, never inserted: raised to the source's value through their guards. */
    static final Map<String, String> COUNTERS =
            Map.of("token_counter", "last_token", "lease_change_counter", "last_change");
    /**
     * The token counter's stripes from the source's one counter {@code ?} (bound three times): each stripe's row the
     * highest value at or below it on its own residue, and never below its epoch's start, so each stripe's next token
     * is above every token copied (schema version 19, decision 0924; the migration seeds its stripes the same way).
     */
    static final String STRIPES_FROM =
            "UPDATE token_counter SET last_token = greatest(?::bigint - ((((?::bigint - id) % "
                    + PgTx.TOKEN_STRIPES + ") + " + PgTx.TOKEN_STRIPES + ") % " + PgTx.TOKEN_STRIPES
                    + "), (?::bigint / 1099511627776) * 1099511627776 + id)";

    /** Tables written first, in this order, for their foreign keys; the rest follow in the source's order. */
    static final List<String> FIRST = List.of(
            "processes",
            "actors",
            "assignments",
            "execution_attempts",
            "receipts",
            "messages",
            "actor_leases",
            "lease_tombstones",
            "fence_events",
            "supervisor_ticks");
    /** Columns that point forward into a table written later: written NULL, then set once their rows exist. */
    static final Map<String, List<String>> LATER =
            Map.of("assignments", List.of("current_attempt", "ended_by_attempt"));
    /** What is written into the counters: the highest of the source's counter and every such column copied. */
    private static final Map<String, Set<String>> COUNTED = Map.of(
            "token_counter",
                    Set.of(
                            "token",
                            "lease_token",
                            "claim_token",
                            "attempt_token",
                            "current_token",
                            "presented_token",
                            "finished_with"),
            "lease_change_counter", Set.of("change_seq", "presented_change"));

    private final LedgerLocation to;
    private final LedgerRows source;
    /** Per table, the rows whose {@link #LATER} columns are still to be written: key first, then those values. */
    private final Map<String, List<Object[]>> pending = new LinkedHashMap<>();

    private PgLedgerCopy(LedgerLocation to, LedgerRows source) {
        this.to = to;
        this.source = source;
    }

    /**
     * Makes {@code to} ready to take a copy BEFORE the source is locked: creates the schema in a database that has
     * none (the migrations {@code init} runs, during which a moved file's workers would otherwise wait on its write lock),
     * or checks a current one; refuses an older one. {@link #copy} checks it again.
     */
    static void prepare(LedgerLocation to, int lockTimeoutMillis) {
        try (Connection c = PgDatabase.connect(to)) {
            installSchema(c, to, lockTimeoutMillis);
        } catch (SQLException e) {
            throw PgDatabase.translate(to, e, "copy into");
        } catch (PgSchemaException e) {
            throw new StorageException(PgDatabase.problemOf(e.problem()), null, e.getMessage(), e);
        }
    }

    private static void installSchema(Connection c, LedgerLocation to, int lockTimeoutMillis) throws SQLException {
        int version = PgMigrator.schemaVersion(c);
        if (version > 0 && version < PgMigrator.LATEST) {
            // migrating it here would change a ledger the copy may then refuse as not empty
            throw new LedgerCopyRefusal(
                    "target_not_current",
                    "The PostgreSQL ledger " + to + " has the older"
                            + " schema version " + version
                            + "; a copy goes into a new database or a ledger of schema"
                            + " version " + PgMigrator.LATEST
                            + " (run 'sovereign init' on it first), and nothing was changed.");
        }
        new PgMigrator(
                        false,
                        SovereignVersion.current().version(),
                        SovereignVersion.current().commit(),
                        lockTimeoutMillis)
                .migrate(c);
    }

    static LedgerCopyReport copy(LedgerLocation to, LedgerRows source, int lockTimeoutMillis) {
        try (Connection c = PgDatabase.connect(to)) {
            try {
                installSchema(c, to, lockTimeoutMillis); // normally done by prepare: then only the check
                try (Statement s = c.createStatement()) {
                    s.execute("SET lock_timeout = " + lockTimeoutMillis);
                }
                c.setAutoCommit(false);
                LedgerCopyReport report = new PgLedgerCopy(to, source).copyIn(c);
                c.commit();
                return report;
            } catch (SQLException e) {
                rollbackQuietly(c);
                throw PgDatabase.translate(to, e, "copy into");
            } catch (PgSchemaException e) {
                rollbackQuietly(c);
                throw new StorageException(PgDatabase.problemOf(e.problem()), null, e.getMessage(), e);
            } catch (RuntimeException e) {
                rollbackQuietly(c);
                throw e;
            }
        } catch (SQLException e) {
            throw PgDatabase.translate(to, e, "close");
        }
    }

    private LedgerCopyReport copyIn(Connection c) throws SQLException {
        Map<String, Map<String, Boolean>> target = targetTables(c); // table -> column -> is an identity
        Map<String, List<String>> plan = plan(target);
        List<String[]> triggers = triggers(c, plan.keySet()); // table, trigger, tgenabled
        try (Statement s = c.createStatement()) {
            // the table locks first (SHARE ROW EXCLUSIVE until the commit: no writer gets in between), then the check
            for (String table : plan.keySet()) {
                s.execute("ALTER TABLE " + q(table) + " DISABLE TRIGGER USER");
            }
            for (String counter : COUNTERS.keySet()) {
                s.execute("SELECT 1 FROM " + q(counter) + " WHERE id = 1 FOR UPDATE");
            }
        }
        requireProductionMark(c);
        requireEmpty(c, plan.keySet());

        Map<String, Long> rows = new LinkedHashMap<>();
        Map<String, Long> highest = new LinkedHashMap<>();
        for (Map.Entry<String, List<String>> t : plan.entrySet()) {
            rows.put(t.getKey(), insertAll(c, t.getKey(), t.getValue(), highest));
        }
        writePointers(c);
        long policies = copyRetention(c);
        if (policies > 0) {
            rows.put("retention", policies);
        }
        for (Map.Entry<String, Map<String, Boolean>> t : target.entrySet()) {
            if (plan.containsKey(t.getKey())) {
                for (Map.Entry<String, Boolean> column : t.getValue().entrySet()) {
                    if (column.getValue()) {
                        windSequencePast(c, t.getKey(), column.getKey());
                    }
                }
            }
        }
        try (Statement s = c.createStatement()) {
            for (String[] t : triggers) {
                s.execute("ALTER TABLE " + q(t[0]) + " " + enable(t[2]) + " TRIGGER " + q(t[1]));
            }
        }
        long highestToken = 0;
        for (Map.Entry<String, String> counter : COUNTERS.entrySet()) {
            long value = Math.max(
                    sourceCounter(counter.getKey(), counter.getValue()), highest.getOrDefault(counter.getKey(), 0L));
            boolean tokens = counter.getKey().equals("token_counter");
            if (tokens) {
                requireCounterInRange(value);
            }
            if (value > 0) {
                // Both counters' guards let them move only one step at a time (the token counter also to an epoch the
                // history records: decisions 0603, 0013): a new ledger's counters are seeded with their guards off,
                // inside this transaction like every table above, and back on before the commit.
                List<String[]> guards = triggers(c, Set.of(counter.getKey()));
                try (Statement s = c.createStatement()) {
                    s.execute("ALTER TABLE " + q(counter.getKey()) + " DISABLE TRIGGER USER");
                    try (PreparedStatement ps = c.prepareStatement(
                            tokens
                                    ? STRIPES_FROM
                                    : "UPDATE " + q(counter.getKey()) + " SET " + q(counter.getValue())
                                            + " = ? WHERE id = 1")) {
                        for (int i = 1; i <= (tokens ? 3 : 1); i++) {
                            ps.setLong(i, value);
                        }
                        ps.executeUpdate();
                    }
                    for (String[] t : guards) {
                        s.execute("ALTER TABLE " + q(t[0]) + " " + enable(t[2]) + " TRIGGER " + q(t[1]));
                    }
                }
            }
            if (tokens) {
                highestToken = value;
            }
        }
        PgMigrator.verify(c);
        long lastSeq = scalar(c, "SELECT coalesce(max(seq), 0) FROM fence_events");
        long live = scalar(c, "SELECT count(*) FROM processes WHERE stopped_at IS NULL");
        return new LedgerCopyReport(source.location(), to, rows, highestToken, lastSeq, live);
    }

    /**
     * The source's retention policy and watermark, written over the target's default row (its one row is the
     * schema's, so it is set, not inserted; decision 0018); a source older than the policy keeps the default.
     */
    private long copyRetention(Connection c) throws SQLException {
        List<String> columns = source.tables().get("retention");
        if (columns == null) {
            return 0;
        }
        long[] updated = {0};
        List<String> copied = List.of("keep_ms", "pruned_below", "pruned_rows", "pruned_at", "set_at", "set_by");
        SQLException[] failed = {null};
        // with its guard off, like the counters: the guard judges a watermark's move against the policy it moves
        // under, and a source that pruned under a shorter policy and then raised it holds a valid pair it would refuse
        List<String[]> guards = triggers(c, Set.of("retention"));
        try (Statement s = c.createStatement()) {
            s.execute("ALTER TABLE retention DISABLE TRIGGER USER");
        }
        try (PreparedStatement ps = c.prepareStatement("UPDATE retention SET keep_ms = ?, pruned_below = ?,"
                + " pruned_rows = ?, pruned_at = ?, set_at = ?, set_by = ? WHERE kind = ?")) {
            source.forEachRow("retention", row -> {
                try {
                    for (int i = 0; i < copied.size(); i++) {
                        ps.setObject(i + 1, row.get(columns.indexOf(copied.get(i))));
                    }
                    ps.setObject(copied.size() + 1, row.get(columns.indexOf("kind")));
                    updated[0] += ps.executeUpdate();
                } catch (SQLException e) {
                    failed[0] = failed[0] == null ? e : failed[0];
                }
            });
        }
        try (Statement s = c.createStatement()) {
            for (String[] t : guards) {
                s.execute("ALTER TABLE " + q(t[0]) + " " + enable(t[2]) + " TRIGGER " + q(t[1]));
            }
        }
        if (failed[0] != null) {
            throw failed[0];
        }
        return updated[0];
    }

    private static String enable(String tgenabled) {
        return switch (tgenabled) {
            case "A" -> "ENABLE ALWAYS";
            case "R" -> "ENABLE REPLICA";
            case "D" -> "DISABLE";
            default -> "ENABLE";
        };
    }

    /**
     * The source's counter must be a whole number in an epoch its history started (decision 0603): else it was
     * written by hand, and the copy would carry the damage to the server.
     */
    private void requireCounterInRange(long value) {
        int at = source.tables().get("token_counter").indexOf("last_token");
        boolean[] whole = {true};
        source.forEachRow("token_counter", row -> whole[0] &= row.get(at) instanceof Long);
        long started = 0;
        List<String> history = source.tables().get("ledger_history");
        if (history != null) {
            int kind = history.indexOf("kind");
            int epoch = history.indexOf("epoch");
            long[] max = {0};
            source.forEachRow("ledger_history", row -> {
                if (("restore".equals(row.get(kind)) || "bump".equals(row.get(kind)))
                        && row.get(epoch) instanceof Long e) {
                    max[0] = Math.max(max[0], e);
                }
            });
            started = max[0];
        }
        if (!whole[0] || FencingTokens.epochOf(value) > started) {
            throw new LedgerCopyRefusal(
                    "source_not_understood",
                    "The source " + source.location() + " has a fencing-token"
                            + " counter that is not a whole number in an epoch its history started (" + value
                            + "): it was written"
                            + " by hand; nothing was copied (restore the file from a backup first).");
        }
    }

    /** The tables to write, in order, each with the source columns to copy; refuses what would be lost. */
    private Map<String, List<String>> plan(Map<String, Map<String, Boolean>> target) {
        Map<String, List<String>> from = source.tables();
        List<String> lost = new ArrayList<>();
        Set<String> order = new LinkedHashSet<>();
        FIRST.stream().filter(from::containsKey).forEach(order::add);
        order.addAll(from.keySet());
        Map<String, List<String>> plan = new LinkedHashMap<>();
        for (String table : order) {
            if (NOT_COPIED.contains(table) || COUNTERS.containsKey(table)) {
                continue;
            }
            Map<String, Boolean> columns = target.get(table);
            if (columns == null) {
                lost.add("table " + table);
                continue;
            }
            for (String column : from.get(table)) {
                if (!columns.containsKey(column)) {
                    lost.add("column " + table + "." + column);
                }
            }
            plan.put(table, from.get(table));
        }
        for (Map.Entry<String, String> counter : COUNTERS.entrySet()) {
            if (!from.containsKey(counter.getKey())) {
                lost.add("table " + counter.getKey() + " (missing in the source)");
            }
        }
        if (!lost.isEmpty()) {
            throw new LedgerCopyRefusal(
                    "source_not_understood",
                    "The source " + source.location() + " (schema version "
                            + source.schemaVersion() + ") has " + String.join(", ", lost)
                            + ", which this PostgreSQL ledger has no"
                            + " place for; nothing was copied (a Sovereign that knows both schemas must make the copy).");
        }
        return plan;
    }

    /**
     * The target must be marked as a production ledger: the copy keeps the target's own mark ({@link #NOT_COPIED}),
     * so a production ledger copied into a ledger created as a lab sandbox would become one, its terminal fence
     * switchable off by the lab (issue 32; decision 0907). A missing mark is not a production ledger either.
     */
    private void requireProductionMark(Connection c) throws SQLException {
        long marks = scalar(c, "SELECT count(*) FROM ledger_mark WHERE lab_sandbox = 0");
        if (marks != 1) {
            throw new LedgerCopyRefusal(
                    "target_is_sandbox",
                    "The PostgreSQL ledger " + to + " is not marked as a"
                            + " production ledger (it was created as a lab sandbox, or its mark is missing); a copy goes only"
                            + " into a new production ledger, and nothing was changed.");
        }
    }

    private void requireEmpty(Connection c, Set<String> tables) throws SQLException {
        List<String> found = new ArrayList<>();
        for (String table : tables) {
            long n = scalar(c, "SELECT count(*) FROM " + q(table));
            if (n > 0) {
                found.add(n + " " + table);
            }
        }
        for (Map.Entry<String, String> counter : COUNTERS.entrySet()) {
            // a stripe of the token counter that has minted holds more than its own number (schema version 19)
            long v = scalar(
                    c,
                    counter.getKey().equals("token_counter")
                            ? "SELECT coalesce(max(last_token - id), 0) FROM token_counter"
                            : "SELECT " + q(counter.getValue()) + " FROM " + q(counter.getKey()) + " WHERE id = 1");
            if (v > 0) {
                found.add(counter.getKey() + " at " + v);
            }
        }
        if (!found.isEmpty()) {
            throw new LedgerCopyRefusal(
                    "target_not_empty",
                    "The PostgreSQL ledger " + to + " is not empty (it has " + String.join(", ", found)
                            + "); a copy goes only into a new, empty ledger, and nothing was changed.");
        }
    }

    private long insertAll(Connection c, String table, List<String> columns, Map<String, Long> highest)
            throws SQLException {
        List<String> later = LATER.getOrDefault(table, List.of());
        String insert = "INSERT INTO " + q(table) + " ("
                + String.join(", ", columns.stream().map(PgLedgerCopy::q).toList())
                + ") OVERRIDING SYSTEM VALUE VALUES ("
                + String.join(", ", columns.stream().map(x -> "?").toList()) + ")";
        List<Object[]> pointers = new ArrayList<>();
        long[] count = {0};
        SQLException[] failed = {null};
        int key = columns.indexOf("id");
        try (PreparedStatement ps = c.prepareStatement(insert)) {
            source.forEachRow(table, values -> {
                if (failed[0] != null) {
                    return;
                }
                try {
                    Object[] forward = new Object[later.size() + 1];
                    boolean any = false;
                    for (int i = 0; i < columns.size(); i++) {
                        Object v = values.get(i);
                        int l = later.indexOf(columns.get(i));
                        if (l >= 0) {
                            forward[l + 1] = v;
                            any |= v != null;
                            v = null;
                        }
                        count(highest, columns.get(i), v == null ? values.get(i) : v);
                        ps.setObject(i + 1, v);
                    }
                    if (any) {
                        forward[0] = values.get(key);
                        pointers.add(forward);
                    }
                    ps.addBatch();
                    if (++count[0] % 500 == 0) {
                        ps.executeBatch();
                    }
                } catch (SQLException e) {
                    failed[0] = e;
                }
            });
            if (failed[0] != null) {
                throw failed[0];
            }
            ps.executeBatch();
        } catch (SQLException e) {
            throw naming(table, e);
        }
        if (!pointers.isEmpty()) {
            pending.put(table, pointers);
        }
        return count[0];
    }

    /** The forward pointers held back by {@link #insertAll}, now that every row they point at exists. */
    private void writePointers(Connection c) throws SQLException {
        for (Map.Entry<String, List<Object[]>> t : pending.entrySet()) {
            String table = t.getKey();
            List<String> later = LATER.get(table);
            String update = "UPDATE " + q(table) + " SET "
                    + String.join(", ", later.stream().map(x -> q(x) + " = ?").toList()) + " WHERE id = ?";
            try (PreparedStatement ps = c.prepareStatement(update)) {
                for (Object[] p : t.getValue()) {
                    for (int i = 0; i < later.size(); i++) {
                        ps.setObject(i + 1, p[i + 1]);
                    }
                    ps.setObject(later.size() + 1, p[0]);
                    ps.addBatch();
                }
                ps.executeBatch();
            } catch (SQLException e) {
                throw naming(table, e);
            }
        }
    }

    /** The server's own sentence (of the batch's failing row), with the table the copy was writing. */
    private static SQLException naming(String table, SQLException e) {
        SQLException cause =
                e instanceof BatchUpdateException && e.getNextException() != null ? e.getNextException() : e;
        return new SQLException("copying " + table + ": " + PgDatabase.firstLine(cause), cause.getSQLState(), cause);
    }

    private static void count(Map<String, Long> highest, String column, Object value) {
        if (value instanceof Long n) {
            for (Map.Entry<String, Set<String>> counted : COUNTED.entrySet()) {
                if (counted.getValue().contains(column)) {
                    highest.merge(counted.getKey(), n, Math::max);
                }
            }
        }
    }

    private long sourceCounter(String table, String column) {
        int at = source.tables().get(table).indexOf(column);
        long[] value = {0};
        source.forEachRow(table, row -> {
            if (row.get(at) instanceof Long n) {
                value[0] = Math.max(value[0], n);
            }
        });
        return value[0];
    }

    /** An identity's sequence set to the highest value copied, so the next row drawn gets a greater one. */
    private static void windSequencePast(Connection c, String table, String column) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT setval(pg_get_serial_sequence(?, ?), max(" + q(column)
                + ")) FROM " + q(table) + " HAVING max(" + q(column) + ") IS NOT NULL")) {
            ps.setString(1, q(table));
            ps.setString(2, column);
            ps.executeQuery().close();
        }
    }

    private static Map<String, Map<String, Boolean>> targetTables(Connection c) throws SQLException {
        Map<String, Map<String, Boolean>> tables = new LinkedHashMap<>();
        try (PreparedStatement ps =
                        c.prepareStatement("SELECT r.relname, a.attname, a.attidentity <> '' FROM pg_class r"
                                + " JOIN pg_namespace n ON n.oid = r.relnamespace JOIN pg_attribute a ON a.attrelid = r.oid"
                                + " WHERE n.nspname = current_schema() AND r.relkind = 'r' AND a.attnum > 0 AND NOT a.attisdropped"
                                + " ORDER BY r.relname, a.attnum");
                ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                tables.computeIfAbsent(rs.getString(1), k -> new LinkedHashMap<>())
                        .put(rs.getString(2), rs.getBoolean(3));
            }
        }
        return tables;
    }

    private static List<String[]> triggers(Connection c, Set<String> tables) throws SQLException {
        List<String[]> found = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement("SELECT r.relname, g.tgname, g.tgenabled FROM pg_trigger g"
                        + " JOIN pg_class r ON r.oid = g.tgrelid JOIN pg_namespace n ON n.oid = r.relnamespace"
                        + " WHERE NOT g.tgisinternal AND n.nspname = current_schema() ORDER BY r.relname, g.tgname");
                ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                if (tables.contains(rs.getString(1))) {
                    found.add(new String[] {rs.getString(1), rs.getString(2), rs.getString(3)});
                }
            }
        }
        return found;
    }

    private static long scalar(Connection c, String sql) throws SQLException {
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(sql)) {
            return rs.next() ? rs.getLong(1) : 0;
        }
    }

    private static String q(String name) {
        return "\"" + name.replace("\"", "\"\"") + "\"";
    }

    private static void rollbackQuietly(Connection c) {
        try {
            c.rollback();
        } catch (SQLException ignored) {
            // the connection is gone: the server rolled the transaction back
        }
    }
}
