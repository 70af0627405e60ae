package dev.sovereign.engine.rules;

import static dev.sovereign.engine.base.RefusalCategory.ACTOR_LEASE_HELD;
import static dev.sovereign.engine.base.RefusalCategory.ACTOR_LEASE_LOST;
import static dev.sovereign.engine.base.RefusalCategory.CORRUPT_LEASE_STATE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import dev.sovereign.engine.base.Refusal;
import dev.sovereign.engine.lease.Lease;
import dev.sovereign.engine.testing.Refused;
import dev.sovereign.engine.testing.SettableClock;
import java.time.Duration;
import java.time.Instant;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.LongRange;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/** The actor lease rules (contract §3, 4): who may take, renew and release a lease; which row is corrupt. */
class LeaseRulesTest {
    static final String ME = "proc_me";
    static final String OTHER = "proc_other";
    static final long TTL = 5_000;

    final SettableClock clock = new SettableClock();

    /** A sane lease of {@code process} with {@code token}, renewed now, expiring a TTL later. */
    Lease lease(String process, long token) {
        long now = clock.millis();
        return new Lease("a1", process, token, TTL, now, now, now + TTL);
    }

    static Lease withExpiry(Lease l, long expiresAt) {
        return new Lease(l.actor(), l.process(), l.token(), l.ttlMs(), l.acquiredAt(), l.renewedAt(), expiresAt);
    }

    static String at(long millis) {
        return Instant.ofEpochMilli(millis).toString();
    }

    @Nested
    class Corruption {
        @Test
        void a_lease_the_engine_wrote_is_sane() {
            assertThat(LeaseRules.corruption(lease(ME, 1), 1)).isNull();
            assertThat(LeaseRules.corruption(lease(ME, 3), 7)).isNull();
        }

        @Test
        void token_zero_was_never_issued() {
            assertThat(LeaseRules.corruption(lease(ME, 0), 5))
                    .isEqualTo("its token 0 was never issued by the counter (last issued 5)");
        }

        @Test
        void a_negative_token_was_never_issued() {
            assertThat(LeaseRules.corruption(lease(ME, -1), 5)).contains("its token -1 was never issued");
        }

        @Test
        void the_last_issued_token_is_sane_and_one_past_it_is_not() {
            assertThat(LeaseRules.corruption(lease(ME, 5), 5)).isNull();
            assertThat(LeaseRules.corruption(lease(ME, 6), 5))
                    .isEqualTo("its token 6 was never issued by the counter (last issued 5)");
        }

        @Test
        void token_one_before_anything_was_issued_is_corrupt() {
            assertThat(LeaseRules.corruption(lease(ME, 1), 0))
                    .contains("its token 1 was never issued")
                    .contains("(last issued 0)");
        }

        @Test
        void an_expiry_exactly_one_ttl_after_the_renewal_is_sane_and_one_ms_more_is_not() {
            Lease l = lease(ME, 2);
            assertThat(LeaseRules.corruption(withExpiry(l, l.renewedAt() + TTL), 2))
                    .isNull();
            assertThat(LeaseRules.corruption(withExpiry(l, l.renewedAt() + TTL + 1), 2))
                    .isEqualTo("its expiry " + (l.renewedAt() + TTL + 1) + " is impossible for a 5000 ms lease"
                            + " renewed at " + l.renewedAt());
        }

        @Test
        void an_expiry_sooner_than_the_ttl_allows_is_not_corruption() {
            Lease l = lease(ME, 2);
            assertThat(LeaseRules.corruption(withExpiry(l, l.renewedAt()), 2)).isNull();
        }

        @Test
        void a_ttl_of_zero_or_less_is_impossible() {
            long now = clock.millis();
            assertThat(LeaseRules.corruption(new Lease("a1", ME, 2, 0, now, now, now), 2))
                    .startsWith("its expiry " + now + " is impossible for a 0 ms lease");
            assertThat(LeaseRules.corruption(new Lease("a1", ME, 2, -1, now, now, now - 1), 2))
                    .contains("for a -1 ms lease");
        }

