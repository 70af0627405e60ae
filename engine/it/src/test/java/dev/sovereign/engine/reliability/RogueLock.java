package dev.sovereign.engine.reliability;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.TimeUnit;

/**
 * Child JVM for the torture nemesis: a rogue connection that, on each {@code hold <ms>} line on its
 * stdin, takes SQLite's write lock with {@code BEGIN IMMEDIATE} — on PostgreSQL (a {@code jdbc:postgresql:}
 * argument) {@code LOCK TABLE} of the ledger's core tables {@code IN ACCESS EXCLUSIVE MODE}, the same thing
 * there — keeps it for that long (longer than the workers' busy bound, which on PostgreSQL is their
 * {@code lock_timeout}, so their writes fail as busy) and rolls back. Prints {@code READY},
 * then {@code LOCKED <ms>} / {@code RELEASED} per hold ({@code BUSY} when it could not get the lock);
 * {@code quit} or end of input ends it. It writes nothing.
 */
public final class RogueLock {
    private RogueLock() {}

    public static void main(String[] args) throws Exception {
        boolean server = args[0].startsWith("jdbc:postgresql:");
        String url = server ? args[0] : "jdbc:sqlite:" + args[0];
        Connection c = connect(url, server);
        try (BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
            say("READY");
            String line;
            while ((line = in.readLine()) != null && !line.equals("quit")) {
                if (!line.startsWith("hold ")) {
                    continue;
                }
                long ms = Long.parseLong(line.substring(5).trim());
                if (server && !c.isValid(2)) {
                    c.close(); // the server restarted under it: connect again
                    try {
                        c = connect(url, true);
                    } catch (SQLException away) {
                        say("BUSY");
                        continue;
                    }
                }
                try (Statement s = c.createStatement()) {
                    try {
                        if (server) {
                            c.setAutoCommit(false);
                            s.execute(LOCK_EVERY_WRITE);
                        } else {
                            s.execute("BEGIN IMMEDIATE");
                        }
                    } catch (SQLException busy) {
                        rollback(c, s, server);
                        say("BUSY");
                        continue;
                    }
                    say("LOCKED " + ms);
                    TimeUnit.MILLISECONDS.sleep(ms); // holding the lock is the fault itself
                    rollback(c, s, server);
                    say("RELEASED");
                }
            }
        } finally {
            c.close();
        }
    }

    private static Connection connect(String url, boolean server) throws SQLException {
        Connection c = DriverManager.getConnection(url);
        try (Statement s = c.createStatement()) {
            s.execute(server ? "SET lock_timeout = 10000" : "PRAGMA busy_timeout = 10000");
        }
        return c;
    }

    /**
     * Every consequential write on PostgreSQL takes the token counter (mints), the lease change counter (lease
     * writes) or journals: locking these (and the lease rows' table) stops them all, and every read of them too.
     */
    static final String LOCK_EVERY_WRITE =
            "LOCK TABLE token_counter, lease_change_counter, actor_leases," + " fence_events IN ACCESS EXCLUSIVE MODE";

    private static void rollback(Connection c, Statement s, boolean server) {
        try {
            if (server) {
                c.rollback();
                c.setAutoCommit(true);
            } else {
                s.execute("ROLLBACK");
            }
        } catch (SQLException nothingToRollBack) {
            // BEGIN IMMEDIATE failed, or the server ended the connection: nothing is held
        }
    }

    private static void say(String line) {
        System.out.println(line);
        System.out.flush();
    }
}
