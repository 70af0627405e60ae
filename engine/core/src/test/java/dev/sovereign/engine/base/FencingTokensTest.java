package dev.sovereign.engine.base;

import static dev.sovereign.engine.base.FencingTokens.EPOCH_SPAN;
import static dev.sovereign.engine.base.FencingTokens.MAX_EPOCH;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.LongRange;
import org.junit.jupiter.api.Test;

/** The shape of a fencing token (decision 0603): {@code epoch * 2^40 + n}, {@code 1 <= n < 2^40}. */
class FencingTokensTest {
    @Test
    void epoch_zero_starts_at_zero_and_issues_1_2_3() {
        assertThat(FencingTokens.startOf(0)).isZero();
        assertThat(FencingTokens.firstTokenOf(0)).isEqualTo(1L);
        assertThat(FencingTokens.epochOf(0)).isZero();
        assertThat(FencingTokens.epochOf(1)).isZero();
        assertThat(FencingTokens.issuedInEpoch(0)).isZero();
        assertThat(FencingTokens.issuedInEpoch(1)).isEqualTo(1L);
    }

    @Test
    void the_last_token_of_an_epoch_is_one_below_the_next_epoch_s_start() {
        long lastOfEpoch0 = EPOCH_SPAN - 1;
        assertThat(FencingTokens.epochOf(lastOfEpoch0)).isZero();
        assertThat(FencingTokens.issuedInEpoch(lastOfEpoch0)).isEqualTo(EPOCH_SPAN - 1);
        assertThat(FencingTokens.startOf(1)).isEqualTo(EPOCH_SPAN).isEqualTo(1L << 40);
        assertThat(FencingTokens.epochOf(EPOCH_SPAN)).isEqualTo(1L);
        assertThat(FencingTokens.issuedInEpoch(EPOCH_SPAN)).isZero();
        assertThat(FencingTokens.firstTokenOf(1)).isEqualTo(EPOCH_SPAN + 1);
    }

    @Test
    void the_last_epoch_ends_at_the_largest_long_so_every_token_is_positive() {
        assertThat(MAX_EPOCH).isEqualTo((1L << 23) - 1);
        assertThat(FencingTokens.startOf(MAX_EPOCH) + EPOCH_SPAN - 1).isEqualTo(Long.MAX_VALUE);
        assertThat(FencingTokens.epochOf(Long.MAX_VALUE)).isEqualTo(MAX_EPOCH);
        assertThat(FencingTokens.firstTokenOf(MAX_EPOCH)).isPositive();
    }

    @Test
    void there_is_no_epoch_before_zero_or_after_the_last_and_no_negative_token() {
        assertThatThrownBy(() -> FencingTokens.startOf(-1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("no epoch -1 (0.." + MAX_EPOCH + ")");
        assertThatThrownBy(() -> FencingTokens.startOf(MAX_EPOCH + 1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> FencingTokens.epochOf(-1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("never negative: -1");
        assertThatThrownBy(() -> FencingTokens.epochOf(Long.MIN_VALUE)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void a_token_of_epoch_zero_is_shown_bare_and_a_later_one_with_its_epoch_and_number() {
        assertThat(FencingTokens.describe(12)).isEqualTo("12");
        assertThat(FencingTokens.describe(EPOCH_SPAN - 1)).isEqualTo(Long.toString(EPOCH_SPAN - 1));
        long t = FencingTokens.startOf(3) + 12;
        assertThat(FencingTokens.describe(t)).isEqualTo(t + " (epoch 3, #12)");
    }

    @Provide
    Arbitrary<Long> epochs() {
        return Arbitraries.longs().between(0, MAX_EPOCH).edgeCases(c -> c.includeOnly(0L, 1L, MAX_EPOCH));
    }

    @Provide
    Arbitrary<Long> numbers() {
        return Arbitraries.longs().between(1, EPOCH_SPAN - 1).edgeCases(c -> c.includeOnly(1L, EPOCH_SPAN - 1));
    }

    /** A token splits into its epoch and its number and is put back together from them. */
    @Property(tries = 500)
    void a_token_round_trips_through_its_epoch_and_number(@ForAll("epochs") long epoch, @ForAll("numbers") long n) {
        long token = FencingTokens.startOf(epoch) + n;
        assertThat(token).isPositive();
        assertThat(FencingTokens.epochOf(token)).isEqualTo(epoch);
        assertThat(FencingTokens.issuedInEpoch(token)).isEqualTo(n);
        assertThat(FencingTokens.startOf(FencingTokens.epochOf(token)) + FencingTokens.issuedInEpoch(token))
                .isEqualTo(token);
        assertThat(token).isGreaterThanOrEqualTo(FencingTokens.firstTokenOf(epoch));
    }

    /** Every token an epoch can issue is below the next epoch's first: a jump forward passes all of them. */
    @Property(tries = 500)
    void every_token_of_an_epoch_is_below_every_token_of_a_later_one(
            @ForAll("epochs") long epoch,
            @ForAll("numbers") long n,
            @ForAll @LongRange(min = 1, max = 1000) long ahead) {
        long later = Math.min(MAX_EPOCH, epoch + ahead);
        long token = FencingTokens.startOf(epoch) + n;
        if (later > epoch) {
            assertThat(token).isLessThan(FencingTokens.startOf(later)).isLessThan(FencingTokens.firstTokenOf(later));
        }
    }

    /** The epoch never goes down as the counter goes up. */
    @Property(tries = 500)
    void the_epoch_is_monotone_in_the_token(
            @ForAll @LongRange(min = 0, max = Long.MAX_VALUE) long a,
            @ForAll @LongRange(min = 0, max = Long.MAX_VALUE) long b) {
        long lo = Math.min(a, b);
        long hi = Math.max(a, b);
        assertThat(FencingTokens.epochOf(lo)).isLessThanOrEqualTo(FencingTokens.epochOf(hi));
    }
}
