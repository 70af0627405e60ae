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
 * stdin, takes SQLite's write lock with {@code BEGIN IMMEDIATE}, keeps it for that long (longer
 * than the workers' busy bound, so their writes fail as busy) and rolls back. Prints {@code READY},
 * then {@code LOCKED <ms>} / {@code RELEASED} per hold ({@code BUSY} when it could not get the lock);
 * {@code quit} or end of input ends it. It writes nothing.
 */
public final class RogueLock {
    private RogueLock() {
    }

    public static void main(String[] args) throws Exception {
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + args[0]);
             Statement s = c.createStatement();
             BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
            s.execute("PRAGMA busy_timeout = 10000");
            say("READY");
            String line;
            while ((line = in.readLine()) != null && !line.equals("quit")) {
                if (!line.startsWith("hold ")) {
                    continue;
                }
                long ms = Long.parseLong(line.substring(5).trim());
                try {
                    s.execute("BEGIN IMMEDIATE");
                } catch (SQLException busy) {
                    say("BUSY");
                    continue;
                }
                say("LOCKED " + ms);
                TimeUnit.MILLISECONDS.sleep(ms); // holding the lock is the fault itself
                s.execute("ROLLBACK");
                say("RELEASED");
            }
        }
    }

    private static void say(String line) {
        System.out.println(line);
        System.out.flush();
    }
}
