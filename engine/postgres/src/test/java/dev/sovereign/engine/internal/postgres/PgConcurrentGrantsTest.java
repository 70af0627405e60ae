package dev.sovereign.engine.internal.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.base.EngineConfig;
import dev.sovereign.engine.base.Refusal;
import dev.sovereign.engine.base.RefusalCategory;
import dev.sovereign.engine.lease.Lease;
import dev.sovereign.engine.testing.PgTestServer;
import dev.sovereign.engine.testing.Stripes;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Many engines, each with its own connection, granting at once on one PostgreSQL ledger through the
 * adapter: tokens are strictly increasing in commit order and never shared, and of several processes that
 * race for one free actor exactly one wins. This is what the token counter row lock and the adapter's lock
 * order (counter first) must give; SQLite gets it from its single writer.
 */
class PgConcurrentGrantsTest {
    private static final int ENGINES = 8;

    private final List<Engine> engines = new ArrayList<>();
    private ExecutorService pool;
    private PgTestServer.Database db;

    @BeforeEach
    void open() {
        db = PgTestServer.freshDatabase();
        for (int i = 0; i < ENGINES; i++) {
            engines.add(Engine.open(EngineConfig.forDatabase(db.url())
                    .heartbeat(false)
                    .busyBound(Duration.ofSeconds(30))
                    .build()));
        }
        pool = Executors.newFixedThreadPool(ENGINES);
    }

    @AfterEach
    void close() throws InterruptedException {
        pool.shutdownNow();
        pool.awaitTermination(10, TimeUnit.SECONDS);
        engines.forEach(Engine::close);
    }

    @Test
    void grantsOfDistinctActorsFromManyConnectionsGetDistinctTokensInCommitOrder() throws Exception {
        int perEngine = 10;
        for (int e = 0; e < ENGINES; e++) {
            for (int i = 0; i < perEngine; i++) {
                engines.get(0).actors().add("actor-" + e + "-" + i);
            }
        }
        CountDownLatch gate = new CountDownLatch(1);
        List<Future<List<Long>>> results = new ArrayList<>();
        for (int e = 0; e < ENGINES; e++) {
            int n = e;
            results.add(pool.submit(() -> {
                gate.await();
                List<Long> tokens = new ArrayList<>();
                for (int i = 0; i < perEngine; i++) {
                    tokens.add(engines.get(n)
                            .leases()
                            .acquire("actor-" + n + "-" + i, Duration.ofMinutes(1))
                            .token());
                }
                return tokens;
            }));
        }
        gate.countDown();
        Set<Long> all = new HashSet<>();
        for (Future<List<Long>> f : results) {
            List<Long> mine = f.get(60, TimeUnit.SECONDS);
            assertThat(mine).doesNotHaveDuplicates(); // ten actors: ten stripes' orders, not one
            all.addAll(mine);
        }
        assertThat(all).hasSize(ENGINES * perEngine);
        // Commit order per stripe of the counter (schema version 19, decision 0924), so per actor: in the journal (one
        // row per grant, each in its grant's transaction), later seqs of one stripe carry greater tokens, whatever
        // connection wrote them; each token is its actor's stripe's.
        List<dev.sovereign.engine.journal.FenceEvent> grants = engines.get(0).journal().since(0, 10_000).stream()
                .filter(ev -> ev.kind().name().equals("LEASE_ACQUIRED"))
                .toList();
        assertThat(grants).hasSize(ENGINES * perEngine);
        assertThat(grants)
                .allSatisfy(ev -> assertThat(ev.token() % Stripes.COUNT).isEqualTo(Stripes.of(ev.actorId())));
        java.util.Map<Long, List<Long>> byStripe = new java.util.TreeMap<>();
        grants.forEach(ev -> byStripe.computeIfAbsent(ev.token() % Stripes.COUNT, k -> new ArrayList<>())
                .add(ev.token()));
        assertThat(byStripe.values()).allSatisfy(tokens -> assertThat(tokens).isSortedAccordingTo(Long::compare));
        assertThat(byStripe).hasSizeGreaterThan(1); // the eighty actors are spread, so stripes did run side by side
    }

    @Test
    void ofManyConnectionsRacingToTakeOverOneExpiredLeaseExactlyOneWinsWithAGreaterToken() throws Exception {
        // the server's clock, pinned by the ledger's owner (the engines were opened before it was pinned)
        long now = 1_900_000_000_000L;
        for (int round = 0; round < 5; round++) {
            String actor = "expired-" + round;
            engines.get(0).actors().add(actor);
            PgTestServer.pinClock(db, now);
            Lease old = engines.get(0).leases().acquire(actor, Duration.ofSeconds(10));
            now += 10_000;
            PgTestServer.pinClock(db, now); // expires_at <= now: the lease has just expired
            CountDownLatch gate = new CountDownLatch(1);
            List<Future<Object>> results = new ArrayList<>();
            for (Engine e : engines.subList(1, ENGINES)) {
                results.add(pool.submit(() -> {
                    gate.await();
                    try {
                        return e.leases().acquire(actor, Duration.ofMinutes(1));
                    } catch (Refusal r) {
                        return r;
                    }
                }));
            }
            gate.countDown();
            List<Lease> winners = new ArrayList<>();
            for (Future<Object> f : results) {
                Object o = f.get(60, TimeUnit.SECONDS);
                if (o instanceof Lease l) {
                    winners.add(l);
                } else {
                    assertThat(((Refusal) o).category()).isEqualTo(RefusalCategory.ACTOR_LEASE_HELD);
                }
            }
            assertThat(winners)
                    .singleElement()
                    .satisfies(l -> assertThat(l.token()).isGreaterThan(old.token()));
            assertThat(engines.get(0).journal().forResource("actor", actor).stream()
                            .filter(ev -> ev.kind().name().equals("LEASE_TAKEN_OVER"))
                            .count())
                    .isEqualTo(1);
        }
    }

    @Test
    void ofManyConnectionsRacingForOneFreeActorExactlyOneWinsAndTheOthersAreToldWho() throws Exception {
        for (int round = 0; round < 5; round++) {
            String actor = "contested-" + round;
            engines.get(0).actors().add(actor);
            CountDownLatch gate = new CountDownLatch(1);
            List<Future<Object>> results = new ArrayList<>();
            for (Engine e : engines) {
                results.add(pool.submit(() -> {
                    gate.await();
                    try {
                        return e.leases().acquire(actor, Duration.ofMinutes(1));
                    } catch (Refusal r) {
                        return r;
                    }
                }));
            }
            gate.countDown();
            List<Lease> winners = Collections.synchronizedList(new ArrayList<>());
            List<Refusal> losers = new ArrayList<>();
            for (Future<Object> f : results) {
                Object o = f.get(60, TimeUnit.SECONDS);
                if (o instanceof Lease l) {
                    winners.add(l);
                } else {
                    losers.add((Refusal) o);
                }
            }
            assertThat(winners).hasSize(1);
            Lease won = winners.get(0);
            assertThat(losers).hasSize(ENGINES - 1).allSatisfy(r -> {
                assertThat(r.category()).isEqualTo(RefusalCategory.ACTOR_LEASE_HELD);
                assertThat(r.currentToken()).isEqualTo(won.token());
            });
            assertThat(engines.get(0).leases().current(actor))
                    .hasValueSatisfying(l -> assertThat(l.token()).isEqualTo(won.token()));
        }
    }
}
