package dev.sovereign.engine.internal.sqlite;

import dev.sovereign.engine.base.Durability;
import dev.sovereign.engine.base.StorageException;
import dev.sovereign.engine.base.StorageException.Problem;
import dev.sovereign.engine.internal.jdbc.Dialect;
import dev.sovereign.engine.internal.jdbc.JdbcReads;
import dev.sovereign.engine.internal.jdbc.JdbcTxBase;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * The operators' own connection to a ledger file, opened for queries only ({@code PRAGMA query_only = ON}, so
 * no statement on it can write) and never migrating: a file that is missing, not ours, older or newer than this
 * code is refused before anything else is read. It shares {@link Database}'s busy and error policy: a busy
 * read is retried with the same brief pauses up to its bound, and every other {@link SQLException} becomes the
 * same {@link StorageException} sentence a write would give ({@link Database#translate}).
 *
 * <p>Why a read-write connection made query-only rather than {@code SQLITE_OPEN_READONLY}: a read-only
 * connection cannot create the WAL index ({@code -shm}); opened while no writer is around it falls back to a
 * private index and may then miss later commits of writers — exactly what a live console must not do. See
 * docs/decisions/0401-admin-reader-connection.md.
 *
 * <p>Its statements are prepared once and kept for the life of the connection ({@link StatementCache}, as the
 * engine's connection keeps its own): a console snapshots every second or so with the same few statements, and each
 * {@code sqlite3_prepare} of a lease statement costs more than running it when nothing changed. {@link #close}
 * closes them with the connection.
 *
 * <p>Not thread-safe: its owner ({@link SqliteAdminReader}) serialises every use.
 */
final class ReadConnection implements JdbcReads, AutoCloseable {
    private static final long BUSY_BOUND_MS = 2_000;

    /** Reads a whole result set (positioned before its first row) into one value. */
    @FunctionalInterface
    interface Walk<T> {
        T over(ResultSet rs) throws SQLException;
    }

    /** A read of one or more statements; a busy {@link SQLException} makes {@link #read} try it again. */
    @FunctionalInterface
    interface Read<T> {
        T run() throws SQLException;
    }

    private final Path file;
    private final Connection connection;
    private final int schemaVersion;
    private final StatementCache statements;

    private ReadConnection(Path file, Connection connection, int schemaVersion) {
        this.file = file;
        this.connection = connection;
        this.schemaVersion = schemaVersion;
        this.statements = new StatementCache(connection);
    }

    /**
     * Opens {@code file} (absolute, normalized) for queries, refusing one that is missing, foreign, older or newer, or
     * whose guards were changed by hand.
     */
    static ReadConnection open(Path file) {
        if (Files.isDirectory(file)) {
            throw new StorageException(
                    Problem.NOT_OURS, file, "Cannot open " + file + ": it is a directory, not a database file.", null);
        }
        if (!Files.exists(file)) {
            throw new StorageException(
                    Problem.MISSING_FILE,
                    file,
                    "There is no database at " + file + " (create one with 'sovereign init').",
                    null);
        }
        Connection c = Database.connect(file, Durability.FULL);
        try {
            try (Statement s = c.createStatement()) {
                s.execute("PRAGMA query_only = ON");
            }
            return new ReadConnection(file, c, checkOwnership(c, file));
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
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT count(*) FROM sqlite_master")) {
            objects = rs.next() ? rs.getInt(1) : 0;
        }
        if (appId == 0 && objects == 0) {
            throw new StorageException(
                    Problem.NOT_OURS,
                    file,
                    "The file " + file + " is empty, not a Sovereign database (create one with 'sovereign init').",
                    null);
        }
        if (appId == 0) {
            throw new StorageException(
                    Problem.NOT_OURS,
                    file,
                    "The file " + file + " is an SQLite database that Sovereign did not create; refusing to read it.",
                    null);
        }
        if (appId != Database.APPLICATION_ID) {
            throw new StorageException(
                    Problem.NOT_OURS,
                    file,
                    "The file " + file + " belongs to another application (application_id " + appId
                            + "); refusing to read it.",
                    null);
        }
        if (version > Migrator.LATEST) {
            throw new StorageException(
                    Problem.SCHEMA_TOO_NEW,
                    file,
                    "The database " + file + " has schema version " + version
                            + ", newer than this Sovereign understands (" + Migrator.LATEST + "); upgrade Sovereign.",
                    null);
        }
        if (version < Migrator.LATEST) {
            throw new StorageException(
                    Problem.IO,
                    file,
                    "The database " + file + " has the older schema version " + version
                            + "; open it once with 'sovereign init' to migrate it, then attach again.",
                    null);
        }
        Migrator.requireGuards(c, file); // a reader refuses a file changed by hand as the engine does (decision 0012)
        return version;
    }

    Path file() {
        return file;
    }

    int schemaVersion() {
        return schemaVersion;
    }

    /** SQLite's {@code PRAGMA data_version}: moves when another connection committed a change. */
    long changeMarker() throws SQLException {
        return Migrator.pragma(connection, "data_version");
    }

    /** Runs {@code read}, retrying while the file is busy up to the bound; any other failure is a storage error. */
    <T> T read(String doing, Read<T> read) {
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

    /** Runs {@code body} inside one read transaction, so every statement in it sees the same committed state. */
    <T> T inReadTransaction(Read<T> body) throws SQLException {
        exec("BEGIN");
        try {
            T result = body.run();
            exec("COMMIT");
            return result;
        } catch (SQLException | RuntimeException e) {
            rollbackQuietly();
            throw e;
        }
    }

    @Override
    public Dialect dialect() {
        return Dialect.SQLITE;
    }

    @Override
    public <T> List<T> query(String sql, RowMapper<T> mapper, Object... args) throws SQLException {
        return walk(
                sql,
                rs -> {
                    List<T> out = new ArrayList<>();
                    while (rs.next()) {
                        out.add(mapper.map(rs));
                    }
                    return out;
                },
                args);
    }

    /** The first column of the first row of {@code sql} with {@code args}, or 0. */
    long scalar(String sql, Object... args) throws SQLException {
        return walk(sql, rs -> rs.next() ? rs.getLong(1) : 0, args);
    }

    /**
     * Runs {@code sql} with {@code args} on its kept statement and hands its result set to {@code walk} (a reader that
     * walks a large result itself). The result set is closed before the statement is given back; a statement whose
     * execution or walk failed is closed, not kept (its state is unknown).
     */
    <T> T walk(String sql, Walk<T> walk, Object... args) throws SQLException {
        return statements.use(sql, ps -> {
            JdbcTxBase.bind(ps, args);
            try (ResultSet rs = ps.executeQuery()) {
                return walk.over(rs);
            }
        });
    }

    /** A statement prepared on this connection and not kept, for a one-off walk over a whole table (the caller closes it). */
    PreparedStatement prepare(String sql) throws SQLException {
        return connection.prepareStatement(sql);
    }

    /** Diagnostics: how many statements this connection has prepared since it opened. */
    long statementsPrepared() {
        return statements.prepared();
    }

    /** Diagnostics: the statements this connection keeps prepared now. */
    List<PreparedStatement> keptStatements() {
        return statements.idle();
    }

    private void exec(String sql) throws SQLException {
        statements.execute(sql);
    }

    private void rollbackQuietly() {
        try {
            exec("ROLLBACK");
        } catch (SQLException ignored) {
            // no transaction was open
        }
    }

    private static void closeQuietly(Connection c) {
        try {
            c.close();
        } catch (SQLException ignored) {
            // nothing to do
        }
    }

    /** Closes the kept statements, then the connection. */
    @Override
    public void close() {
        statements.close();
        closeQuietly(connection);
    }
}
