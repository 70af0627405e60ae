package dev.sovereign.engine.internal.sqlite;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.testing.Sqlite;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * For the benchmarks: how many pages a write writes to the WAL, counted from the growth of the
 * {@code -wal} file while automatic checkpoints are off (each frame is one page plus a 24-byte
 * header). At {@code synchronous=NORMAL} a commit's cost is mostly these page writes and the
 * checkpoints they cause, so this count explains the ratio to the floor independently of the load.
 */
public final class WalFrames {
    private WalFrames() {}

    /** Average WAL frames per run of {@code operation}, over {@code times} runs on {@code engine}'s connection. */
    public static double perOperation(Engine engine, int times, Runnable operation) throws Exception {
        Database db = Sqlite.database(engine);
        // a background pass would let the log start again from its beginning, and its growth would count nothing
        db.backgroundCheckpoints().pause(true);
        try {
            return perOperation(db.connection(), db.file(), times, operation);
        } finally {
            db.backgroundCheckpoints().pause(false);
        }
    }

    /** The same on any connection to {@code file} (the floor's, the peer's). */
    public static double perOperation(Connection c, Path file, int times, Runnable operation) throws Exception {
        long pageSize;
        try (Statement s = c.createStatement()) {
            s.execute("PRAGMA wal_checkpoint(TRUNCATE)");
            s.execute("PRAGMA wal_autocheckpoint = 0");
            try (var rs = s.executeQuery("PRAGMA page_size")) {
                rs.next();
                pageSize = rs.getLong(1);
            }
        }
        Path wal = Path.of(file + "-wal");
        try {
            operation.run();
            long before = Files.size(wal);
            for (int i = 0; i < times; i++) {
                operation.run();
            }
            long after = Files.size(wal);
            return (after - before) / (double) (pageSize + 24) / times;
        } finally {
            try (Statement s = c.createStatement()) {
                s.execute("PRAGMA wal_autocheckpoint = 1000");
                s.execute("PRAGMA wal_checkpoint(TRUNCATE)");
            } catch (SQLException ignored) {
                // best effort: the next write checkpoints anyway
            }
        }
    }
}
