package dev.sovereign.engine.spi;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sovereign.engine.lease.Lease;
import dev.sovereign.engine.testing.SettableClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.LongRange;
import net.jqwik.api.constraints.Size;
import net.jqwik.api.constraints.UniqueElements;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/** What a heartbeat checks of the leases attached to its session (decision 0509). */
class SessionCheckTest {
    static final long TTL = 5_000;

    final SettableClock clock = new SettableClock();

    Lease lease(String actor, long token, boolean attached) {
        long now = clock.millis();
        return new Lease(actor, "proc_me", token, TTL, now, now, now + TTL, attached);
    }

    static Grants.Beliefs beliefs(Lease... leases) {
        List<Long> tokens = new ArrayList<>();
        for (Lease l : leases) {
            tokens.add(l.token());
        }
        return new Grants.Beliefs(List.of(leases), SessionCheck.of(tokens));
    }

    @Nested
    class Checksum {
        @Test
        void the_values_are_the_count_and_the_sum_of_residues() {
            assertThat(SessionCheck.of(List.of())).containsExactly(0, 0);
            assertThat(SessionCheck.of(List.of(1L, 2L, 40L))).containsExactly(3, 43);
            assertThat(SessionCheck.of(List.of(SessionCheck.P1, SessionCheck.P1 + 5)))
                    .containsExactly(2, 5);
            assertThat(SessionCheck.of(List.of(Long.MAX_VALUE))).containsExactly(1, Long.MAX_VALUE % SessionCheck.P1);
        }
    }

    @Nested
    class WhenToCompare {
        final SessionCheck check = new SessionCheck();
        final Grants.Beliefs believed = beliefs(lease("a1", 3, true));

        @Test
        void the_first_beat_compares() {
            assertThat(check.mustCompare(believed.values(), believed, clock.millis()))
                    .isTrue();
        }

        @Test
        void equal_values_wait_until_exactly_verify_every_ms() {
            long t = clock.millis();
            check.compare(believed, Map.of("a1", 3L), t);
            assertThat(check.mustCompare(believed.values(), believed, t)).isFalse();
            assertThat(check.mustCompare(believed.values(), believed, t + SessionCheck.VERIFY_EVERY_MS - 1))
                    .isFalse();
            assertThat(check.mustCompare(believed.values(), believed, t + SessionCheck.VERIFY_EVERY_MS))
                    .isTrue();
        }

        @Test
        void a_clock_that_stepped_back_compares() {
            long t = clock.millis();
            check.compare(believed, Map.of("a1", 3L), t);
            assertThat(check.mustCompare(believed.values(), believed, t - 1)).isTrue();
        }

        @Test
        void values_that_differ_compare_at_once() {
            long t = clock.millis();
            check.compare(believed, Map.of("a1", 3L), t);
            assertThat(check.mustCompare(SessionCheck.of(List.of()), believed, t + 1))
                    .isTrue();
            assertThat(check.mustCompare(SessionCheck.of(List.of(4L)), believed, t + 1))
                    .isTrue();
        }
    }

    @Nested
    class Comparing {
        final SessionCheck check = new SessionCheck();

        @Test
        void a_believed_lease_not_attached_with_its_token_is_lost() {
            Grants.Beliefs b = beliefs(lease("a1", 3, true), lease("a2", 4, true), lease("a3", 5, true));
            SessionCheck.Outcome o = check.compare(b, Map.of("a1", 3L, "a2", 9L), clock.millis());
            assertThat(o.lost()).isEqualTo(Map.of("a2", 4L, "a3", 5L));
        }

        @Test
        void an_unbelieved_row_is_detached_only_at_its_second_sighting_with_the_same_token() {
            Grants.Beliefs none = beliefs();
            assertThat(check.mayDetach()).isFalse();
            SessionCheck.Outcome first = check.compare(none, Map.of("a1", 7L), clock.millis());
            assertThat(first.toDetach()).isEmpty();
            assertThat(first.lost()).isEmpty();
            assertThat(check.mayDetach()).isTrue();
            SessionCheck.Outcome second = check.compare(
                    none, Map.of("a1", 7L), clock.advance(Duration.ofSeconds(1)).millis());
            assertThat(second.toDetach()).isEqualTo(Map.of("a1", 7L));
        }

        @Test
        void a_new_token_on_the_second_sighting_starts_over() {
            Grants.Beliefs none = beliefs();
            check.compare(none, Map.of("a1", 7L), clock.millis());
            assertThat(check.compare(none, Map.of("a1", 8L), clock.millis() + 1).toDetach())
                    .isEmpty();
            assertThat(check.compare(none, Map.of("a1", 8L), clock.millis() + 2).toDetach())
                    .isEqualTo(Map.of("a1", 8L));
        }

        @Test
        void a_row_believed_in_between_is_never_detached() {
            check.compare(beliefs(), Map.of("a1", 7L), clock.millis());
            SessionCheck.Outcome o = check.compare(beliefs(lease("a1", 7, true)), Map.of("a1", 7L), clock.millis() + 1);
            assertThat(o.toDetach()).isEmpty();
            assertThat(o.lost()).isEmpty();
            assertThat(check.mayDetach()).isFalse();
        }

        @Test
        void a_beat_keeps_alive_every_attached_belief_but_the_lost_ones() {
            Lease attached = lease("a1", 3, true);
            Lease own = lease("a2", 4, false);
            Lease lost = lease("a3", 5, true);
            long beat = clock.advance(Duration.ofSeconds(2)).millis();
            List<Lease> kept = SessionCheck.kept(beliefs(attached, own, lost), Map.of("a3", 5L), beat);
            assertThat(kept).containsExactly(attached.keptAliveAt(beat), own);
            assertThat(kept.get(0).expiresAt()).isEqualTo(beat + TTL);
        }
    }

    /** Adding tokens one by one and taking them away again returns to nothing, in any order. */
    @Property(tries = 100)
    void adding_and_taking_away_round_trips(@ForAll @Size(max = 30) List<@LongRange(min = 1) Long> tokens) {
        long[] values = new long[2];
        tokens.forEach(t -> SessionCheck.add(values, t, +1));
        assertThat(values).containsExactly(SessionCheck.of(tokens));
        List<Long> reversed = new ArrayList<>(tokens);
        Collections.reverse(reversed);
        reversed.forEach(t -> SessionCheck.add(values, t, -1));
        assertThat(values).containsExactly(0, 0);
    }

    /** One lost lease and one unbelieved row (distinct tokens below P1) always change the checksum. */
    @Property(tries = 100)
    void one_lost_and_one_unbelieved_always_differ(
            @ForAll @Size(min = 1, max = 20) @UniqueElements List<@LongRange(min = 1, max = 4_294_967_290L) Long> held,
            @ForAll @LongRange(min = 1, max = 4_294_967_290L) long stranger) {
        if (Set.copyOf(held).contains(stranger)) {
            return;
        }
        List<Long> database = new ArrayList<>(held.subList(1, held.size()));
        database.add(stranger);
        assertThat(SessionCheck.of(database)).isNotEqualTo(SessionCheck.of(held));
    }
}
