package dev.sovereign.engine.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sovereign.engine.cli.CliHarness.Result;
import dev.sovereign.engine.internal.postgres.PgMigrator;
import dev.sovereign.engine.testing.PgTestServer;
import dev.sovereign.engine.testing.Poll;
import dev.sovereign.engine.testing.SettableClock;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the CLI says when a PostgreSQL ledger cannot be opened (issue 26, "Sentences"): a server that cannot be
 * reached, or that ends the connection at whatever step of the open it is, is one wording — "Cannot connect to the
 * PostgreSQL ledger URL: why." — naming the URL without its secrets (one path said "the PostgreSQL ledger ledger
 * (schema public)" for a database named ledger, another "Could not open …"); and a guard dropped with its function
 * is named once, in a sentence that says the ledger is not opened, also for reading.
 */
class CliPostgresOpenSentencesTest {
    private static final String SECRET = "planted-secret";

    @TempDir
    Path dir;

    private PgTestServer.Database db;
    private String url;

    @BeforeEach
    void setUp() {
        db = PgTestServer.freshDatabase();
        url = db.url() + "&password=" + SECRET;
    }

    private CliHarness cli() {
        return new CliHarness(dir, new SettableClock()).with(b -> b.variables(Map.of("SOVEREIGN_DB", url)));
    }

    private String shownUrl() {
        return "jdbc:postgresql://localhost:" + db.port() + "/" + db.name() + "?user=postgres&password=***";
    }

    private void assertCannotConnect(String line) {
        assertThat(line)
                .startsWith("storage error (io): Cannot connect to the PostgreSQL ledger " + shownUrl() + ": ")
                .doesNotContain(SECRET)
                .doesNotContain("(schema public)")
                .endsWith(".");
    }

    @Test
    void aServerThatEndsTheConnectionAtAnyStepOfTheOpenIsOneSentenceNamingTheUrl() throws Exception {
        // while `init` migrates an empty database: it waits for the migration lock this test holds
        String[] during = {null};
        try (Connection locker = db.connect();
                Statement s = locker.createStatement()) {
            locker.setAutoCommit(false);
            s.execute("SELECT pg_advisory_xact_lock(" + PgMigrator.MIGRATION_LOCK + ")");
            during[0] = runWhileWaitingThenTerminate(locker, "--busy-timeout", "30s", "init");
            locker.rollback();
        }
        assertCannotConnect(during[0]);

        cli().ok("init");
        // while `status` reads the schema version: it waits for a lock on the migration record this test holds
        try (Connection locker = db.connect();
                Statement s = locker.createStatement()) {
            locker.setAutoCommit(false);
            s.execute("LOCK TABLE schema_migrations IN ACCESS EXCLUSIVE MODE");
            during[0] = runWhileWaitingThenTerminate(locker, "--busy-timeout", "30s", "status");
            locker.rollback();
        }
        assertCannotConnect(during[0]);

        // a database that accepts no connection at all: the same words
        try (Connection c = PgTestServer.maintenance().getConnection();
                Statement s = c.createStatement()) {
            s.execute("ALTER DATABASE " + db.name() + " ALLOW_CONNECTIONS false");
            try {
                Result refused = cli().run("status");
                assertThat(refused.exit()).isEqualTo(ExitCode.STORAGE);
                assertThat(refused.errLines()).singleElement().satisfies(l -> assertCannotConnect((String) l));
            } finally {
                s.execute("ALTER DATABASE " + db.name() + " ALLOW_CONNECTIONS true");
            }
        }
    }

    @Test
    void aGuardDroppedWithItsFunctionIsNamedOnceAndTheLedgerIsNotOpenedForReadingEither() throws Exception {
        cli().ok("init");
        try (Connection c = db.connect();
                Statement s = c.createStatement()) {
            s.execute("DROP FUNCTION token_counter_guard() CASCADE"); // takes its trigger along
        }

        Result r = cli().run("lease", "list");

        assertThat(r.exit()).isEqualTo(ExitCode.STORAGE);
        String line = r.errLines().get(0);
        assertThat(r.errLines()).hasSize(1);
        assertThat(line)
                .startsWith("storage error (corrupt): The PostgreSQL ledger " + shownUrl() + " was changed by"
                        + " hand (guard token_counter_guard is missing (its trigger and its function)")
                .contains("so it no longer enforces the fence; refusing to open it, also for reading")
                .doesNotContain(SECRET);
        assertThat(line.split("token_counter_guard", -1))
                .as("named once: %s", line)
                .hasSize(2);
    }

    /**
     * Runs the CLI with {@code args} until its connection waits for a lock {@code locker} holds, terminates that
     * backend, and returns the one line the CLI printed on stderr.
     */
    private String runWhileWaitingThenTerminate(Connection locker, String... args) throws Exception {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int[] exit = {-1};
        CliHarness cli = cli();
        Thread t = new Thread(() ->
                exit[0] = Cli.execute(cli.environment(), new PrintWriter(out, true), new PrintWriter(err, true), args));
        t.start();
        int pid = waitingBackend(locker, err);
        try (Connection c = db.connect();
                PreparedStatement kill = c.prepareStatement("SELECT pg_terminate_backend(?)")) {
            kill.setInt(1, pid);
            kill.executeQuery().close();
        }
        t.join(Duration.ofSeconds(30).toMillis());
        assertThat(t.isAlive()).isFalse();
        assertThat(exit[0]).as("stderr: %s", err).isEqualTo(ExitCode.STORAGE);
        assertThat(err.toString().lines().toList()).hasSize(1);
        return err.toString().strip();
    }

    private static int pid(Connection c) throws SQLException {
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT pg_backend_pid()")) {
            rs.next();
            return rs.getInt(1);
        }
    }

    private int waitingBackend(Connection locker, StringWriter err) throws SQLException {
        int lockerPid = pid(locker);
        int[] pid = {0};
        Poll.until(
                () -> {
                    // a new connection each time: inside a transaction pg_stat_activity is one snapshot
                    try (Connection look = db.connect();
                            PreparedStatement ps =
                                    look.prepareStatement("SELECT pid FROM pg_stat_activity WHERE datname ="
                                            + " current_database() AND pid <> ? AND wait_event_type = 'Lock'")) {
                        ps.setInt(1, lockerPid);
                        ResultSet rs = ps.executeQuery();
                        if (rs.next()) {
                            pid[0] = rs.getInt(1);
                            return true;
                        }
                        return false;
                    } catch (SQLException e) {
                        throw new IllegalStateException(e);
                    }
                },
                Duration.ofSeconds(30),
                () -> "the CLI's connection to wait for the lock; stderr: " + err);
        return pid[0];
    }
}
