package dev.sovereign.engine.actor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.base.Refusal;
import dev.sovereign.engine.base.RefusalCategory;
import dev.sovereign.engine.testing.Contract;
import dev.sovereign.engine.testing.SettableClock;
import dev.sovereign.engine.testing.TempDatabase;
import dev.sovereign.engine.testing.TestBackend;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Decision 0116 on every backend: {@code actors().ensure} adds an actor that does not exist and returns one that does,
 * as it is, with no write; engines ensuring the same new actor at once all get the one row. Who may add an actor on
 * PostgreSQL is {@code PgWorkersAddActorsTest}'s.
 */
@Contract
abstract class ActorEnsureContract {
    /** The backend this class's ledgers are on: each backend's module has its subclass (decision 0015). */
    protected abstract TestBackend backend();

    @RegisterExtension
    final TempDatabase temp = new TempDatabase(this::backend);

    private final SettableClock clock = new SettableClock();
    private Engine a;
    private Engine b;

    @BeforeEach
    void open() {
        a = temp.open(clock);
        b = temp.open(clock);
    }

    @Test
    void ensureAddsOnceAndThenReturnsTheActorAsItIsWithoutAWrite() {
        Actor first = a.actors().ensure("nightly-report", "persistent");
        assertThat(first.workspacePolicy()).isEqualTo("persistent");
        long events = a.journal().since(0, 10_000).size();
        long tokens =
                a.leases().acquire("nightly-report", Duration.ofSeconds(5)).token();

        clock.advance(Duration.ofSeconds(3));
        Actor again = b.actors().ensure("nightly-report"); // another policy asked: the actor is returned as it is
        assertThat(again).isEqualTo(first);
        assertThat(b.actors().list()).containsExactly(first);
        assertThat(a.journal().since(0, 10_000)).hasSize((int) events + 1); // only the grant above
        assertThat(b.leases().tryAcquire("nightly-report", Duration.ofSeconds(5)))
                .isEmpty();
        assertThat(a.leases().current("nightly-report").orElseThrow().token()).isEqualTo(tokens);

        // and add still refuses a duplicate, as before
        assertThatThrownBy(() -> a.actors().add("nightly-report"))
                .isInstanceOfSatisfying(
                        Refusal.class, r -> assertThat(r.category()).isEqualTo(RefusalCategory.ACTOR_EXISTS));
    }

    @Test
    void engineEnsuringOneNewActorAtOnceAllGetTheOneRow() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            for (int round = 0; round < 10; round++) {
                String id = "lock-" + round;
                CountDownLatch go = new CountDownLatch(1);
                List<Future<Actor>> results = new ArrayList<>();
                for (int i = 0; i < 4; i++) {
                    Engine e = i % 2 == 0 ? a : b;
                    results.add(pool.submit(() -> {
                        go.await();
                        return e.actors().ensure(id);
                    }));
                }
                go.countDown();
                Actor one = results.get(0).get(30, TimeUnit.SECONDS);
                for (Future<Actor> f : results) {
                    assertThat(f.get(30, TimeUnit.SECONDS)).isEqualTo(one);
                }
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(a.actors().list()).hasSize(10);
    }

    @Test
    void badInputIsRefusedAsAddRefusesIt() {
        for (String bad : new String[] {null, "", " ", "x".repeat(201), "line\nbreak"}) {
            assertThatThrownBy(() -> a.actors().ensure(bad))
                    .isInstanceOfSatisfying(
                            Refusal.class, r -> assertThat(r.category()).isEqualTo(RefusalCategory.INVALID_ARGUMENT));
        }
        assertThatThrownBy(() -> a.actors().ensure("ok", "sometimes"))
                .isInstanceOfSatisfying(
                        Refusal.class,
                        r -> assertThat(r.category()).isEqualTo(RefusalCategory.UNKNOWN_WORKSPACE_POLICY));
        assertThat(a.actors().list()).isEmpty();
    }
}