        @Test
        void a_renewal_stamped_before_the_acquisition_is_a_clock_step_back_not_corruption() {
            long now = clock.millis();
            Lease steppedBack = new Lease("a1", ME, 2, TTL, now, now - 60_000, now - 60_000 + TTL);
            assertThat(LeaseRules.corruption(steppedBack, 2)).isNull(); // decision 0600
        }

        @Test
        void the_token_is_judged_before_the_expiry() {
            Lease both = withExpiry(lease(ME, 9), clock.millis() + 10 * TTL);
            assertThat(LeaseRules.corruption(both, 5)).contains("never issued");
        }

        @Test
        void require_sane_refuses_a_corrupt_row_as_corrupt_lease_state_naming_the_problem() {
            Refusal r = Refused.by(() -> LeaseRules.requireSane(lease(OTHER, 8), 5));
            assertThat(r.category()).isEqualTo(CORRUPT_LEASE_STATE);
            assertThat(r.category().isFencing()).isTrue();
            assertThat(r.getMessage())
                    .startsWith("The lease row of actor a1 is corrupt (its token 8 was never issued by the counter"
                            + " (last issued 5))")
                    .contains("refusing to grant, renew, release or write under it until an operator repairs the"
                            + " ledger.");
            assertThat(r.resourceType()).isEqualTo("actor");
            assertThat(r.resourceId()).isEqualTo("a1");
            assertThat(r.actorId()).isEqualTo("a1");
            assertThat(r.currentToken()).isEqualTo(8L);
            assertThat(r.presentedToken()).isNull();
        }

        @Test
        void require_sane_lets_a_sane_row_through() {
            assertThatCode(() -> LeaseRules.requireSane(lease(OTHER, 5), 5)).doesNotThrowAnyException();
        }
    }

    @Nested
    class Taking {
        @Test
        void a_missing_row_is_free() {
            assertThatCode(() -> LeaseRules.requireFree("a1", null, clock.millis(), ME))
                    .doesNotThrowAnyException();
        }

        @Test
        void a_lease_expiring_exactly_now_is_free_to_take_over() {
            Lease l = lease(OTHER, 4);
            clock.set(l.expiresAt());
            assertThatCode(() -> LeaseRules.requireFree("a1", l, clock.millis(), ME))
                    .doesNotThrowAnyException();
        }

        @Test
        void a_lease_one_ms_before_its_expiry_is_held() {
            Lease l = lease(OTHER, 4);
            clock.set(l.expiresAt() - 1);
            Refusal r = Refused.by(() -> LeaseRules.requireFree("a1", l, clock.millis(), ME));
            assertThat(r.category()).isEqualTo(ACTOR_LEASE_HELD);
            assertThat(r.getMessage())
                    .isEqualTo("Actor a1 is hosted by proc_other with token 4 until " + at(l.expiresAt())
                            + "; wait for it to be released or to expire.");
            assertThat(r.currentToken()).isEqualTo(4L);
            assertThat(r.actorId()).isEqualTo("a1");
            assertThat(r.resourceType()).isEqualTo("actor");
        }

        @Test
        void this_process_own_live_lease_is_held_too_and_says_so() {
            Refusal r = Refused.by(() -> LeaseRules.requireFree("a1", lease(ME, 4), clock.millis(), ME));
            assertThat(r.category()).isEqualTo(ACTOR_LEASE_HELD);
            assertThat(r.getMessage()).startsWith("Actor a1 is hosted by this process itself with token 4 until ");
        }

        @Test
        void held_by_is_about_the_process_only() {
            assertThat(LeaseRules.heldBy(null, ME)).isFalse();
            assertThat(LeaseRules.heldBy(lease(ME, 1), ME)).isTrue();
            assertThat(LeaseRules.heldBy(lease(OTHER, 1), ME)).isFalse();
            Lease expiredOwn = lease(ME, 1);
            clock.advance(Duration.ofMillis(TTL));
            assertThat(LeaseRules.heldBy(expiredOwn, ME)).isTrue(); // renewed, not re-acquired, while the row is ours
        }

        @Test
        void the_takeover_note_names_the_old_holder_its_token_and_expiry() {
            Lease old = lease(OTHER, 4);
            assertThat(LeaseRules.takeoverNote(old, 7_000))
                    .isEqualTo("taken over from proc_other (token 4," + " expired at " + at(old.expiresAt())
                            + "); ttl 7000 ms");
        }
    }

