package dev.sovereign.engine.internal.sqlite;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * Builds a file as an older Sovereign left it, for the migrated-file tests: the migration scripts up to a
 * version, applied by hand in one transaction with their stamps, then whatever rows the test adds in the
 * same transaction. Never through the current migrator, which would migrate it to the latest version.
 */
final class OlderSchema {
    private OlderSchema() {}

    static String script(int version) {
        try (InputStream in =
                Migrator.class.getResourceAsStream("migrations/" + Migrator.MIGRATIONS.get(version - 1))) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Rows written into the older file in the transaction that creates it. */
    @FunctionalInterface
    interface Rows {
        void write(Statement s) throws SQLException;
    }

    /** Creates {@code file} at schema {@code version} (WAL, marked as ours) with {@code rows} in it. */
    static void create(Path file, int version, Rows rows) throws SQLException {
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + file);
                Statement s = c.createStatement()) {
            s.execute("PRAGMA journal_mode = WAL");
            s.execute("BEGIN IMMEDIATE");
            for (int v = 1; v <= version; v++) {
                for (String statement : Migrator.statements(script(v))) {
                    s.execute(statement);
                }
            }
            s.execute("PRAGMA application_id = " + Database.APPLICATION_ID);
            s.execute("PRAGMA user_version = " + version);
            rows.write(s);
            s.execute("COMMIT");
        }
    }
}
