package dev.sovereign.engine.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sovereign.engine.Engine;
import dev.sovereign.engine.base.CommandAllowList;
import dev.sovereign.engine.base.EngineConfig;
import dev.sovereign.engine.run.AssignmentState;
import dev.sovereign.engine.testing.PgTestServer;
import dev.sovereign.engine.testing.Poll;
import dev.sovereign.engine.testing.SettableClock;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code sovereign run} on PostgreSQL when the server ends its connection ({@code pg_terminate_backend} from
 * another connection) around the run's end (issue 26, item 5; decisions 0109, 0315): a committed run is never
 * reported as a failure, and a run whose end was lost before its commit is settled by the ledger on a new
 * connection. The moment is exact, not guessed: the run's own connection is made to wait on a table lock this
 * test holds (a statement waiting for a lock shows in {@code pg_stat_activity}), and that waiting backend is the
 * one terminated.
 */
class CliRunConnectionLossOnPostgresTest {
    private static final Duration DEADLINE = Duration.ofSeconds(30);

    @TempDir
    Path dir;

    private PgTestServer.Database db;
    private CliHarness cli;

    @BeforeEach
    void setUp() {
        db = PgTestServer.freshDatabase();
        cli = new CliHarness(dir, new SettableClock()).with(b -> b.variables(Map.of("SOVEREIGN_DB", db.url())));
        cli.ok("init");
        cli.ok("actor", "add", "operator");
    }

    /** Runs {@code sovereign run ...} on its own thread; the result lands in {@code exit}, {@code out}, {@code err}. */
    private Thread run(int[] exit, StringWriter out, StringWriter err, String... args) {
        Thread t = new Thread(
                () -> exit[0] =
                        Cli.execute(cli.environment(), new PrintWriter(out, true), new PrintWriter(err, true), args),
                "cli-run");
        t.start();
        return t;
    }

    private Engine observer() {
        return Engine.openExisting(EngineConfig.forDatabase(db.url())
                .heartbeat(false)
                .registerLazily(true)
                .build());
    }

    @Test
    void aConnectionTerminatedAfterTheRunCommittedAndReleasedItsLeaseIsAWarningAndExitZero() throws Exception {
        JsonNode r = runAndTerminateAfterTheCommit(false);

        assertThat(r.get("warnings"))
                .singleElement()
                .extracting(JsonNode::asText)
                .asString()
                .startsWith("the run's end is committed, but reading it back failed (The connection to the"
                        + " PostgreSQL ledger jdbc:postgresql:")
                .contains("was lost during a read")
                .endsWith("the result above was read again");
    }

    /**
     * As above, but the ledger cannot be read on the new connection either (the lock stays until the run gave
     * up waiting): the run shows what it committed itself, with a warning, and still exits 0.
     */
    @Test
    void aLedgerThatCannotBeReadAgainAfterTheCommitShowsWhatTheRunCommittedAndExitsZero() throws Exception {
        JsonNode r = runAndTerminateAfterTheCommit(true);

        assertThat(r.get("warnings"))
                .singleElement()
                .extracting(JsonNode::asText)
                .asString()
                .startsWith("the run's end is committed, but the ledger could not be read back")
                .endsWith("shown above is what this run committed");
    }

    private JsonNode runAndTerminateAfterTheCommit(boolean keepTheLock) throws Exception {
        String gate = "mkfifo \"../.$SOVEREIGN_ATTEMPT.receipt.json.tmp\"";
        String id = cli.ok("assign", "operator", "--provider", "command:" + gate, "--json")
                .onlyJson()
                .get("assignment")
                .asText();
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int[] exit = {-1};
        Thread runner = run(
                exit,
                out,
                err,
                "--busy-timeout",
                keepTheLock ? "1s" : "30s",
                "run",
                id,
                "--json",
                "--allow-command",
                CommandAllowList.exactly(gate));

        Path fifo;
        String attempt;
        try (Engine observer = observer()) {
            Poll.until(
                    () -> observer.runs()
                            .get(id)
                            .map(a -> a.state() == AssignmentState.COMPLETED)
                            .orElse(false),
                    DEADLINE,
                    () -> "the terminal write to commit; stderr: " + err);
            fifo = findFifo(observer.runs().workspace(id));
            attempt = observer.runs().receipt(id).orElseThrow().attemptId();
        }
        // The run is held after its commit, writing its receipt file into the FIFO. Lock the receipts, let it go
        // on: it releases its lease (another table) and then, reading its result back, waits for the receipts.
        try (Connection locker = db.connect();
                Statement s = locker.createStatement()) {
            locker.setAutoCommit(false);
            s.execute("LOCK TABLE receipts IN ACCESS EXCLUSIVE MODE");
            try (InputStream in = Files.newInputStream(fifo)) {
                in.readAllBytes();
            }
            terminate(waitingBackend(locker));
            if (keepTheLock) {
                runner.join(DEADLINE.toMillis());
            }
            locker.rollback();
        }
        runner.join(DEADLINE.toMillis());

        assertThat(runner.isAlive()).isFalse();
        assertThat(exit[0]).as("stderr: %s", err).isEqualTo(ExitCode.OK);
        JsonNode r = CliHarness.JSON.readTree(out.toString());
        assertThat(r.get("state").asText()).isEqualTo("COMPLETED");
        assertThat(r.get("receipt").get("status").asText()).isEqualTo("completed");
        assertThat(r.get("attempt").get("attempt").asText()).isEqualTo(attempt);
        assertThat(err.toString().lines().toList()).singleElement().asString().startsWith("warning: ");
        try (Engine observer = observer()) {
            assertThat(observer.leases().current("operator"))
                    .as("the lease was released before the loss")
                    .isEmpty();
        }
        return r;
    }

