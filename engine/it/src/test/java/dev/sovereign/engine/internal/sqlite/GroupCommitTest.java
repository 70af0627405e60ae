package dev.sovereign.engine.internal.sqlite;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.base.Refusal;
import dev.sovereign.engine.base.RefusalCategory;
import dev.sovereign.engine.journal.EventKind;
import dev.sovereign.engine.journal.FenceEvent;
import dev.sovereign.engine.lease.Lease;
import dev.sovereign.engine.testing.SettableClock;
import dev.sovereign.engine.testing.Sqlite;
import dev.sovereign.engine.testing.TempDatabase;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Group commit (issue 16): the writes other threads of an engine hand in while one runs are run by the next
 * thread in ONE transaction, each in its own savepoint — its own compare-and-set with its own outcome; a
 * refusal or a failure undoes only its own work; one COMMIT makes the batch durable.
 */
class GroupCommitTest {
    private static final Duration TTL = Duration.ofSeconds(30);

    @RegisterExtension
    final TempDatabase temp = new TempDatabase();

    private final SettableClock clock = new SettableClock();

    @Test
    void writesHandedInWhileOneRunsCommitTogetherEachWithItsOwnOutcome() throws Exception {
        Engine e = temp.open(clock);
        Database db = Sqlite.database(e);
        int n = 12;
        for (int i = 0; i < n; i++) {
            e.actors().add("a" + i, null);
        }
        e.actors().add("held");
        Lease held = e.leases().acquire("held", TTL);
        long eventsBefore = e.journal().lastSeq();
        long batchesBefore = db.batchesCommitted();

        ExecutorService pool =
                Executors.newFixedThreadPool(n + 3); // the gate, n grants, a stale renewal, a failing work
        try {
            // the first write holds the connection, alone in its batch, until every other one waits in the queue
            CountDownLatch gateRunning = new CountDownLatch(1);
            Future<?> gate = pool.submit(() -> db.write(tx -> {
                gateRunning.countDown();
                long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                while (db.writesWaiting() < n + 2 && System.nanoTime() < until) {
                    Thread.onSpinWait();
                }
                return null;
            }));
            assertThat(gateRunning.await(30, TimeUnit.SECONDS)).isTrue();
            List<Future<Lease>> grants = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                String actor = "a" + i;
                grants.add(pool.submit(() -> e.leases().acquire(actor, TTL)));
            }
            // in the same batch: a stale renewal (a fencing refusal, journalled) and a work that fails
            Future<Lease> stale = pool.submit(() -> e.leases().renew("held", held.token() + 1_000));
            Future<Object> failing = pool.submit(() -> db.write(tx -> {
                tx.mintToken("a"); // undone with its savepoint: no token is lost to the others
                throw new IllegalStateException("this work fails on purpose");
            }));
            gate.get(60, TimeUnit.SECONDS);

            List<Long> tokens = new ArrayList<>();
            for (Future<Lease> g : grants) {
                tokens.add(g.get(60, TimeUnit.SECONDS).token());
            }
            assertThatThrownBy(() -> stale.get(60, TimeUnit.SECONDS))
                    .hasCauseInstanceOf(Refusal.class)
                    .cause()
                    .satisfies(r -> assertThat(((Refusal) r).category()).isEqualTo(RefusalCategory.ACTOR_LEASE_LOST));
            assertThatThrownBy(() -> failing.get(60, TimeUnit.SECONDS)).hasCauseInstanceOf(IllegalStateException.class);

            assertThat(db.batchesCommitted() - batchesBefore)
                    .as("the gate's transaction, then ONE for all the rest")
                    .isEqualTo(2);
            // every grant its own token, minted in hand-in order within the one transaction: consecutive
            List<Long> sorted = new ArrayList<>(tokens);
            Collections.sort(sorted);
            assertThat(new HashSet<>(tokens)).hasSize(n);
            assertThat(sorted.get(n - 1) - sorted.get(0))
                    .as("no token minted by the failed work survived")
                    .isEqualTo(n - 1);
            long lastToken = db.read(tx -> tx.lastToken());
            assertThat(lastToken)
                    .as("the counter ends at the last grant: the failed work's" + " mint was undone with its savepoint")
                    .isEqualTo(sorted.get(n - 1));
            List<FenceEvent> events = e.journal().since(eventsBefore, 100);
            assertThat(events)
                    .filteredOn(x -> x.kind() == EventKind.LEASE_ACQUIRED)
                    .hasSize(n);
            assertThat(events)
                    .filteredOn(x -> x.kind() == EventKind.REJECTED)
                    .singleElement()
                    .satisfies(x -> assertThat(x.resourceId()).isEqualTo("held"));
            assertThat(e.leases().current("held"))
                    .get()
                    .extracting(Lease::token)
                    .isEqualTo(held.token());
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void sixteenThreadsOnOneEngineEachGetEveryGrantAndReleaseExactlyOnce() throws Exception {
        Engine e = temp.open(clock);
        Database db = Sqlite.database(e);
        int threads = 16;
        int rounds = 60;
        for (int t = 0; t < threads; t++) {
            e.actors().add("t" + t, null);
        }
        long eventsBefore = e.journal().lastSeq();
        long batchesBefore = db.batchesCommitted();
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<List<Long>>> done = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                String actor = "t" + t;
                done.add(pool.submit(() -> {
                    List<Long> mine = new ArrayList<>();
                    for (int r = 0; r < rounds; r++) {
                        Lease l = e.leases().acquire(actor, TTL);
                        mine.add(l.token());
                        assertThat(e.leases().release(actor, l.token())).isTrue();
                    }
                    return mine;
                }));
            }
            HashSet<Long> all = new HashSet<>();
            for (Future<List<Long>> f : done) {
                List<Long> mine = f.get(120, TimeUnit.SECONDS);
                assertThat(mine).isSorted();
                all.addAll(mine);
            }
            assertThat(all).as("every token once").hasSize(threads * rounds);
            List<FenceEvent> events = e.journal().since(eventsBefore, 100_000);
            assertThat(events)
                    .filteredOn(x -> x.kind() == EventKind.LEASE_ACQUIRED)
                    .hasSize(threads * rounds);
            assertThat(events)
                    .filteredOn(x -> x.kind() == EventKind.LEASE_RELEASED)
                    .hasSize(threads * rounds);
            assertThat(events).noneMatch(x -> x.kind() == EventKind.REJECTED);
            System.out.printf(
                    "group commit: %d writes in %d transactions%n",
                    2 * threads * rounds, db.batchesCommitted() - batchesBefore);
        } finally {
            pool.shutdownNow();
        }
    }
}
