package dev.sovereign.engine.internal.sqlite;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.base.Refusal;
import dev.sovereign.engine.base.RefusalCategory;
import dev.sovereign.engine.journal.EventKind;
import dev.sovereign.engine.testing.SettableClock;
import dev.sovereign.engine.testing.Sqlite;
import dev.sovereign.engine.testing.TempDatabase;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * An engine that registers lazily (docs/decisions/0304) on SQLite: nothing for reads or refusals, and inside a
 * group-commit batch the registration goes with the first work that commits, not with a refused one before it.
 */
class LazyRegistrationTest {
    private static final Duration TTL = Duration.ofSeconds(30);

    @RegisterExtension
    final TempDatabase temp = new TempDatabase();

    private final SettableClock clock = new SettableClock();

    @Test
    void aRefusedWorkBeforeACommittedOneInTheSameBatchDoesNotTakeTheRegistrationWithIt() throws Exception {
        Engine holder = temp.open(clock);
        holder.actors().add("held");
        holder.leases().acquire("held", TTL);
        Engine lazy = temp.open(
                temp.config(clock).registerLazily(true).processLabel("lazy").build());
        Database db = Sqlite.database(lazy);
        long batchesBefore = db.batchesCommitted();

        ExecutorService pool = Executors.newFixedThreadPool(3);
        try {
            // a read holds the engine's connection until both writes wait in the queue: they run as one batch.
            // The writes are handed in only once the read holds it: a write that got the connection first would
            // commit alone (two batches), and the read would wait in vain for two queued writes.
            CountDownLatch holding = new CountDownLatch(1);
            Future<?> gate = pool.submit(() -> db.read(tx -> {
                holding.countDown();
                long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                while (db.writesWaiting() < 2 && System.nanoTime() < until) {
                    Thread.onSpinWait();
                }
                return null;
            }));
            assertThat(holding.await(30, TimeUnit.SECONDS))
                    .as("the read holds the connection")
                    .isTrue();
            Future<?> refused = pool.submit(() -> lazy.leases().acquire("held", TTL));
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (db.writesWaiting() < 1 && System.nanoTime() < until) {
                Thread.onSpinWait();
            }
            Future<?> added = pool.submit(() -> lazy.actors().add("second"));
            gate.get(60, TimeUnit.SECONDS);
            added.get(60, TimeUnit.SECONDS);
            try {
                refused.get(60, TimeUnit.SECONDS);
                throw new AssertionError("the acquire of a held lease was not refused");
            } catch (ExecutionException e) {
                assertThat(e.getCause())
                        .isInstanceOfSatisfying(
                                Refusal.class,
                                r -> assertThat(r.category()).isEqualTo(RefusalCategory.ACTOR_LEASE_HELD));
            }
        } finally {
            pool.shutdownNow();
        }

        assertThat(db.batchesCommitted() - batchesBefore).as("one batch").isEqualTo(1);
        assertThat(db.isRegistered()).isTrue();
        assertThat(holder.processes().find(lazy.processIdentity())).hasValueSatisfying(p -> {
            assertThat(p.label()).isEqualTo("lazy");
            assertThat(p.stoppedAt()).isNull();
        });
        assertThat(holder.actors().find("second")).isPresent();
        assertThat(holder.journal().since(0, 100))
                .filteredOn(e -> e.kind() == EventKind.REJECTED)
                .singleElement()
                .satisfies(e -> assertThat(e.processIdentity()).isEqualTo(lazy.processIdentity()));
    }

    @Test
    void readsAndRefusalsRegisterNothingAndCloseStopsNothing() {
        Engine holder = temp.open(clock);
        holder.actors().add("held");
        holder.leases().acquire("held", TTL);
        int before = holder.processes().list().size();

        String identity;
        try (Engine lazy = Engine.open(temp.config(clock).registerLazily(true).build())) {
            identity = lazy.processIdentity();
            lazy.summary();
            lazy.actors().list();
            lazy.journal().since(0, 10);
            try {
                lazy.leases().acquire("held", TTL);
                throw new AssertionError("not refused");
            } catch (Refusal expected) {
                assertThat(expected.category()).isEqualTo(RefusalCategory.ACTOR_LEASE_HELD);
            }
            assertThat(Sqlite.database(lazy).isRegistered()).isFalse();
        }

        assertThat(holder.processes().list()).hasSize(before);
        assertThat(holder.processes().find(identity)).isEmpty();
    }
}
