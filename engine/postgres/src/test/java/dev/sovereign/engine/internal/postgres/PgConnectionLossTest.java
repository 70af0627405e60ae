package dev.sovereign.engine.internal.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.EngineAccess;
import dev.sovereign.engine.base.EngineConfig;
import dev.sovereign.engine.base.StorageException;
import dev.sovereign.engine.base.StorageException.Problem;
import dev.sovereign.engine.lease.Lease;
import dev.sovereign.engine.testing.PgTestServer;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The engine's connection killed by the server ({@code pg_terminate_backend}) in the middle of a write and
 * right at its COMMIT: the first is a storage error with nothing written; the second is
 * {@code COMMIT_OUTCOME_UNKNOWN}, never success and never plain failure, and the ledger (read afresh)
 * decides what happened. Either way the next call connects again.
 */
class PgConnectionLossTest {
    private PgTestServer.Database db;
    private Engine engine;
    private Engine observer;

    @BeforeEach
    void open() {
        db = PgTestServer.freshDatabase();
        engine = Engine.open(EngineConfig.forDatabase(db.url()).heartbeat(false).build());
        observer =
                Engine.open(EngineConfig.forDatabase(db.url()).heartbeat(false).build());
        engine.actors().add("worker");
    }

    @AfterEach
    void close() {
        engine.close();
        observer.close();
    }

    private PgDatabase database(Engine e) {
        return ((PgLedger) EngineAccess.ledger(e)).database();
    }

    private void terminate(int pid) {
        try (Connection c = db.connect();
                PreparedStatement ps = c.prepareStatement("SELECT pg_terminate_backend(?)")) {
            ps.setInt(1, pid);
            ps.executeQuery();
            // wait until the server has really ended it, so the engine's next statement meets a dead socket
            for (int i = 0; i < 500; i++) {
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

    @Test
    void aConnectionKilledInTheMiddleOfAWriteWritesNothingAndTheNextCallConnectsAgain() {
        PgDatabase door = database(engine);
        int pid = door.backendPid();
        // The kill lands inside the transaction: after the body's statements were sent, before COMMIT is;
        // the server then rolls the transaction back, and the COMMIT meets a dead connection. To kill it
        // strictly mid-body, the body itself triggers the kill between two statements.
        assertThatThrownBy(() -> door.write(tx -> {
                    tx.update("INSERT INTO actors (id, created_at) VALUES ('half-written', ?)", tx.now());
                    terminate(pid);
                    return tx.update("INSERT INTO actors (id, created_at) VALUES ('never-written', ?)", tx.now());
                }))
                .isInstanceOfSatisfying(StorageException.class, e -> {
                    assertThat(e.problem()).isEqualTo(Problem.IO);
                    assertThat(e.getMessage()).contains("before its commit").contains("nothing of it was written");
                });

        assertThat(observer.actors().find("half-written")).isEmpty();
        Lease lease = engine.leases().acquire("worker", Duration.ofMinutes(1)); // a new connection
        assertThat(observer.leases().current("worker")).hasValue(lease);
        assertThat(door.backendPid()).isNotEqualTo(pid);
    }

    @Test
    void aConnectionKilledAtCommitIsAnUnknownOutcomeAndTheLedgerDecides() {
        PgDatabase door = database(engine);
        int pid = door.backendPid();
        door.beforeCommit(() -> {
            door.beforeCommit(null);
            terminate(pid);
        });

        assertThatThrownBy(() -> engine.leases().acquire("worker", Duration.ofMinutes(1)))
                .isInstanceOfSatisfying(StorageException.class, e -> {
                    assertThat(e.problem()).isEqualTo(Problem.COMMIT_OUTCOME_UNKNOWN);
                    assertThat(e.getMessage()).contains("unknown").contains("the ledger decides");
                });
        // Here the server ended the session before the COMMIT arrived: the ledger says nothing was granted,
        // and the engine believes nothing either (the grant was never returned).
        assertThat(observer.leases().current("worker")).isEmpty();
        assertThat(engine.leases().held()).isEmpty();

        Lease lease = engine.leases().acquire("worker", Duration.ofMinutes(1));
        assertThat(observer.leases().current("worker")).hasValue(lease);
    }
}
