package dev.sovereign.engine.internal.sqlite;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.lease.Beat;
import dev.sovereign.engine.lease.Lease;
import dev.sovereign.engine.testing.SettableClock;
import dev.sovereign.engine.testing.TempDatabase;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The heartbeat's lease renewal finds each presented lease by its key: one lookup per lease, never "for each
 * of this process's leases, scan the whole presented list again". On schema v6 (leases WITHOUT ROWID) the
 * token-joined statement got that quadratic plan and a beat of 1,000 leases took 100 ms instead of 5
 * (bench run of 2026-12-01, 17:17 UTC).
 */
class HeartbeatPlanTest {
    @RegisterExtension
    final TempDatabase temp = new TempDatabase();

    private final SettableClock clock = new SettableClock();

    @Test
    void theRenewalLooksUpEachPresentedLeaseByItsKey() throws Exception {
        Engine e = temp.open(clock);
        for (int i = 0; i < 300; i++) {
            e.actors().add("actor-" + i);
            e.leases().acquire("actor-" + i, Duration.ofMinutes(10));
        }
        for (boolean analyzed : new boolean[] {false, true}) {
            if (analyzed) {
                try (Connection c = plain(); Statement s = c.createStatement()) {
                    s.execute("ANALYZE");
                }
            }
            List<String> plan = plan(Heartbeat.RENEW_LEASES_SQL);
            assertThat(plan).as("plan (ANALYZE run: %s): %s", analyzed, plan)
                    .anySatisfy(d -> assertThat(d).isEqualTo("SEARCH actor_leases USING PRIMARY KEY (actor_id=?)"))
                    .noneSatisfy(d -> assertThat(d).startsWith("SCAN actor_leases"))
                    .noneSatisfy(d -> assertThat(d).contains("actor_leases_by_process"));
            int json = indexOf(plan, "SCAN json_each");
            int lease = indexOf(plan, "SEARCH actor_leases");
            assertThat(json).as("the presented list is the outer loop: %s", plan).isLessThan(lease);
        }
    }

    @Test
    void aBeatRenewsEveryLeaseWhateverItsActorIdHoldsAndNoOtherProcesss() throws Exception {
        Engine e = temp.open(clock);
        List<String> actors = List.of("plain", "with \"quotes\"", "back\\slash", "[1,2]", "ünïcødé ✓");
        for (String a : actors) {
            e.actors().add(a);
            e.leases().acquire(a, Duration.ofSeconds(30));
        }
        Engine other = temp.open(clock); // another process on the same file
        {
            other.actors().add("theirs");
            Lease theirs = other.leases().acquire("theirs", Duration.ofSeconds(30));
            clock.advance(Duration.ofSeconds(10));

            Beat beat = e.heartbeatNow();

            assertThat(beat.renewedLeases()).extracting(Lease::actor).containsExactlyInAnyOrderElementsOf(actors);
            assertThat(beat.lostLeases()).isEmpty();
            for (String a : actors) {
                assertThat(e.leases().current(a).orElseThrow().expiresAt())
                        .isEqualTo(clock.millis() + Duration.ofSeconds(30).toMillis());
            }
            assertThat(e.leases().current("theirs").orElseThrow().expiresAt()).isEqualTo(theirs.expiresAt());
        }
    }

    private static int indexOf(List<String> plan, String prefix) {
        for (int i = 0; i < plan.size(); i++) {
            if (plan.get(i).startsWith(prefix)) {
                return i;
            }
        }
        throw new AssertionError("no '" + prefix + "' in " + plan);
    }

    private Connection plain() throws SQLException {
        return DriverManager.getConnection("jdbc:sqlite:" + temp.file());
    }

    private List<String> plan(String sql) throws SQLException {
        List<String> plan = new ArrayList<>();
        try (Connection c = plain(); PreparedStatement ps = c.prepareStatement("EXPLAIN QUERY PLAN " + sql)) {
            for (int i = 1; i <= ps.getParameterMetaData().getParameterCount(); i++) {
                ps.setString(i, "[[\"actor-1\",1],[\"actor-2\",2]]");
            }
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    plan.add(rs.getString("detail"));
                }
            }
        }
        return plan;
    }
}
