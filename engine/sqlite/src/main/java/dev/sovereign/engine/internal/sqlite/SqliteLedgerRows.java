package dev.sovereign.engine.internal.sqlite;

import dev.sovereign.engine.admin.LedgerHistory;
import dev.sovereign.engine.base.LedgerLocation;
import dev.sovereign.engine.base.StorageException;
import dev.sovereign.engine.internal.jdbc.Dialect;
import dev.sovereign.engine.internal.jdbc.JdbcLedgerHistory;
import dev.sovereign.engine.internal.jdbc.LeaseSql;
import dev.sovereign.engine.spi.LedgerRows;
import dev.sovereign.engine.spi.tools.LedgerCopyRefusal;
import dev.sovereign.engine.spi.tools.LedgerCopyReport;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * A ledger file as the source of a copy (decision 0907): opened through the operators' query-only
 * {@link ReadConnection} (so the open refuses a file that is missing, not ours, older or newer, and nothing
 * on it can write), read inside ONE read transaction, so every table is seen at the same commit even when a
 * worker is still writing. Not thread-safe; valid only inside {@link #read}.
 */
final class SqliteLedgerRows implements LedgerRows {
    private final ReadConnection connection;
    private final LedgerLocation location;
    private final Map<String, List<String>> tables;

    private SqliteLedgerRows(ReadConnection connection, LedgerLocation location, Map<String, List<String>> tables) {
        this.connection = connection;
        this.location = location;
        this.tables = tables;
    }

    static <T> T read(Path file, Function<LedgerRows, T> body) {
        try (ReadConnection c = openAsSource(file)) {
            return readIn(c, file, body);
        }
    }

    /** How long a move waits for the file's write lock while workers commit their short transactions. */
    private static final int MOVE_LOCK_WAIT_MS = 10_000;

    /**
     * A copy that moves the ledger (decision 0915): takes the file's write lock ({@code BEGIN IMMEDIATE} on a
     * connection of its own) BEFORE the snapshot is read, so no worker commits anything the copy would miss; runs
     * {@code copy} (the server's transaction) while holding it; then, in that same file transaction, writes the
     * retirement row (the `a_copied_ledger_is_retired` migration) and commits. From that commit on the file refuses every write. When the server
     * refused or failed, the file transaction rolls back: nothing changed on either side. When the server committed
     * but the retirement could not, the report says so (the copy is not undone: a committed result is never
     * reported as a failure).
     */
    static LedgerCopyReport move(Path file, LedgerLocation movedTo, Function<LedgerRows, LedgerCopyReport> copy) {
        try (ReadConnection c = openAsSource(file)) {
            Connection lock = writeLock(file);
            try {
                LedgerCopyReport report = readIn(c, file, copy);
                try {
                    try (PreparedStatement ps = lock.prepareStatement(
                            "INSERT INTO ledger_retirement (id, moved_to, retired_at) VALUES (1, ?, ?)")) {
                        ps.setString(1, movedTo.toString());
                        ps.setLong(2, System.currentTimeMillis());
                        ps.executeUpdate();
                    }
                    try (Statement s = lock.createStatement()) {
                        s.execute("COMMIT");
                    }
                    return report.withSource(true, null);
                } catch (SQLException e) {
                    return report.withSource(
                            false, Database.translate(file, e, "retire").getMessage());
                }
            } finally {
                rollbackQuietly(lock);
                closeQuietly(lock);
            }
        }
    }

    /**
     * A connection of its own holding the file's write lock ({@code BEGIN IMMEDIATE}), waiting for it up to {@link
     * #MOVE_LOCK_WAIT_MS} as the engine's writers do (decision 0501): tries again after a short random pause. Not
     * SQLite's busy handler, whose waits grow to 100 ms: against workers that try again within 14 ms, a move waiting
     * that way almost never finds the lock free.
     */
    private static Connection writeLock(Path file) {
        Connection lock = Database.connect(file, 0);
        long deadline = System.nanoTime() + MOVE_LOCK_WAIT_MS * 1_000_000L;
        try (Statement s = lock.createStatement()) {
            while (true) {
                try {
                    s.execute("BEGIN IMMEDIATE");
                    return lock;
                } catch (SQLException e) {
                    if (!Database.isBusy(e) || System.nanoTime() >= deadline) {
                        throw e;
                    }
                    Database.pauseBriefly();
                }
            }
        } catch (SQLException e) {
            closeQuietly(lock);
            throw Database.translate(file, e, "lock");
        } catch (RuntimeException e) { // interrupted while pausing
            closeQuietly(lock);
            throw e;
        }
    }

    private static <T> T readIn(ReadConnection c, Path file, Function<LedgerRows, T> body) {
        return c.read(
                "read",
                () -> c.inReadTransaction(() -> {
                    if (c.scalar("SELECT coalesce((SELECT lab_sandbox FROM ledger_mark WHERE id = 1), 0)") == 1) {
                        throw new LedgerCopyRefusal(
                                "source_is_sandbox",
                                "The ledger " + file + " is a lab sandbox, whose"
                                        + " fence the lab may switch off; a sandbox is for experiments and is never moved to a server.");
                    }
                    List<String> movedTo =
                            c.query("SELECT moved_to FROM ledger_retirement WHERE id = 1", rs -> rs.getString(1));
                    if (!movedTo.isEmpty()) {
                        throw new LedgerCopyRefusal(
                                "source_retired",
                                "The ledger " + file + " was already moved to "
                                        + movedTo.get(0)
                                        + " and takes no more writes; that ledger is the live one (copying this"
                                        + " frozen file again would make a second ledger that mints the same tokens), and nothing was"
                                        + " changed.");
                    }
                    LedgerHistory.Entry last = JdbcLedgerHistory.last(c);
                    if (last != null && "backup".equals(last.kind())) {
                        throw new LedgerCopyRefusal(
                                "source_is_backup",
                                "The file " + file + " is a backup made by 'sovereign"
                                        + " backup', not a live ledger; put it in place with 'sovereign restore' first, then copy that.");
                    }
                    if (SqliteLedgerHistory.read(c, file.toString()).isWentBackwards()) {
                        throw new LedgerCopyRefusal(
                                "source_went_backwards",
                                "The ledger " + file + " went backwards (an engine"
                                        + " had seen a token above its counter); run 'sovereign fence bump' on it first, then copy it.");
                    }
                    return body.apply(new SqliteLedgerRows(c, LedgerLocation.file(file), tablesOf(c)));
                }));
    }

    private static void rollbackQuietly(Connection c) {
        try (Statement s = c.createStatement()) {
            s.execute("ROLLBACK");
        } catch (SQLException ignored) {
            // nothing was open (committed already), or the connection is gone: the lock goes with it
        }
    }

    private static void closeQuietly(Connection c) {
        try {
            c.close();
        } catch (SQLException ignored) {
            // best effort: the OS releases the file's locks with the handle
        }
    }

    /** The read connection's refusals of a file that is not a ledger this code may read, as a copy's refusals. */
    private static ReadConnection openAsSource(Path file) {
        try {
            return ReadConnection.open(file);
        } catch (StorageException e) {
            String category = switch (e.problem()) {
                case NOT_OURS -> "source_not_ours";
                case SCHEMA_TOO_NEW -> "source_too_new";
                case MISSING_FILE -> "source_missing";
                default -> null;
            };
            if (category == null) {
                throw e;
            }
            throw new LedgerCopyRefusal(category, e.getMessage());
        }
    }

    /** The schema version whose lease rows may be attached to their holder's session (V0007). */
    static final int ATTACHED_LEASES_VERSION = 7;

    private static Map<String, List<String>> tablesOf(ReadConnection c) throws SQLException {
        List<String> names = c.query(
                "SELECT name FROM sqlite_master WHERE type = 'table'"
                        + " AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY rowid",
                rs -> rs.getString(1));
        Map<String, List<String>> tables = new LinkedHashMap<>();
        for (String name : names) {
            if (name.equals("ledger_retirement")) {
                continue; // the file's own state (decision 0915), empty in any file a copy reads
            }
            List<String> columns =
                    c.query("SELECT name FROM pragma_table_info(?) ORDER BY cid", rs -> rs.getString(1), name);
            if (name.equals("actor_leases")) {
                // A lease attached to its holder's session (decision 0509) is copied as the plain lease a reader
                // sees: its effective renewal and expiry written into the row (forEachRow), not attached.
                // A release marker (released_at, released_note; V0008) never outlives the statement that writes it,
                // so no committed row carries one: the columns are not part of the ledger's state.
                columns = columns.stream()
                        .filter(column -> !column.equals("attached")
                                && !column.equals("released_at")
                                && !column.equals("released_note"))
                        .toList();
            }
            tables.put(name, List.copyOf(columns));
        }
        return Collections.unmodifiableMap(tables);
    }

    @Override
    public LedgerLocation location() {
        return location;
    }

    @Override
    public int schemaVersion() {
        return connection.schemaVersion();
    }

    @Override
    public Map<String, List<String>> tables() {
        return tables;
    }

    @Override
    public void forEachRow(String table, Consumer<List<Object>> row) {
        List<String> columns = tables.get(table);
        if (columns == null) {
            throw new IllegalArgumentException("no table " + table + " in " + location);
        }
        boolean leases = table.equals("actor_leases") && connection.schemaVersion() >= ATTACHED_LEASES_VERSION;
        String sql = "SELECT "
                + String.join(
                        ", ",
                        columns.stream()
                                .map(column -> !leases
                                        ? quoted(column)
                                        : column.equals("renewed_at") || column.equals("expires_at")
                                                ? LeaseSql.effective(Dialect.SQLITE, "", column) + " AS " + column
                                                : quoted(column))
                                .toList())
                + " FROM " + quoted(table) + " ORDER BY " + keyOrder(table);
        try (PreparedStatement ps = connection.prepare(sql);
                ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                List<Object> values = new ArrayList<>(columns.size());
                for (int i = 1; i <= columns.size(); i++) {
                    Object v = rs.getObject(i);
                    values.add(v instanceof Integer n ? Long.valueOf(n) : v);
                }
                row.accept(Collections.unmodifiableList(values));
            }
        } catch (SQLException e) {
            throw Database.translate(connection.file(), e, "read");
        }
    }

    /**
     * The order rows are read in: insertion order (rowid) where the table has one; a {@code WITHOUT ROWID}
     * table (actor_leases from schema version 6, decision 0507) has no rowid and is read in key order.
     */
    private String keyOrder(String table) {
        try {
            boolean withoutRowid =
                    connection.query("SELECT wr FROM pragma_table_list(?)", rs -> rs.getInt(1), table).stream()
                            .anyMatch(wr -> wr == 1);
            if (!withoutRowid) {
                return "rowid";
            }
            return String.join(
                    ", ",
                    connection.query(
                            "SELECT name FROM pragma_table_info(?) WHERE pk > 0 ORDER BY pk",
                            rs -> quoted(rs.getString(1)),
                            table));
        } catch (SQLException e) {
            throw Database.translate(connection.file(), e, "read");
        }
    }

    private static String quoted(String name) {
        return "\"" + name.replace("\"", "\"\"") + "\"";
    }
}
