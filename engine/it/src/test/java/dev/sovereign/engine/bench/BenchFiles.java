package dev.sovereign.engine.bench;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.base.Durability;
import dev.sovereign.engine.base.EngineConfig;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Comparator;
import java.util.Properties;
import java.util.stream.Stream;

/**
 * Database files for the benchmarks: every measured case (the floor, the engine, the peer) runs on
 * a file the engine created and migrated, in the same temporary directory (so the same file system),
 * with the same pragmas: WAL, {@code foreign_keys=ON}, the engine's SQLite {@code busy_timeout}, and
 * the {@code synchronous} level under test.
 */
final class BenchFiles {
    /** The engine's per-attempt SQLite busy wait (see Database and docs/decisions/0004-busy-handling.md). */
    static final int ENGINE_SQLITE_BUSY_TIMEOUT_MS = 50;

    private BenchFiles() {}

    /** A fresh directory under {@code java.io.tmpdir} (the file system the report names). */
    static Path freshDirectory() {
        try {
            return Files.createTempDirectory("sovereign-bench-");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static EngineConfig.Builder engineConfig(Path file, Durability durability) {
        return EngineConfig.forDatabase(file)
                .durability(durability)
                .heartbeat(false)
                .busyBound(Duration.ofSeconds(60))
                .processKind("bench");
    }

    /** Opens an engine on {@code file} (creating and migrating it) with the heartbeat off: benchmarks beat by hand. */
    static Engine openEngine(Path file, Durability durability) {
        return Engine.open(engineConfig(file, durability).build());
    }

    /** Creates and migrates an engine database file, then closes the engine. */
    static Path createEngineFile(Path dir, Durability durability) {
        Path file = dir.resolve("sovereign.db");
        openEngine(file, durability).close();
        return file;
    }

    /** A plain JDBC connection with the engine's pragmas: the floor's and the peer's connection. */
    static Connection plainConnection(Path file, Durability durability) throws SQLException {
        Properties p = new Properties();
        p.setProperty("foreign_keys", "true");
        p.setProperty("busy_timeout", Integer.toString(ENGINE_SQLITE_BUSY_TIMEOUT_MS));
        p.setProperty("jdbc.get_generated_keys", "false"); // as the engine's: no hidden query after an INSERT
        Connection c = DriverManager.getConnection("jdbc:sqlite:" + file, p);
        try (Statement s = c.createStatement()) {
            s.execute("PRAGMA busy_timeout = " + ENGINE_SQLITE_BUSY_TIMEOUT_MS);
            s.execute("PRAGMA foreign_keys = ON");
            s.execute("PRAGMA journal_mode = WAL");
            s.execute("PRAGMA synchronous = " + durability.name());
        }
        return c;
    }

    /**
     * {@link #plainConnection} plus what the engine's own connection sets besides (see {@code Database}):
     * {@code recursive_triggers=ON} and {@code temp_store=MEMORY}. The contract floor's connection, which writes
     * through the schema's triggers as the engine does.
     */
    static Connection engineLikeConnection(Path file, Durability durability) throws SQLException {
        Connection c = plainConnection(file, durability);
        try (Statement s = c.createStatement()) {
            s.execute("PRAGMA recursive_triggers = ON");
            s.execute("PRAGMA temp_store = MEMORY");
        } catch (SQLException e) {
            c.close();
            throw e;
        }
        return c;
    }

    static void deleteRecursively(Path dir) {
        if (dir == null || !Files.exists(dir)) {
            return;
        }
        try (Stream<Path> walk = Files.walk(dir)) {
            walk.sorted(Comparator.reverseOrder()).forEach(p -> {
                try {
                    Files.deleteIfExists(p);
                } catch (IOException ignored) {
                    // a temp directory left behind is harmless
                }
            });
        } catch (IOException ignored) {
            // same
        }
    }
}
