package dev.sovereign.engine.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.base.EngineConfig;
import dev.sovereign.engine.base.Refusal;
import dev.sovereign.engine.base.RefusalCategory;
import dev.sovereign.engine.internal.sqlite.SqliteBackend;
import dev.sovereign.engine.lease.Lease;
import dev.sovereign.engine.testing.SettableClock;
import dev.sovereign.engine.testing.TempDatabase;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
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

    /** What a lease write must state to pass the fence guards (V0003): the token it presents. */
    private static final String PRESENTING = "presented_token = token, presented_change = change_seq";

    private void sql(String... statements) throws SQLException {
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + temp.file());
                Statement s = c.createStatement()) {
            for (String st : statements) {
                s.execute(st);
            }
        }
    }

    /**
     * Tampers with a lease row from outside the engine, as corruption would (a disk error, a restored
     * half-copy): the schema's guards refuse such a write (DatabaseEnforcedFenceTest), so they are
     * dropped for the one transaction and re-created, as they were, in the same one. The row must still
     * carry a new lease change marker.
     */
    private void tamperWithLease(String actor, String assignments) throws SQLException {
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + temp.file());
                Statement s = c.createStatement()) {
            s.execute("BEGIN IMMEDIATE");
            List<String[]> guards = new ArrayList<>();
            try (ResultSet rs = s.executeQuery(
                    "SELECT name, sql FROM sqlite_master WHERE type = 'trigger'" + " AND tbl_name = 'actor_leases'")) {
                while (rs.next()) {
                    guards.add(new String[] {rs.getString(1), rs.getString(2)});
                }
            }
            for (String[] g : guards) {
                s.execute("DROP TRIGGER " + g[0]);
            }
            s.execute("UPDATE lease_change_counter SET last_change = last_change + 1 WHERE id = 1");
            s.execute("UPDATE actor_leases SET " + assignments + ","
                    + " change_seq = (SELECT last_change FROM lease_change_counter WHERE id = 1)"
                    + " WHERE actor_id = '" + actor + "'");
            for (String[] g : guards) {
                s.execute(g[1]);
            }
            s.execute("COMMIT");
        }
    }

    @Test
    void theDatabaseItselfRefusesTheSameTamperingWhileItsGuardsStand() throws Exception {
        Engine e = temp.open(clock);
        e.actors().add("a");
        Lease l = e.leases().acquire("a", Duration.ofSeconds(5));
        assertThatThrownBy(() -> sql(
                        "BEGIN IMMEDIATE",
                        "UPDATE lease_change_counter SET last_change = last_change + 1 WHERE id = 1",
                        "UPDATE actor_leases SET token = 1000,"
                                + " change_seq = (SELECT last_change FROM lease_change_counter WHERE id = 1)"
                                + " WHERE actor_id = 'a'"))
                .hasMessageContaining("fence:");
        assertThat(e.leases().current("a")).contains(l);
    }

    @Test
    void aLeaseWriteThatDoesNotCarryANewChangeMarkerIsRefused() throws Exception {
        Engine e = temp.open(clock);
        e.actors().add("a");
        e.actors().add("b");
        e.leases().acquire("a", Duration.ofSeconds(5));
        String guard = "must carry a new lease change marker";
        // each write presents the row's token, so the fence guards (V0003) let it through to this one

        // right after the row's own write the counter still equals its marker: refused all the same
        assertThatThrownBy(() -> sql(
                        "UPDATE actor_leases SET renewed_at = renewed_at + 1, " + PRESENTING + " WHERE actor_id = 'a'"))
                .hasMessageContaining(guard);
        e.leases().acquire("b", Duration.ofSeconds(5));
        assertThatThrownBy(() -> sql(
                        "UPDATE actor_leases SET renewed_at = renewed_at + 1, " + PRESENTING + " WHERE actor_id = 'a'"))
                .hasMessageContaining(guard);
        // a bumped counter whose value the row does not carry
        assertThatThrownBy(() -> sql(
                        "BEGIN IMMEDIATE",
                        "UPDATE lease_change_counter SET last_change = last_change + 1 WHERE id = 1",
                        "UPDATE actor_leases SET renewed_at = renewed_at + 1, " + PRESENTING + " WHERE actor_id = 'a'"))
                .hasMessageContaining(guard);
        e.leases().release("b", e.leases().current("b").orElseThrow().token());
        // a grant with a token minted for it (one write carries one mint, schema version 17), and no marker
        assertThatThrownBy(() -> sql(
                        "BEGIN IMMEDIATE",
                        "UPDATE token_counter SET last_token = last_token + 1 WHERE id = 1",
                        "INSERT INTO actor_leases (actor_id, process_identity, token, ttl_ms, acquired_at,"
                                + " renewed_at, expires_at, renewal_journalled_at) VALUES ('b', '" + e.processIdentity()
                                + "', (SELECT last_token FROM token_counter), 5000, 0, 0, 5000, 0)"))
                .hasMessageContaining(guard);
        assertThatThrownBy(() -> sql("DELETE FROM lease_change_counter")).hasMessageContaining("cannot be deleted");
        assertThatThrownBy(() -> sql("UPDATE lease_change_counter SET last_change = 0"))
                .hasMessageContaining("only increases");
    }

    @Test
    void theTokenCounterNeverRepeatsAfterDeletingEveryLeaseRowAndReopening() throws Exception {
        Engine first = temp.open(clock);
        long highest = 0;
        for (String actor : List.of("a", "b", "c")) {
            first.actors().add(actor);
            highest = Math.max(
                    highest,
                    first.leases().acquire(actor, Duration.ofSeconds(5)).token());
        }
        first.close();
        // every lease row deleted from outside, each write stating its token as the schema asks (V0003)
        sql(
                "BEGIN IMMEDIATE",
                "UPDATE lease_change_counter SET last_change = last_change + 1 WHERE id = 1",
                "UPDATE actor_leases SET change_seq = (SELECT last_change FROM lease_change_counter),"
                        + " presented_token = token, presented_change = (SELECT last_change FROM lease_change_counter)",
                "DELETE FROM actor_leases",
                "COMMIT");

        Engine reopened = temp.open(clock);
        Lease fresh = reopened.leases().acquire("a", Duration.ofSeconds(5));
        assertThat(fresh.token()).isGreaterThan(highest);
    }

    @Test
    void theCounterRowCannotBeDeletedOrWoundBack() throws Exception {
        temp.open(clock).close();
        assertThatThrownBy(() -> sql("DELETE FROM token_counter")).hasMessageContaining("cannot be deleted");
        // one step, as a mint moves it (a jump is refused since version 8: CounterGuardTest)
        sql("UPDATE token_counter SET last_token = last_token + 1");
        assertThatThrownBy(() -> sql("UPDATE token_counter SET last_token = 0")).hasMessageContaining("only increases");
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
        tamperWithLease("a", "token = 1000");
        clock.advance(Duration.ofSeconds(10));

        Engine other = temp.open(clock);
        assertThatThrownBy(() -> other.leases().acquire("a", Duration.ofSeconds(5)))
                .isInstanceOfSatisfying(
                        Refusal.class, r -> assertThat(r.category()).isEqualTo(RefusalCategory.CORRUPT_LEASE_STATE));
        assertThatThrownBy(() -> e.leases().renew("a", 1000))
                .isInstanceOfSatisfying(
                        Refusal.class, r -> assertThat(r.category()).isEqualTo(RefusalCategory.CORRUPT_LEASE_STATE));
        assertThat(other.leases().current("a")).get().extracting(Lease::token).isEqualTo(1000L);
        assertThat(other.journal().rejections(10))
                .extracting(ev -> ev.category())
                .containsOnly("corrupt_lease_state");
        assertThat(l.token()).isLessThan(1000);
    }

    @Test
    void anImpossibleExpiryFailsClosedInsteadOfLookingLive() throws Exception {
        Engine e = temp.open(clock);
        e.actors().add("a");
        e.leases().acquire("a", Duration.ofSeconds(5));
        // an expiry a year past its 5 s TTL: would block every takeover forever if trusted
        tamperWithLease("a", "expires_at = expires_at + 31536000000");
        Engine other = temp.open(clock);
        assertThatThrownBy(() -> other.leases().acquire("a", Duration.ofSeconds(5)))
                .isInstanceOfSatisfying(
                        Refusal.class, r -> assertThat(r.category()).isEqualTo(RefusalCategory.CORRUPT_LEASE_STATE));
    }

    @Test
    void processesOpeningAFreshFileTogetherMigrateItExactlyOnce() throws Exception {
        int n = 6;
        ExecutorService pool = Executors.newFixedThreadPool(n);
        try {
            for (int round = 0; round < 15; round++) {
                Path file = temp.dir().resolve("fresh-" + round + ".db");
                CyclicBarrier barrier = new CyclicBarrier(n);
                List<Future<String>> ids = new ArrayList<>();
                for (int i = 0; i < n; i++) {
                    ids.add(pool.submit(() -> {
                        barrier.await(30, TimeUnit.SECONDS);
                        return temp.open(EngineConfig.forDatabase(file)
                                        .clock(clock)
                                        .heartbeat(false)
                                        .build())
                                .processIdentity();
                    }));
                }
                for (Future<String> f : ids) {
                    assertThat(f.get(60, TimeUnit.SECONDS)).startsWith("proc_");
                }
                try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + file);
                        Statement s = c.createStatement()) {
                    assertThat(s.executeQuery("SELECT count(*) FROM token_counter")
                                    .getInt(1))
                            .isEqualTo(1);
                    assertThat(s.executeQuery("SELECT count(*) FROM lease_change_counter")
                                    .getInt(1))
                            .isEqualTo(1);
                    assertThat(s.executeQuery("SELECT count(*) FROM processes").getInt(1))
                            .isEqualTo(n);
                    int latest = new SqliteBackend().schemaVersion();
                    assertThat(s.executeQuery("PRAGMA user_version").getInt(1)).isEqualTo(latest);
                    assertThat(s.executeQuery("SELECT count(*) FROM ledger_mark")
                                    .getInt(1))
                            .isEqualTo(1);
                    // one record per version from 4 on, each written once
                    assertThat(s.executeQuery("SELECT count(*) FROM schema_migrations")
                                    .getInt(1))
                            .isEqualTo(latest - 3);
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
        assertThat(other.processes().find(id))
                .get()
                .satisfies(p -> assertThat(p.stoppedAt()).isNotNull());
        assertThat(other.leases().current("a")).isEmpty();
    }

    @Test
    void anEngineActingAsAnIdentityLeavesItAsItFoundIt() {
        Engine owner = temp.open(clock);
        owner.actors().add("a");
        Engine actingAs =
                temp.open(temp.config(clock).actAs(owner.processIdentity()).build());
        assertThat(actingAs.processIdentity()).isEqualTo(owner.processIdentity());
        Lease l = actingAs.leases().acquire("a", Duration.ofSeconds(5));
        actingAs.close();
        assertThat(owner.leases().current("a")).contains(l);
        assertThat(owner.processes().find(owner.processIdentity()))
                .get()
                .satisfies(p -> assertThat(p.stoppedAt()).isNull());
    }
}