    @Nested
    class WritingUnderTheLease {
        @Test
        void lost_with_no_row_says_no_process_holds_it() {
            Refusal r = LeaseRules.lost("a1", 7, null, "renew");
            assertThat(r.category()).isEqualTo(ACTOR_LEASE_LOST);
            assertThat(r.getMessage())
                    .isEqualTo("Cannot renew actor a1 with token 7: this process no longer holds"
                            + " that lease (no process holds it now); acquire it again.");
            assertThat(r.presentedToken()).isEqualTo(7L);
            assertThat(r.currentToken()).isNull();
        }

        @Test
        void lost_to_a_newer_holder_names_it_and_its_token() {
            Refusal r = LeaseRules.lost("a1", 7, lease(OTHER, 9), "write under");
            assertThat(r.category()).isEqualTo(ACTOR_LEASE_LOST);
            assertThat(r.getMessage())
                    .isEqualTo("Cannot write under actor a1 with token 7: this process no longer"
                            + " holds that lease (it is now held by proc_other with token 9); acquire it again.");
            assertThat(r.presentedToken()).isEqualTo(7L);
            assertThat(r.currentToken()).isEqualTo(9L);
            assertThat(r.category().isFencing()).isTrue();
        }

        @Test
        void only_the_holder_with_its_own_token_may_release() {
            assertThat(LeaseRules.mayRelease(lease(ME, 7), 7, ME)).isTrue();
            assertThat(LeaseRules.mayRelease(lease(ME, 7), 6, ME)).isFalse();
            assertThat(LeaseRules.mayRelease(lease(ME, 7), 8, ME)).isFalse();
            assertThat(LeaseRules.mayRelease(lease(OTHER, 7), 7, ME)).isFalse();
            assertThat(LeaseRules.mayRelease(null, 7, ME)).isFalse();
        }

        @Test
        void an_expired_lease_of_its_own_may_still_be_released() {
            Lease l = lease(ME, 7);
            clock.advance(Duration.ofDays(1));
            assertThat(LeaseRules.mayRelease(l, 7, ME)).isTrue();
        }

        @Test
        void a_stale_release_says_nothing_was_released() {
            Refusal gone = LeaseRules.lostRelease("a1", 7, null);
            assertThat(gone.category()).isEqualTo(ACTOR_LEASE_LOST);
            assertThat(gone.getMessage())
                    .isEqualTo("Release of actor a1 with token 7 was refused: no process holds"
                            + " the lease now (it was released or taken over and released); nothing was released.");
            assertThat(gone.currentToken()).isNull();
            Refusal newer = LeaseRules.lostRelease("a1", 7, lease(OTHER, 9));
            assertThat(newer.getMessage())
                    .isEqualTo("Release of actor a1 with token 7 was refused: the lease is now"
                            + " held by proc_other with token 9; nothing was released.");
            assertThat(newer.presentedToken()).isEqualTo(7L);
            assertThat(newer.currentToken()).isEqualTo(9L);
        }
    }

    @Nested
    class Beats {
        @Test
        void the_own_sane_row_with_the_token_is_no_refusal() {
            assertThat(LeaseRules.beatRefused("a1", 7, lease(ME, 7), ME, 7, false))
                    .isNull();
        }

        @Test
        void the_own_row_with_the_token_but_corrupt_is_corrupt_lease_state() {
            Refusal r = LeaseRules.beatRefused("a1", 7, lease(ME, 7), ME, 6, false);
            assertThat(r.category()).isEqualTo(CORRUPT_LEASE_STATE);
            assertThat(r.getMessage()).contains("its token 7 was never issued by the counter (last issued 6)");
        }

        @Test
        void a_row_this_process_released_itself_is_no_refusal() {
            assertThat(LeaseRules.beatRefused("a1", 7, null, ME, 7, true)).isNull();
        }

        @Test
        void a_row_gone_that_this_process_did_not_release_is_lost() {
            Refusal r = LeaseRules.beatRefused("a1", 7, null, ME, 7, false);
            assertThat(r.category()).isEqualTo(ACTOR_LEASE_LOST);
            assertThat(r.getMessage())
                    .startsWith("Cannot renew (heartbeat) actor a1 with token 7:")
                    .contains("no process holds it now");
        }

