package dev.sovereign.engine.internal.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.EngineAccess;
import dev.sovereign.engine.base.EngineConfig;
import dev.sovereign.engine.base.Refusal;
import dev.sovereign.engine.lease.Lease;
import dev.sovereign.engine.provider.Outcome;
import dev.sovereign.engine.run.Assignment;
import dev.sovereign.engine.run.AssignmentState;
import dev.sovereign.engine.run.Attempt;
import dev.sovereign.engine.run.AttemptState;
import dev.sovereign.engine.spi.Ledger;
import dev.sovereign.engine.testing.PgTestServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The stale holder's terminal write, a takeover of its lease, a supervisor's recovery of its attempt and
 * the holder's own heartbeat, all at once from four connections, round after round: each call either
 * commits or is refused (never a storage error: the lock order of decision 0900 leaves no deadlock the
 * retry cannot absorb, and no guard has to catch the adapter), and the assignment ends at most once, by
 * exactly one writer, with at most one receipt, its attempt ended accordingly.
 */
class PgContentionTest {
    private static final int ROUNDS = 15;

    private PgTestServer.Database db;
    private Engine holder;
    private Engine taker;
    private Engine supervisor;
    private ExecutorService pool;

    @BeforeEach
    void open() {
        db = PgTestServer.freshDatabase();
        holder = open("holder");
        taker = open("taker");
        supervisor = open("supervisor");
        pool = Executors.newFixedThreadPool(4);
    }

    private Engine open(String label) {
        return Engine.open(EngineConfig.forDatabase(db.url())
                .heartbeat(false)
                .processLabel(label)
                .busyBound(Duration.ofSeconds(30))
                .build());
    }

    @AfterEach
    void close() throws InterruptedException {
        pool.shutdownNow();
        pool.awaitTermination(10, TimeUnit.SECONDS);
        holder.close();
        taker.close();
        supervisor.close();
    }

    private static Ledger ledger(Engine e) {
        return EngineAccess.ledger(e);
    }

    @Test
    void aStaleCommitATakeoverARecoveryAndAHeartbeatRacingEndTheAssignmentAtMostOnce() throws Exception {
        long now = 1_900_000_000_000L; // the owner-pinned server clock (the engines opened before it was pinned)
        for (int round = 0; round < ROUNDS; round++) {
            String actor = "actor-" + round;
            holder.actors().add(actor);
            PgTestServer.pinClock(db, now);
            Lease lease = holder.leases().acquire(actor, Duration.ofSeconds(10));
            Assignment assignment = ledger(holder).runs().assign(actor, "scripted", null);
            Attempt attempt = ledger(holder).runs().startAttempt(assignment.id(), lease.token(), 10_000);
            EngineAccess.grants(holder).holdAttempt(attempt.id(), attempt.token());
            now += 10_000;
            PgTestServer.pinClock(db, now); // the lease and the attempt have both just expired

            List<Callable<Object>> racers = List.of(
                    () -> ledger(holder).runs().finish(attempt, Outcome.COMPLETED, null, true, "done"),
                    () -> taker.leases().acquire(actor, Duration.ofMinutes(1)),
                    () -> ledger(supervisor).recovery().settle(attempt.id()),
                    () -> holder.heartbeatNow());
            CountDownLatch gate = new CountDownLatch(1);
            List<Future<Object>> results = new ArrayList<>();
            for (Callable<Object> racer : racers) {
                results.add(pool.submit(() -> {
                    gate.await();
                    try {
                        return racer.call();
                    } catch (Refusal r) {
                        return r; // an expected answer; anything else fails the round
                    }
                }));
            }
            gate.countDown();
            for (Future<Object> f : results) {
                f.get(60, TimeUnit.SECONDS);
            }

            Assignment after = ledger(supervisor).runs().get(assignment.id()).orElseThrow();
            Attempt ended = ledger(supervisor).runs().attempt(attempt.id()).orElseThrow();
            var receipt = ledger(supervisor).runs().receipt(assignment.id());
            if (after.state() == AssignmentState.COMPLETED) {
                assertThat(ended.state()).isEqualTo(AttemptState.DONE);
                assertThat(receipt)
                        .hasValueSatisfying(r -> assertThat(r.processIdentity()).isEqualTo(holder.processIdentity()));
            } else if (after.state() == AssignmentState.FAILED) {
                assertThat(ended.state()).isEqualTo(AttemptState.RECOVERED);
                assertThat(receipt)
                        .hasValueSatisfying(
                                r -> assertThat(r.processIdentity()).isEqualTo(supervisor.processIdentity()));
            } else {
                assertThat(after.state()).isEqualTo(AssignmentState.RUNNING);
                assertThat(receipt).isEmpty();
            }
            assertThat(supervisor.leases().current(actor)).isPresent();
        }
    }
}
