package dev.sovereign.engine.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.Refusal;
import dev.sovereign.engine.RefusalCategory;
import dev.sovereign.engine.lease.Lease;
import dev.sovereign.engine.testing.SettableClock;
import dev.sovereign.engine.testing.TempDatabase;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The token counter, the append-only journal and fail-closed lease state, tampered with from outside. */
class LedgerInvariantsTest {
    @RegisterExtension
    final TempDatabase temp = new TempDatabase();

    private final SettableClock clock = new SettableClock();

    private void sql(String... statements) throws SQLException {
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + temp.file());
             Statement s = c.createStatement()) {
            for (String st : statements) {
                s.execute(st);
            }
        }
    }

    @Test
    void theTokenCounterNeverRepeatsAfterDeletingEveryLeaseRowAndReopening() throws Exception {
        Engine first = temp.open(clock);
        long highest = 0;
        for (String actor : List.of("a", "b", "c")) {
            first.actors().add(actor);
            highest = Math.max(highest, first.leases().acquire(actor, Duration.ofSeconds(5)).token());
        }
        first.close();
        sql("DELETE FROM actor_leases");

        Engine reopened = temp.open(clock);
        Lease fresh = reopened.leases().acquire("a", Duration.ofSeconds(5));
        assertThat(fresh.token()).isGreaterThan(highest);
    }

    @Test
    void theCounterRowCannotBeDeletedOrWoundBack() throws Exception {
        temp.open(clock).close();
        assertThatThrownBy(() -> sql("DELETE FROM token_counter")).hasMessageContaining("cannot be deleted");
        sql("UPDATE token_counter SET last_token = 10");
        assertThatThrownBy(() -> sql("UPDATE token_counter SET last_token = 3")).hasMessageContaining("only increases");
    }

    @Test
    void theJournalIsAppendOnly() throws Exception {
        Engine e = temp.open(clock);
        e.actors().add("a");
        e.leases().acquire("a", Duration.ofSeconds(5));
        e.close();
        assertThatThrownBy(() -> sql("UPDATE fence_events SET token = 999")).hasMessageContaining("append-only");
        assertThatThrownBy(() -> sql("DELETE FROM fence_events")).hasMessageContaining("append-only");
    }

    @Test
    void aLeaseTokenTheCounterNeverIssuedFailsClosed() throws Exception {
        Engine e = temp.open(clock);
        e.actors().add("a");
        Lease l = e.leases().acquire("a", Duration.ofSeconds(5));
        sql("UPDATE actor_leases SET token = 1000 WHERE actor_id = 'a'");
        clock.advance(Duration.ofSeconds(10));

        Engine other = temp.open(clock);
        assertThatThrownBy(() -> other.leases().acquire("a", Duration.ofSeconds(5)))
                .isInstanceOfSatisfying(Refusal.class,
                        r -> assertThat(r.category()).isEqualTo(RefusalCategory.CORRUPT_LEASE_STATE));
        assertThatThrownBy(() -> e.leases().renew("a", 1000))
                .isInstanceOfSatisfying(Refusal.class,
                        r -> assertThat(r.category()).isEqualTo(RefusalCategory.CORRUPT_LEASE_STATE));
        assertThat(other.leases().current("a")).get().extracting(Lease::token).isEqualTo(1000L);
        assertThat(other.journal().rejections(10)).extracting(ev -> ev.category())
                .containsOnly("corrupt_lease_state");
        assertThat(l.token()).isLessThan(1000);
    }

    @Test
    void anImpossibleExpiryFailsClosedInsteadOfLookingLive() throws Exception {
        Engine e = temp.open(clock);
        e.actors().add("a");
        e.leases().acquire("a", Duration.ofSeconds(5));
        // an expiry a year past its 5 s TTL: would block every takeover forever if trusted
        sql("UPDATE actor_leases SET expires_at = expires_at + 31536000000 WHERE actor_id = 'a'");
        Engine other = temp.open(clock);
        assertThatThrownBy(() -> other.leases().acquire("a", Duration.ofSeconds(5)))
                .isInstanceOfSatisfying(Refusal.class,
                        r -> assertThat(r.category()).isEqualTo(RefusalCategory.CORRUPT_LEASE_STATE));
    }

    @Test
    void processesOpeningAFreshFileTogetherMigrateItExactlyOnce() throws Exception {
        int n = 6;
        ExecutorService pool = Executors.newFixedThreadPool(n);
        try {
            for (int round = 0; round < 15; round++) {
                java.nio.file.Path file = temp.dir().resolve("fresh-" + round + ".db");
                CyclicBarrier barrier = new CyclicBarrier(n);
                List<Future<String>> ids = new ArrayList<>();
                for (int i = 0; i < n; i++) {
                    ids.add(pool.submit(() -> {
                        barrier.await(30, TimeUnit.SECONDS);
                        return temp.open(dev.sovereign.engine.EngineConfig.forDatabase(file).clock(clock)
                                .heartbeat(false).build()).processIdentity();
                    }));
                }
                for (Future<String> f : ids) {
                    assertThat(f.get(60, TimeUnit.SECONDS)).startsWith("proc_");
                }
                try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + file);
                     Statement s = c.createStatement()) {
                    assertThat(s.executeQuery("SELECT count(*) FROM token_counter").getInt(1)).isEqualTo(1);
                    assertThat(s.executeQuery("SELECT count(*) FROM processes").getInt(1)).isEqualTo(n);
                    assertThat(s.executeQuery("PRAGMA user_version").getInt(1)).isEqualTo(1);
                }
            }
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void aCleanCloseMarksTheProcessStoppedAndReleasesItsLeases() {
        Engine e = temp.open(clock);
        e.actors().add("a");
        e.leases().acquire("a", Duration.ofSeconds(5));
        String id = e.processIdentity();
        e.close();
        Engine other = temp.open(clock);
        assertThat(other.processes().find(id)).get().satisfies(p -> assertThat(p.stoppedAt()).isNotNull());
        assertThat(other.leases().current("a")).isEmpty();
    }

    @Test
    void anEngineActingAsAnIdentityLeavesItAsItFoundIt() {
        Engine owner = temp.open(clock);
        owner.actors().add("a");
        Engine actingAs = temp.open(temp.config(clock).actAs(owner.processIdentity()).build());
        assertThat(actingAs.processIdentity()).isEqualTo(owner.processIdentity());
        Lease l = actingAs.leases().acquire("a", Duration.ofSeconds(5));
        actingAs.close();
        assertThat(owner.leases().current("a")).contains(l);
        assertThat(owner.processes().find(owner.processIdentity())).get()
                .satisfies(p -> assertThat(p.stoppedAt()).isNull());
    }
}
