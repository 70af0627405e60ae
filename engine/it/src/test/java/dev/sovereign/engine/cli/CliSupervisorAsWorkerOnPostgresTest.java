package dev.sovereign.engine.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.base.EngineConfig;
import dev.sovereign.engine.cli.CliHarness.Result;
import dev.sovereign.engine.journal.EventKind;
import dev.sovereign.engine.lease.Lease;
import dev.sovereign.engine.run.Assignment;
import dev.sovereign.engine.run.AssignmentState;
import dev.sovereign.engine.run.Attempt;
import dev.sovereign.engine.testing.PgTestServer;
import dev.sovereign.engine.testing.Port;
import dev.sovereign.engine.testing.SettableClock;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code sovereign supervisor} run by a worker host's login on PostgreSQL (issue 32, item 8; decision 0316): a
 * tick ends by recording its report in {@code supervisor_ticks}, which only the operator role may write (decision
 * 0902). Such a login is refused before the tick does anything — no recovery, no sweep, no journal row — with one
 * sentence naming the login and the role it needs, exit 3; the loop stops the same way instead of failing every
 * second. An operator login then recovers the same run.
 */
class CliSupervisorAsWorkerOnPostgresTest {
    @TempDir
    Path dir;

    private PgTestServer.Database db;
    private String hostA;
    private String ops;

    @BeforeEach
    void setUp() throws Exception {
        db = PgTestServer.freshDatabase();
        CliHarness owner = harness(db.url());
        owner.ok("init");
        owner.ok("actor", "add", "operator");
        hostA = PgTestServer.freshRole("host_a");
        ops = PgTestServer.freshRole("ops");
        try (Connection c = db.connect();
                Statement s = c.createStatement()) {
            s.execute("GRANT sovereign_" + db.name() + "_worker TO " + hostA);
            s.execute("GRANT sovereign_" + db.name() + "_operator TO " + ops);
        }
    }

    private String url(String role) {
        return "jdbc:postgresql://localhost:" + db.port() + "/" + db.name() + "?user=" + role + "&password=" + role;
    }

    private CliHarness harness(String url) {
        return new CliHarness(dir, new SettableClock()).with(b -> b.variables(Map.of("SOVEREIGN_DB", url)));
    }

    /** A run of host A's that nothing renews any more: its attempt's TTL (1 ms of the server's clock) has passed. */
    private Attempt abandonedRunOfHostA() {
        try (Engine host = Engine.open(
                EngineConfig.forDatabase(url(hostA)).heartbeat(false).build())) {
            Assignment x = host.runs().assign("operator", "scripted:ms=60000");
            Lease lease = host.leases().acquire("operator", Duration.ofSeconds(30));
            // closing releases the lease; the attempt stays ACTIVE and expires: the supervisor's work
            return Port.runs(host).startAttempt(x.id(), lease.token(), 1);
        }
    }

    @Test
    void aWorkerLoginIsRefusedBeforeTheTickDoesAnythingAndAnOperatorLoginRecovers() throws Exception {
        Attempt abandoned = abandonedRunOfHostA();
        long eventsBefore = count("SELECT count(*) FROM fence_events");
        CliHarness asWorker = harness(url(hostA));

        Result once = asWorker.run("supervisor", "--once");

        assertThat(once.exit()).as("%s", once.err()).isEqualTo(ExitCode.STORAGE);
        assertThat(once.errLines())
                .singleElement()
                .asString()
                .startsWith("storage error (read_only): The" + " PostgreSQL login " + hostA
                        + " may not run the supervisor on the ledger jdbc:postgresql:")
                .contains("nothing was swept or recovered")
                .contains("a member of sovereign_" + db.name() + "_operator")
                .doesNotContain("password=" + hostA);
        assertThat(once.out()).isEmpty();
        assertNothingHappened(abandoned, eventsBefore);

        // the loop: the same sentence once, exit 3, instead of "tick failed" every second
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int[] exit = {-1};
        StopSignals.Stop stop = new StopSignals.Stop();
        CliHarness looping = asWorker.with(b -> b.stopSignals(StopSignals.manual(stop)));
        Thread loop = new Thread(() -> exit[0] = Cli.execute(
                looping.environment(),
                new PrintWriter(out, true),
                new PrintWriter(err, true),
                "supervisor",
                "--interval",
                "50ms"));
        loop.start();
        loop.join(Duration.ofSeconds(20).toMillis());
        if (loop.isAlive()) {
            stop.request();
            loop.join(Duration.ofSeconds(20).toMillis());
        }
        assertThat(exit[0]).as("the loop ends by itself; stderr: %s", err).isEqualTo(ExitCode.STORAGE);
        assertThat(err.toString().lines().toList())
                .singleElement()
                .asString()
                .startsWith("storage error (read_only): The PostgreSQL login " + hostA + " may not run the supervisor");
        assertNothingHappened(abandoned, eventsBefore);

        Result recovered = harness(url(ops)).ok("supervisor", "--once");
        assertThat(recovered.out()).containsPattern("recovered +1").contains(abandoned.assignmentId());
        assertThat(count("SELECT count(*) FROM supervisor_ticks")).isEqualTo(1);
    }

    private void assertNothingHappened(Attempt abandoned, long eventsBefore) throws Exception {
        try (Engine reader = Engine.openExisting(EngineConfig.forDatabase(db.url())
                .heartbeat(false)
                .registerLazily(true)
                .build())) {
            assertThat(reader.runs().get(abandoned.assignmentId()))
                    .get()
                    .extracting(Assignment::state)
                    .as("not recovered by half a pass")
                    .isEqualTo(AssignmentState.RUNNING);
            assertThat(reader.runs().receipt(abandoned.assignmentId())).isEmpty();
            assertThat(reader.journal().since(0, 1_000)).noneMatch(e -> e.kind() == EventKind.ATTEMPT_RECOVERED);
        }
        assertThat(count("SELECT count(*) FROM fence_events")).isEqualTo(eventsBefore);
        assertThat(count("SELECT count(*) FROM supervisor_ticks")).isZero();
    }

    private long count(String sql) throws Exception {
        try (Connection c = db.connect();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
