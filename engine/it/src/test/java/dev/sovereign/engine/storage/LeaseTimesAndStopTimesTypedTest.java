package dev.sovereign.engine.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.base.Refusal;
import dev.sovereign.engine.base.RefusalCategory;
import dev.sovereign.engine.lease.Lease;
import dev.sovereign.engine.testing.RawSql;
import dev.sovereign.engine.testing.SettableClock;
import dev.sovereign.engine.testing.TempDatabase;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Issue 26, three holes the standing attack suite's longer runs found in schema version 11 of a file (decision
 * 0013), closed by version 12. A raw writer of the file, with {@code recursive_triggers} off and on:
 * <ul>
 *   <li>wrote {@code expires_at = ''} into a live lease through a write presenting its token (a text compares above
 *       every number and reads as 0): a stranger's acquire then failed with an internal error;</li>
 *   <li>granted a free actor by hand, with a freshly minted token, for 11,574 days (the API's limit is 365);</li>
 *   <li>set a live process's {@code stopped_at} to {@code 'abc'}, or cleared a stop.</li>
 * </ul>
 * Each is refused now, after a grant, a renewal, a detach and a takeover alike, and the engine's own writes of every
 * kind still pass.
 */
class LeaseTimesAndStopTimesTypedTest {
    private static final long YEAR = 365L * 24 * 3600 * 1000;
    private static final String STATED = "UPDATE actor_leases SET change_seq = (SELECT last_change FROM"
            + " lease_change_counter), presented_change = (SELECT last_change FROM lease_change_counter),"
            + " presented_token = token, ";
    private static final String STEP = "UPDATE lease_change_counter SET last_change = last_change + 1";
    private static final String MINT = "UPDATE token_counter SET last_token = last_token + 1";

    @RegisterExtension
    final TempDatabase temp = new TempDatabase();

    private final SettableClock clock = new SettableClock();
    private RawSql raw;
    private Engine a;
    private Engine b;

    @BeforeEach
    void open() {
        raw = new RawSql(temp.file());
        a = temp.open(clock);
        b = temp.open(clock);
        for (String actor : List.of("w", "free")) {
            a.actors().add(actor);
        }
    }

    private void refused(boolean recursive, String expected, String... statements) {
        assertThatThrownBy(() -> raw.run(recursive, statements))
                .as(String.join("; ", statements))
                .isInstanceOf(SQLException.class)
                .hasMessageContaining(expected);
    }

    /** The lease of "w" after one of the operations that precede an attack: a grant, a renewal, a detach, a takeover. */
    private Lease after(String preceding) {
        Lease l = a.leases().acquire("w", Duration.ofMinutes(1));
        switch (preceding) {
            case "grant" -> {}
            case "renewal" -> {
                clock.advance(Duration.ofSeconds(5));
                l = a.leases().renew("w", l.token());
            }
            case "detach" -> {
                a.leases().abandon("w", l.token());
                l = a.leases().current("w").orElseThrow();
            }
            case "takeover" -> {
                clock.advance(Duration.ofMinutes(2));
                l = b.leases().acquire("w", Duration.ofMinutes(1));
            }
            default -> throw new IllegalArgumentException(preceding);
        }
        return l;
    }

    @ParameterizedTest(name = "recursive_triggers={0}")
    @ValueSource(booleans = {false, true})
    void aLeasesTimesAndTtlAreWholeNumbersWithinAYearWhateverCameBefore(boolean recursive) throws Exception {
        String words = "whole numbers, its TTL at most 365 days";
        for (String preceding : List.of("grant", "renewal", "detach", "takeover")) {
            Lease held = after(preceding);
            String row = raw.text("SELECT quote(ttl_ms) || quote(acquired_at) || quote(renewed_at) || quote(expires_at)"
                    + " FROM actor_leases WHERE actor_id = 'w'");
            for (String column : List.of("expires_at", "renewed_at", "acquired_at", "ttl_ms")) {
                for (String garbage : List.of("''", "'abc'", "0.5", "x'01'", "'99999999999999999999'")) {
                    refused(recursive, words, STEP, STATED + column + " = " + garbage + " WHERE actor_id = 'w'");
                }
            }
            refused(
                    recursive,
                    words,
                    STEP,
                    STATED + "ttl_ms = " + (YEAR + 1) + ", expires_at = renewed_at + " + (YEAR + 1)
                            + " WHERE actor_id = 'w'");
            refused(recursive, words, STEP, STATED + "expires_at = renewed_at + ttl_ms + 1 WHERE actor_id = 'w'");
            refused(
                    recursive,
                    words,
                    STEP,
                    "UPDATE OR REPLACE actor_leases SET change_seq = (SELECT last_change FROM"
                            + " lease_change_counter), presented_change = (SELECT last_change FROM lease_change_counter),"
                            + " presented_token = token, expires_at = '' WHERE actor_id = 'w'");
            // an upsert's update goes through the same guards (the grant's own guards refuse it first)
            refused(
                    recursive,
                    "fence",
                    STEP,
                    "INSERT INTO actor_leases (actor_id, process_identity, token, ttl_ms,"
                            + " acquired_at, renewed_at, expires_at, renewal_journalled_at, change_seq) SELECT actor_id,"
                            + " process_identity, token, ttl_ms, acquired_at, renewed_at, expires_at, renewal_journalled_at,"
                            + " change_seq FROM actor_leases WHERE actor_id = 'w' ON CONFLICT (actor_id) DO UPDATE SET"
                            + " expires_at = '', ttl_ms = " + (YEAR + 1));
            assertThat(raw.text("SELECT quote(ttl_ms) || quote(acquired_at) || quote(renewed_at) || quote(expires_at)"
                            + " FROM actor_leases WHERE actor_id = 'w'"))
                    .as(preceding)
                    .isEqualTo(row);
            // the engine's own writes go on: a renewal by its holder, and a stranger's acquire is a refusal
            Engine holder = preceding.equals("takeover") ? b : a;
            Engine stranger = holder == a ? b : a;
            assertThat(holder.leases().renew("w", held.token()).token()).isEqualTo(held.token());
            assertThatThrownBy(() -> stranger.leases().acquire("w", Duration.ofMinutes(1)))
                    .isInstanceOfSatisfying(
                            Refusal.class, r -> assertThat(r.category()).isEqualTo(RefusalCategory.ACTOR_LEASE_HELD));
            holder.leases().release("w", held.token());
        }
    }

    @ParameterizedTest(name = "recursive_triggers={0}")
    @ValueSource(booleans = {false, true})
    void aGrantByHandForAFreeActorKeepsTheYearLimit(boolean recursive) throws Exception {
        String me = a.processIdentity();
        String grant = "INSERT INTO actor_leases (actor_id, process_identity, token, ttl_ms, acquired_at, renewed_at,"
                + " expires_at, renewals, renewal_journalled_at, change_seq, attached) SELECT 'free', '" + me + "',"
                + " last_token, %d, %d, %d, %s, 0, %d, (SELECT last_change FROM lease_change_counter), 1"
                + " FROM token_counter";
        long now = clock.millis();
        long tooLong = 1_000_000_000_000L; // 11,574 days: the attack suite's grant
        refused(
                recursive,
                "TTL at most 365 days",
                MINT,
                STEP,
                grant.formatted(tooLong, now, now, now + tooLong + "", now));
        refused(recursive, "whole numbers", MINT, STEP, grant.formatted(60_000, now, now, "''", now));
        refused(recursive, "whole numbers", MINT, STEP, grant.formatted(60_000, now, now, now + 120_000 + "", now));
        assertThat(raw.scalar("SELECT count(*) FROM actor_leases WHERE actor_id = 'free'"))
                .isZero();
        // a year is the limit, and a grant of exactly that (by hand, as the engine would write it) passes
        raw.run(recursive, MINT, STEP, grant.formatted(YEAR, now, now, now + YEAR + "", now));
        assertThat(a.leases().current("free").orElseThrow().expiresAt()).isEqualTo(now + YEAR);
    }

    @ParameterizedTest(name = "recursive_triggers={0}")
    @ValueSource(booleans = {false, true})
    void aProcessStopsOnceAtAWholeTimeAndStaysStopped(boolean recursive) throws Exception {
        String live = a.processIdentity();
        String where = " WHERE identity = '" + live + "'";
        String words = "a process stops once, at a whole-number time";
        for (String garbage : List.of("'abc'", "''", "0.5", "x'01'", "'99999999999999999999'")) {
            refused(recursive, words, "UPDATE processes SET stopped_at = " + garbage + where);
        }
        // nor through an upsert or a replace of the row (whichever guard answers, the stop time stays as it was)
        for (String other : List.of(
                "INSERT INTO processes (identity, kind, started_at, heartbeat_at, heartbeat_interval_ms) SELECT identity,"
                        + " kind, started_at, heartbeat_at, heartbeat_interval_ms FROM processes" + where
                        + " ON CONFLICT (identity) DO UPDATE SET stopped_at = 'abc'",
                "REPLACE INTO processes (identity, kind, started_at, heartbeat_at, heartbeat_interval_ms, stopped_at)"
                        + " SELECT identity, kind, started_at, heartbeat_at, heartbeat_interval_ms, 'abc' FROM processes"
                        + where)) {
            try {
                raw.run(recursive, other);
            } catch (SQLException refusedByAGuard) {
                assertThat(refusedByAGuard.getMessage()).contains("fence");
            }
        }
        assertThat(raw.text("SELECT quote(stopped_at) FROM processes" + where)).isEqualTo("NULL");
        b.close();
        String stopped = b.processIdentity();
        long at = raw.scalar("SELECT stopped_at FROM processes WHERE identity = '" + stopped + "'");
        refused(recursive, words, "UPDATE processes SET stopped_at = NULL WHERE identity = '" + stopped + "'");
        refused(
                recursive,
                words,
                "UPDATE processes SET stopped_at = stopped_at + 1 WHERE identity = '" + stopped + "'");
        assertThat(raw.scalar("SELECT stopped_at FROM processes WHERE identity = '" + stopped + "'"))
                .isEqualTo(at);
        // the engine's own stop: once, at a whole time
        a.close();
        assertThat(raw.text("SELECT typeof(stopped_at) FROM processes" + where)).isEqualTo("integer");
    }
}
