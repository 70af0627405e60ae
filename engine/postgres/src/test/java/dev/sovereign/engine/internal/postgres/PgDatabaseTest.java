package dev.sovereign.engine.internal.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.EngineAccess;
import dev.sovereign.engine.base.EngineConfig;
import dev.sovereign.engine.base.StorageException;
import dev.sovereign.engine.base.StorageException.Problem;
import dev.sovereign.engine.testing.PgTestServer;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What {@link PgDatabase#write} makes of what the server says: a deadlock, a serialization failure or a
 * compare-and-set lost under a row lock runs the WHOLE transaction again (its first run's writes rolled
 * back), within the busy bound; a guard's SV001 is a CORRUPT storage error naming the guard; the stamps are
 * the server's clock.
 */
class PgDatabaseTest {
    private Engine engine;
    private PgDatabase db;

    @BeforeEach
    void open() {
        engine = Engine.open(
                EngineConfig.forDatabase(PgTestServer.freshDatabase().url())
                        .heartbeat(false)
                        .busyBound(Duration.ofMillis(500))
                        .build());
        db = ((PgLedger) EngineAccess.ledger(engine)).database();
    }

    @AfterEach
    void close() {
        engine.close();
    }

    private static String raise(String sqlState) {
        return "DO $$ BEGIN RAISE EXCEPTION 'injected' USING ERRCODE = '" + sqlState + "'; END $$";
    }

    @Test
    void aDeadlockOrASerializationFailureRunsTheWholeTransactionAgain() {
        for (String state : new String[] {"40P01", "40001", "55P03"}) {
            AtomicInteger runs = new AtomicInteger();
            String actor = "retried-" + state;
            int written = db.write(tx -> {
                int n = tx.update("INSERT INTO actors (id, created_at) VALUES (?, ?)", actor, tx.now());
                if (runs.incrementAndGet() == 1) {
                    tx.update(raise(state));
                }
                return n;
            });
            assertThat(written).isEqualTo(1);
            assertThat(runs).hasValue(2); // and the first run's insert was rolled back, or the second would collide
            assertThat(engine.actors().find(actor)).isPresent();
        }
    }

    @Test
    void aCompareAndSetLostUnderItsRowLockIsRetriedAndPastTheBoundIsBusy() {
        AtomicInteger runs = new AtomicInteger();
        String result = db.write(tx -> {
            if (runs.incrementAndGet() < 3) {
                throw new PgConflict("lost under the lock");
            }
            return "done";
        });
        assertThat(result).isEqualTo("done");
        assertThat(runs).hasValue(3);

        assertThatThrownBy(() -> db.write(tx -> {
                    throw new PgConflict("lost under the lock, always");
                }))
                .isInstanceOfSatisfying(StorageException.class, e -> {
                    assertThat(e.problem()).isEqualTo(Problem.BUSY);
                    assertThat(e.getMessage()).contains("kept changing under this write past the wait bound");
                });
    }

    @Test
    void aGuardRefusingAWriteOfTheEngineIsACorruptStorageErrorAndNothingIsKept() {
        engine.actors().add("operator");
        engine.leases().acquire("operator", Duration.ofMinutes(1));

        assertThatThrownBy(() -> db.write(tx -> tx.update("DELETE FROM actor_leases WHERE actor_id = 'operator'")))
                .isInstanceOfSatisfying(StorageException.class, e -> {
                    assertThat(e.problem()).isEqualTo(Problem.CORRUPT);
                    assertThat(e.getMessage())
                            .contains("refused a write this engine made")
                            .contains(
                                    "fence: a lease is released only by the transaction that presents its current token")
                            .doesNotContain("password");
                });
        assertThat(engine.leases().current("operator")).isPresent();
    }

    @Test
    void everyStampIsTheServersClock() throws Exception {
        PgTestServer.Database other = PgTestServer.freshDatabase();
        try (var c = other.connect()) {
            // a second ledger whose server clock is pinned far from the JVM's
            new PgMigrator(false, "test", "test", 10_000).migrate(c);
            PgMigratorTest.sql(c, "UPDATE server_clock SET pinned_ms = 1000000");
            String url = other.url();
            String allowed = System.setProperty(PgServerClock.ALLOW_PINNED, "true");
            try (Engine pinned =
                    Engine.open(EngineConfig.forDatabase(url).heartbeat(false).build())) {
                pinned.actors().add("operator");
                var lease = pinned.leases().acquire("operator", Duration.ofSeconds(10));
                assertThat(lease.acquiredAt()).isEqualTo(1_000_000);
                assertThat(lease.expiresAt()).isEqualTo(1_010_000);
                assertThat(pinned.journal().since(0, 100))
                        .allSatisfy(ev -> assertThat(ev.at()).isEqualTo(1_000_000));
            } finally {
                if (allowed == null) {
                    System.clearProperty(PgServerClock.ALLOW_PINNED);
                } else {
                    System.setProperty(PgServerClock.ALLOW_PINNED, allowed);
                }
            }
        }
    }
}
