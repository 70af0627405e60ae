package dev.sovereign.engine.storage;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;

/**
 * A child process that takes SQLite's write lock on a database ({@code BEGIN IMMEDIATE}) and holds
 * it until its stop-file appears or it is killed: "another process holding the database locked".
 */
public final class LockHolder {
    private LockHolder() {}

    public static void main(String[] args) throws Exception {
        Path stop = Path.of(args[1]);
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + args[0]);
                Statement s = c.createStatement()) {
            s.execute("BEGIN IMMEDIATE");
            System.out.println("LOCKED");
            System.out.flush();
            long deadline = System.nanoTime() + 120_000_000_000L;
            while (!Files.exists(stop) && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            s.execute("ROLLBACK");
        }
    }
}