        @Test
        void a_row_taken_over_is_lost_even_after_an_own_release() {
            Refusal r = LeaseRules.beatRefused("a1", 7, lease(OTHER, 9), ME, 9, true);
            assertThat(r.category()).isEqualTo(ACTOR_LEASE_LOST);
            assertThat(r.getMessage()).contains("it is now held by proc_other with token 9");
        }

        @Test
        void the_own_row_with_another_token_is_lost() {
            Refusal r = LeaseRules.beatRefused("a1", 7, lease(ME, 8), ME, 8, false);
            assertThat(r.category()).isEqualTo(ACTOR_LEASE_LOST);
            assertThat(r.getMessage()).contains("it is now held by proc_me with token 8");
        }
    }

    // ---- properties ----

    /** Time alone decides a takeover: a lease is free exactly when its expiry is not after now. */
    @Property(tries = 300)
    void a_lease_is_free_exactly_when_its_expiry_is_not_after_now(
            @ForAll @LongRange(min = 0, max = 4_000_000_000_000L) long expiresAt,
            @ForAll @LongRange(min = -10_000, max = 10_000) long nowMinusExpiry) {
        Lease l = new Lease("a1", OTHER, 3, TTL, 0, expiresAt - TTL, expiresAt);
        long now = expiresAt + nowMinusExpiry;
        boolean refused;
        try {
            LeaseRules.requireFree("a1", l, now, ME);
            refused = false;
        } catch (Refusal r) {
            assertThat(r.category()).isEqualTo(ACTOR_LEASE_HELD);
            refused = true;
        }
        assertThat(refused).isEqualTo(expiresAt > now);
    }

    /** A heartbeat never makes a sane lease corrupt, never moves its expiry back, and never leaves it expired. */
    @Property(tries = 300)
    void a_beat_keeps_a_sane_lease_sane_and_never_shortens_it(
            @ForAll @LongRange(min = 1, max = 365L * 24 * 3_600_000) long ttlMs,
            @ForAll @LongRange(min = 0, max = 4_000_000_000_000L) long renewedAt,
            @ForAll @LongRange(min = 0, max = 365L * 24 * 3_600_000) long shorterBy,
            @ForAll @LongRange(min = -4_000_000_000L, max = 4_000_000_000L) long beatMinusRenewal) {
        long expiresAt = renewedAt + ttlMs - Math.min(shorterBy, ttlMs);
        Lease l = new Lease("a1", ME, 1, ttlMs, renewedAt, renewedAt, expiresAt, true);
        assertThat(LeaseRules.corruption(l, 1)).isNull();
        long beat = renewedAt + beatMinusRenewal;
        Lease kept = l.keptAliveAt(beat);
        assertThat(LeaseRules.corruption(kept, 1)).isNull();
        assertThat(kept.expiresAt()).isGreaterThanOrEqualTo(l.expiresAt()).isGreaterThanOrEqualTo(kept.renewedAt());
        assertThat(kept.renewedAt()).isGreaterThanOrEqualTo(l.renewedAt());
        assertThat(kept.isExpiredAt(beat)).isFalse();
        assertThat(kept.token()).isEqualTo(l.token());
    }

    /** Sanity is exactly: a token in 1..last issued, a positive TTL, an expiry at most one TTL after the renewal. */
    @Property(tries = 300)
    void corruption_is_exactly_the_documented_conditions(
            @ForAll @LongRange(min = -3, max = 20) long token,
            @ForAll @LongRange(min = 0, max = 20) long lastIssued,
            @ForAll @LongRange(min = -2, max = 10) long ttlMs,
            @ForAll @LongRange(min = -12, max = 12) long expiryMinusRenewal) {
        long renewedAt = SettableClock.START;
        Lease l = new Lease("a1", ME, token, ttlMs, renewedAt, renewedAt, renewedAt + expiryMinusRenewal);
        boolean sane = token >= 1 && token <= lastIssued && ttlMs >= 1 && expiryMinusRenewal <= ttlMs;
        assertThat(LeaseRules.corruption(l, lastIssued) == null).isEqualTo(sane);
    }
}