    @Test
    void aTerminalWriteWhoseConnectionIsTerminatedBeforeItsCommitIsWrittenAgainOnANewConnection() throws Exception {
        String id = cli.ok("assign", "operator", "--provider", "command:cat ../gate", "--json")
                .onlyJson()
                .get("assignment")
                .asText();
        Path fifo;
        try (Engine observer = observer()) {
            Path ws = Files.createDirectories(observer.runs().workspace(id));
            fifo = ws.resolve("gate");
            mkfifo(fifo);
        }
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int[] exit = {-1};
        Thread runner = run(
                exit,
                out,
                err,
                "--busy-timeout",
                "30s",
                "run",
                id,
                "--json",
                "--allow-command",
                CommandAllowList.exactly("cat ../gate"));

        String attempt;
        try (Engine observer = observer()) {
            Poll.until(
                    () -> observer.runs()
                            .get(id)
                            .map(a -> a.state() == AssignmentState.RUNNING)
                            .orElse(false),
                    DEADLINE,
                    () -> "the attempt to start; stderr: " + err);
            attempt = observer.runs().get(id).orElseThrow().currentAttempt();
        }
        // The provider waits on the FIFO. Lock the receipts, let the provider finish: the terminal write inserts
        // the receipt and waits for the lock, inside its transaction; its connection is then terminated.
        try (Connection locker = db.connect();
                Statement s = locker.createStatement()) {
            locker.setAutoCommit(false);
            s.execute("LOCK TABLE receipts IN ACCESS EXCLUSIVE MODE");
            try (OutputStream o = Files.newOutputStream(fifo)) {
                o.write('\n');
            }
            terminate(waitingBackend(locker));
            locker.rollback();
        }
        runner.join(DEADLINE.toMillis());

        assertThat(runner.isAlive()).isFalse();
        assertThat(exit[0]).as("stderr: %s", err).isEqualTo(ExitCode.OK);
        JsonNode r = CliHarness.JSON.readTree(out.toString());
        assertThat(r.get("state").asText()).isEqualTo("COMPLETED");
        assertThat(r.get("attempt").get("attempt").asText()).isEqualTo(attempt);
        assertThat(r.get("warnings"))
                .singleElement()
                .extracting(JsonNode::asText)
                .asString()
                .contains("was lost while the end of the run of assignment " + id)
                .contains("written again on a new connection");
        try (Engine observer = observer()) {
            assertThat(observer.runs().receipt(id))
                    .hasValueSatisfying(x -> assertThat(x.attemptId()).isEqualTo(attempt));
            assertThat(observer.journal().since(0, 1_000))
                    .filteredOn(e -> e.kind().name().equals("ATTEMPT_DONE"))
                    .hasSize(1);
            assertThat(observer.leases().current("operator")).isEmpty();
        }
    }

    /** The backend of this database waiting for a lock (the run's), other than {@code locker}'s own. */
    private int waitingBackend(Connection locker) throws Exception {
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
                DEADLINE,
                () -> "the run's connection to wait for the lock on receipts");
        return pid[0];
    }

    /** Ends backend {@code pid} from a connection of its own and waits until the server has really ended it. */
    private void terminate(int pid) throws SQLException {
        try (Connection c = db.connect();
                PreparedStatement kill = c.prepareStatement("SELECT pg_terminate_backend(?)");
                PreparedStatement alive = c.prepareStatement("SELECT 1 FROM pg_stat_activity WHERE pid = ?")) {
            kill.setInt(1, pid);
            kill.executeQuery().close();
            alive.setInt(1, pid);
            Poll.until(
                    () -> {
                        try (ResultSet rs = alive.executeQuery()) {
                            return !rs.next();
                        } catch (SQLException e) {
                            throw new IllegalStateException(e);
                        }
                    },
                    DEADLINE,
                    () -> "backend " + pid + " to end");
        }
    }

    private static int pid(Connection c) throws SQLException {
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT pg_backend_pid()")) {
            rs.next();
            return rs.getInt(1);
        }
    }

    private static void mkfifo(Path path) throws Exception {
        Process p = new ProcessBuilder("mkfifo", path.toString()).inheritIO().start();
        assertThat(p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0)
                .as("mkfifo " + path)
                .isTrue();
    }

    private static Path findFifo(Path workspace) throws Exception {
        Path[] found = {null};
        Poll.until(
                () -> {
                    try (Stream<Path> files = Files.list(workspace)) {
                        List<Path> tmp = files.filter(
                                        p -> p.getFileName().toString().endsWith(".receipt.json.tmp"))
                                .toList();
                        found[0] = tmp.isEmpty() ? null : tmp.get(0);
                        return found[0] != null;
                    } catch (IOException e) {
                        return false;
                    }
                },
                DEADLINE,
                () -> "the provider's FIFO in " + workspace);
        return found[0];
    }
}
