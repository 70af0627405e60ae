package dev.sovereign.engine.internal.sqlite;

import dev.sovereign.engine.StorageException;
import dev.sovereign.engine.StorageException.Problem;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * Forward-only schema migrations from SQL resources. Each runs in one {@code BEGIN IMMEDIATE}
 * together with its {@code user_version} stamp, and re-reads the version inside that transaction,
 * so two processes opening a fresh file at once apply each migration exactly once.
 *
 * <p>Files are checked before anything is written: a file whose {@code application_id} is someone
 * else's (or that has tables but no id) is refused, as is a schema newer than this code. Applied
 * migrations are never edited; a change is a new file appended to {@link #MIGRATIONS}.
 */
final class Migrator {
    static final List<String> MIGRATIONS = List.of("V0001__initial.sql", "V0002__lease_changes.sql");

    /** The schema version this code writes and understands. */
    static final int LATEST = MIGRATIONS.size();

    private final Database db;

    Migrator(Database db) {
        this.db = db;
    }

    /**
     * Checks, sets the pragmas and applies what is missing. Busy (another process is opening or
     * migrating the same file) is retried, like every write, until the busy bound; each step is
     * idempotent, so a retry starts over safely.
     */
    void migrate() {
        Connection c = db.connection();
        long deadline = System.nanoTime() + db.busyBoundMillis() * 1_000_000L;
        while (true) {
            try {
                checkOwnership(c);
                db.applyPragmas();
                for (int version = 1; version <= LATEST; version++) {
                    apply(c, version);
                }
                return;
            } catch (SQLException e) {
                if (Database.isBusy(e) && System.nanoTime() < deadline) {
                    Database.pauseBriefly();
                    continue;
                }
                throw Database.translate(db.file(), e, "open");
            }
        }
    }

    private void checkOwnership(Connection c) throws SQLException {
        // One read transaction, so the three reads see one snapshot: another process may be
        // migrating the same fresh file right now.
        int appId;
        int version;
        int objects;
        try (Statement s = c.createStatement()) {
            s.execute("BEGIN");
            try {
                appId = pragma(c, "application_id");
                version = pragma(c, "user_version");
                objects = count(c, "SELECT count(*) FROM sqlite_master");
            } finally {
                s.execute("ROLLBACK");
            }
        }
        if (appId == 0 && objects > 0) {
            throw new StorageException(Problem.NOT_OURS, db.file(), "The file " + db.file()
                    + " is an SQLite database that Sovereign did not create; refusing to touch it.", null);
        }
        if (appId != 0 && appId != Database.APPLICATION_ID) {
            throw new StorageException(Problem.NOT_OURS, db.file(), "The file " + db.file()
                    + " belongs to another application (application_id " + appId + "); refusing to touch it.", null);
        }
        if (version > LATEST) {
            throw new StorageException(Problem.SCHEMA_TOO_NEW, db.file(), "The database " + db.file()
                    + " has schema version " + version + ", newer than this Sovereign understands (" + LATEST
                    + "); upgrade Sovereign.", null);
        }
    }

    private void apply(Connection c, int version) throws SQLException {
        if (pragma(c, "user_version") >= version) {
            return;
        }
        try (Statement s = c.createStatement()) {
            s.execute("BEGIN IMMEDIATE");
            try {
                int current = pragma(c, "user_version");
                if (current < version) {
                    int appId = pragma(c, "application_id");
                    if (appId != 0 && appId != Database.APPLICATION_ID) {
                        throw new StorageException(Problem.NOT_OURS, db.file(), "The file " + db.file()
                                + " belongs to another application; refusing to touch it.", null);
                    }
                    for (String statement : statements(load(MIGRATIONS.get(version - 1)))) {
                        s.execute(statement);
                    }
                    s.execute("PRAGMA application_id = " + Database.APPLICATION_ID);
                    s.execute("PRAGMA user_version = " + version);
                }
                s.execute("COMMIT");
            } catch (SQLException | RuntimeException e) {
                try {
                    s.execute("ROLLBACK");
                } catch (SQLException ignored) {
                    // already rolled back
                }
                throw e;
            }
        }
    }

    private String load(String name) {
        String path = "migrations/" + name;
        try (InputStream in = Migrator.class.getResourceAsStream(path)) {
            if (in == null) {
                throw new IllegalStateException("missing migration resource " + path);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new IllegalStateException("cannot read migration resource " + path, e);
        }
    }

    /**
     * Splits a script into statements: a statement ends at a line ending in ';', except inside a
     * {@code CREATE TRIGGER}, which ends at a line ending in {@code END;}. Comment lines are dropped.
     */
    static List<String> statements(String script) {
        List<String> out = new ArrayList<>();
        StringBuilder current = new StringBuilder();
        for (String line : script.split("\n")) {
            String t = line.strip();
            if (t.isEmpty() || t.startsWith("--")) {
                continue;
            }
            current.append(line).append('\n');
            boolean trigger = current.toString().stripLeading().toUpperCase().startsWith("CREATE TRIGGER");
            if (t.endsWith(";") && (!trigger || t.toUpperCase().endsWith("END;"))) {
                out.add(current.toString().strip());
                current.setLength(0);
            }
        }
        if (!current.toString().isBlank()) {
            throw new IllegalStateException("migration script ends inside a statement: " + current);
        }
        return out;
    }

    static int pragma(Connection c, String name) throws SQLException {
        return count(c, "PRAGMA " + name);
    }

    private static int count(Connection c, String sql) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            return rs.next() ? rs.getInt(1) : 0;
        }
    }
}
