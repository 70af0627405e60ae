package dev.sovereign.engine.internal.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.EngineAccess;
import dev.sovereign.engine.base.EngineConfig;
import dev.sovereign.engine.base.Refusal;
import dev.sovereign.engine.base.StorageException;
import dev.sovereign.engine.base.StorageException.Problem;
import dev.sovereign.engine.journal.EventKind;
import dev.sovereign.engine.provider.ProviderResult;
import dev.sovereign.engine.run.Assignment;
import dev.sovereign.engine.run.AssignmentState;
import dev.sovereign.engine.run.RunResult;
import dev.sovereign.engine.testing.PgTestServer;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A run's terminal write whose connection the server ends while its COMMIT is in flight (issue 26, item 5;
 * decision 0315): the outcome is unknown to this process, so the run asks the ledger on a new connection instead
 * of failing: not committed (here the server ended the session before the COMMIT arrived) means the same fenced
 * write is sent again and the run returns its committed result with a warning; a ledger that cannot be reached
 * again leaves the run a {@code COMMIT_OUTCOME_UNKNOWN} storage error that says the ledger decides.
 */
class PgRunCommitLossTest {
    @TempDir
    Path dir;

    private PgTestServer.Database db;
    private Engine engine;
    private Engine observer;
    /** Set by the provider when it returns: the next COMMIT is the terminal write's. */
    private final AtomicBoolean providerDone = new AtomicBoolean();

    @BeforeEach
    void open() {
        db = PgTestServer.freshDatabase();
        engine = Engine.open(EngineConfig.forDatabase(db.url())
                .dataDirectory(dir.resolve("data"))
                .heartbeat(false)
                .build());
        observer = Engine.open(EngineConfig.forDatabase(db.url())
                .dataDirectory(dir.resolve("data"))
                .heartbeat(false)
                .build());
        engine.actors().add("operator");
        engine.providers().register("marked", arg -> job -> {
            providerDone.set(true);
            return ProviderResult.completed("ran");
        });
    }

    @AfterEach
    void close() throws SQLException {
        allowConnections(true);
        engine.close();
        observer.close();
    }

    private PgDatabase door() {
        return ((PgLedger) EngineAccess.ledger(engine)).database();
    }

    /** Ends the engine's connection just before the terminal write's COMMIT is sent, once. */
    private void killAtTheTerminalCommit(Runnable alsoThen) {
        PgDatabase door = door();
        int pid = door.backendPid();
        door.beforeCommit(() -> {
            if (providerDone.get()) {
                door.beforeCommit(null);
                terminate(pid);
                alsoThen.run();
            }
        });
    }

    @Test
    void aTerminalCommitLostWithItsConnectionIsSettledByTheLedgerAndWrittenAgain() {
        Assignment x = engine.runs().assign("operator", "marked");
        killAtTheTerminalCommit(() -> {});

        RunResult r = engine.runs().runAssignment(x.id(), Duration.ofMinutes(1));

        assertThat(r.assignment().state()).isEqualTo(AssignmentState.COMPLETED);
        assertThat(r.warnings())
                .anySatisfy(w -> assertThat(w)
                        .contains("the ledger showed it not committed")
                        .contains("written again on a new connection"));
        assertThat(observer.runs().receipt(x.id()))
                .hasValueSatisfying(receipt ->
                        assertThat(receipt.attemptId()).isEqualTo(r.attempt().id()));
        assertThat(observer.journal().since(0, 1_000))
                .filteredOn(e -> e.kind() == EventKind.ATTEMPT_DONE)
                .hasSize(1);
        assertThat(observer.journal().since(0, 1_000))
                .as("the second write was not refused")
                .noneMatch(e -> e.kind() == EventKind.REJECTED);
        assertThat(observer.leases().current("operator"))
                .as("the lease was released after the commit")
                .isEmpty();
    }

    @Test
    void aTerminalCommitLostWithALedgerThatCannotBeReachedAgainIsAnUnknownOutcomeThatNamesWhatToRead() {
        Assignment x = engine.runs().assign("operator", "marked");
        killAtTheTerminalCommit(() -> allowConnections(false));

        assertThatThrownBy(() -> engine.runs().runAssignment(x.id(), Duration.ofMinutes(1)))
                .isInstanceOfSatisfying(StorageException.class, e -> {
                    assertThat(e.problem()).isEqualTo(Problem.COMMIT_OUTCOME_UNKNOWN);
                    assertThat(e.getMessage())
                            .startsWith("Whether the end of the run of assignment " + x.id() + " (COMPLETED, attempt ")
                            .contains("was committed is unknown")
                            .contains("The ledger decides")
                            .contains("'sovereign assignments'");
                });

        allowConnections(true);
        // the ledger decides: here the COMMIT never arrived, so the run is still RUNNING for the supervisor
        assertThat(observer.runs().get(x.id()))
                .get()
                .extracting(Assignment::state)
                .isEqualTo(AssignmentState.RUNNING);
        assertThat(observer.runs().receipt(x.id())).isEmpty();
    }

    /**
     * The torture run's finding: the connection is lost at the terminal COMMIT, and before the run reads the ledger
     * again its attempt has expired and a supervisor has recovered it (a {@code worker_lost} receipt that names the
     * attempt). That receipt is not the run's end: the run's write, sent again, is refused as lost, and the run says
     * so instead of reporting the recovery as its result.
     */
    @Test
    void aRecoveryThatHappenedWhileTheConnectionWasLostIsNotTheRunsEnd() {
        Assignment x = engine.runs().assign("operator", "marked");
        killAtTheTerminalCommit(() -> {
            // the server's clock past the attempt's expiry, and a supervisor recovers it before the run asks again
            PgTestServer.pinClock(
                    db, System.currentTimeMillis() + Duration.ofMinutes(5).toMillis());
            assertThat(observer.supervisor().tick().recovered()).hasSize(1);
        });

        assertThatThrownBy(() -> engine.runs().runAssignment(x.id(), Duration.ofMinutes(1)))
                .isInstanceOfSatisfying(
                        Refusal.class,
                        r -> assertThat(r.category().isFencing())
                                .as("%s: %s", r.category(), r.getMessage())
                                .isTrue());
        assertThat(observer.runs().receipt(x.id()))
                .hasValueSatisfying(
                        receipt -> assertThat(receipt.failureCategory()).isEqualTo("worker_lost"));
        assertThat(observer.journal().since(0, 1_000))
                .filteredOn(e -> e.kind() == EventKind.ATTEMPT_DONE)
                .isEmpty();
    }

    /** Lets (or stops letting) anyone connect to the test's database; existing sessions stay. */
    private void allowConnections(boolean allowed) {
        try (Connection c = PgTestServer.maintenance().getConnection();
                Statement s = c.createStatement()) {
            s.execute("ALTER DATABASE " + db.name() + " ALLOW_CONNECTIONS " + allowed);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    private void terminate(int pid) {
        try (Connection c = db.connect();
                PreparedStatement ps = c.prepareStatement("SELECT pg_terminate_backend(?)")) {
            ps.setInt(1, pid);
            ps.executeQuery();
            for (int i = 0; i < 5_000; i++) {
                try (PreparedStatement alive = c.prepareStatement("SELECT 1 FROM pg_stat_activity WHERE pid = ?")) {
                    alive.setInt(1, pid);
                    if (!alive.executeQuery().next()) {
                        return;
                    }
                }
                Thread.onSpinWait();
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }
}
