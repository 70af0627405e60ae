package dev.sovereign.engine.cli;

import java.io.IOException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * A child JVM that takes the database's write lock ({@code BEGIN IMMEDIATE}) and holds it until its
 * stdin closes or it is killed, so a CLI call meets a genuinely busy file owned by another process.
 */
public final class LockHolder {
    static final String READY = "locked";

    private LockHolder() {}

    public static void main(String[] args) throws SQLException, IOException {
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + args[0]);
                Statement s = c.createStatement()) {
            s.execute("BEGIN IMMEDIATE");
            System.out.println(READY);
            System.out.flush();
            while (System.in.read() >= 0) {
                // hold the lock until the parent closes our stdin or kills us
            }
            s.execute("ROLLBACK");
        }
    }
}
