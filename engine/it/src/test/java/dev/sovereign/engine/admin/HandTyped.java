package dev.sovereign.engine.admin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sovereign.engine.base.LedgerLocation;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Optional;

/**
 * Statements reaching a ledger from a connection of their own, as one typed by hand in {@code sqlite3} or {@code psql}
 * does: no engine, no foreign keys switched on, the login the location names. For the retention contracts.
 */
final class HandTyped {
    private HandTyped() {}

    static Connection connect(LedgerLocation location) throws SQLException {
        Optional<Path> file = location.file();
        return file.isPresent()
                ? DriverManager.getConnection("jdbc:sqlite:" + file.get())
                : DriverManager.getConnection(location.text());
    }

    /** The one whole number {@code query} reads. */
    static long count(LedgerLocation location, String query) throws SQLException {
        try (Connection c = connect(location);
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(query)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    /** The database refuses {@code statement}: an error, not a statement that merely changed no row. */
    static void refused(LedgerLocation location, String statement) {
        assertThatThrownBy(() -> {
                    try (Connection c = connect(location);
                            Statement s = c.createStatement()) {
                        int changed = s.executeUpdate(statement);
                        if (changed == 0) {
                            throw new SQLException("changed no row (not refused, but nothing to change): " + statement);
                        }
                    }
                })
                .as(statement)
                .isInstanceOf(SQLException.class)
                .satisfies(e -> assertThat(e.getMessage()).doesNotStartWith("changed no row"));
    }
}
