package dev.sovereign.engine.rules;

import static dev.sovereign.engine.base.RefusalCategory.INVALID_ARGUMENT;
import static dev.sovereign.engine.base.RefusalCategory.UNKNOWN_WORKSPACE_POLICY;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import dev.sovereign.engine.base.Refusal;
import dev.sovereign.engine.testing.Refused;
import java.time.Duration;
import java.util.function.Function;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.LongRange;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The limits on what a caller may pass (decision 0602): one place, asked by the engine and the CLI alike. */
class ArgumentsTest {
    static final Duration YEAR = Duration.ofDays(365);
    static final long YEAR_MS = 365L * 24 * 3_600_000;

    /** The three TTLs a caller passes: the same limits, each sentence naming its own. */
    enum Ttl {
        LEASE("lease", Arguments::leaseTtlMillis),
        CLAIM("claim", Arguments::claimTtlMillis),
        RUN("run", Arguments::runTtlMillis);

        final String what;
        final Function<Duration, Long> rule;

        Ttl(String what, Function<Duration, Long> rule) {
            this.what = what;
            this.rule = rule;
        }

        long apply(Duration d) {
            return rule.apply(d);
        }
    }

    @Nested
    class Ttls {
        @ParameterizedTest
        @EnumSource(Ttl.class)
        void one_ms_is_the_shortest_ttl(Ttl ttl) {
            assertThat(ttl.apply(Duration.ofMillis(1))).isEqualTo(1L);
        }

        @ParameterizedTest
        @EnumSource(Ttl.class)
        void exactly_365_days_is_the_longest_ttl(Ttl ttl) {
            assertThat(ttl.apply(YEAR)).isEqualTo(YEAR_MS);
        }

        @ParameterizedTest
        @EnumSource(Ttl.class)
        void one_ms_over_365_days_is_refused_saying_the_limit(Ttl ttl) {
            Refusal r = Refused.by(() -> ttl.apply(YEAR.plusMillis(1)));
            assertThat(r.category()).isEqualTo(INVALID_ARGUMENT);
            assertThat(r.category().isBadInput()).isTrue();
            assertThat(r.getMessage())
                    .isEqualTo("A " + ttl.what + " TTL must be at most 365 days, got " + (YEAR_MS + 1) + "ms.");
        }

        @ParameterizedTest
        @EnumSource(Ttl.class)
        void zero_is_refused_saying_the_least(Ttl ttl) {
            Refusal r = Refused.by(() -> ttl.apply(Duration.ZERO));
            assertThat(r.category()).isEqualTo(INVALID_ARGUMENT);
            assertThat(r.getMessage())
                    .isEqualTo("A " + ttl.what + " TTL must be a positive duration of at least 1 ms," + " got 0ms.");
        }

        @ParameterizedTest
        @EnumSource(Ttl.class)
        void negative_sub_millisecond_and_missing_ttls_are_refused(Ttl ttl) {
            assertThat(Refused.by(() -> ttl.apply(Duration.ofSeconds(-5))).getMessage())
                    .endsWith("got -5s.");
            assertThat(Refused.by(() -> ttl.apply(Duration.ofNanos(999_999))).getMessage())
                    .endsWith("got 999999ns.");
            assertThat(Refused.by(() -> ttl.apply(null)).getMessage()).endsWith("got nothing.");
        }

        @Test
        void the_limits_are_the_published_constants() {
            assertThat(Arguments.SHORTEST).isEqualTo(Duration.ofMillis(1));
            assertThat(Arguments.LONGEST).isEqualTo(YEAR);
        }

        @Test
        void a_ttl_beyond_what_milliseconds_can_say_is_refused_with_a_sentence_not_an_overflow() {
            Refusal r = Refused.by(() -> Arguments.leaseTtlMillis(Duration.ofSeconds(Long.MAX_VALUE)));
            assertThat(r.getMessage()).startsWith("A lease TTL must be at most 365 days, got PT");
        }
    }

    @Nested
    class OtherDurations {
        @Test
        void the_sentence_names_what_was_wrong_with_its_article() {
            assertThat(Refused.by(() -> Arguments.durationMillis(Duration.ZERO, "idle wait"))
                            .getMessage())
                    .startsWith("An idle wait must be a positive duration");
            assertThat(Refused.by(() -> Arguments.durationMillis(YEAR.plusHours(1), "busy timeout"))
                            .getMessage())
                    .isEqualTo("A busy timeout must be at most 365 days, got 8761h.");
        }

        @Test
        void an_offset_may_be_zero_or_365_days_either_way_and_no_more() {
            assertThat(Arguments.offsetMillis(Duration.ZERO, "clock offset")).isZero();
            assertThat(Arguments.offsetMillis(YEAR, "clock offset")).isEqualTo(YEAR_MS);
            assertThat(Arguments.offsetMillis(YEAR.negated(), "clock offset")).isEqualTo(-YEAR_MS);
            Refusal ahead = Refused.by(() -> Arguments.offsetMillis(YEAR.plusMillis(1), "clock offset"));
            assertThat(ahead.category()).isEqualTo(INVALID_ARGUMENT);
            assertThat(ahead.getMessage())
                    .isEqualTo("A clock offset must be at most 365 days either way, got " + (YEAR_MS + 1) + "ms.");
            assertThat(Refused.by(() -> Arguments.offsetMillis(YEAR.negated().minusMillis(1), "clock offset"))
                            .getMessage())
                    .contains("got -" + (YEAR_MS + 1));
            assertThat(Refused.by(() -> Arguments.offsetMillis(null, "clock offset"))
                            .getMessage())
                    .endsWith("got nothing.");
        }
    }

    @Nested
    class RunTtlAndTheBeat {
        final Duration beat = Duration.ofSeconds(1);

        @Test
        void exactly_two_heartbeat_intervals_is_enough() {
            assertThat(Arguments.RUN_TTL_MIN_BEATS).isEqualTo(2);
            assertThat(Arguments.runTtlMillis(Duration.ofSeconds(2), beat)).isEqualTo(2_000L);
        }

        @Test
        void one_ms_under_two_intervals_is_refused_saying_why_and_what_to_do() {
            Refusal r = Refused.by(() -> Arguments.runTtlMillis(Duration.ofMillis(1_999), beat));
            assertThat(r.category()).isEqualTo(INVALID_ARGUMENT);
            assertThat(r.getMessage())
                    .isEqualTo("A run TTL must be at least 2 heartbeat intervals (this engine"
                            + " beats every 1s), got 1999ms: the attempt would expire between two beats and a healthy run"
                            + " would be recovered as worker_lost; give a longer TTL or beat more often.");
        }

        @Test
        void without_a_background_heartbeat_only_the_limits_apply() {
            assertThat(Arguments.runTtlMillis(Duration.ofMillis(1), null)).isEqualTo(1L);
        }

        @Test
        void the_limits_are_judged_before_the_beat() {
            assertThat(Refused.by(() -> Arguments.runTtlMillis(Duration.ZERO, beat))
                            .getMessage())
                    .startsWith("A run TTL must be a positive duration of at least 1 ms");
            assertThat(Refused.by(() -> Arguments.runTtlMillis(YEAR.plusMillis(1), Duration.ofDays(365)))
                            .getMessage())
                    .startsWith("A run TTL must be at most 365 days");
        }
    }

    @Test
    void durations_are_shown_as_a_person_types_them() {
        assertThat(Arguments.shown(Duration.ofHours(8761))).isEqualTo("8761h");
        assertThat(Arguments.shown(Duration.ofMinutes(3))).isEqualTo("3m");
        assertThat(Arguments.shown(Duration.ofSeconds(90))).isEqualTo("90s");
        assertThat(Arguments.shown(Duration.ofMillis(1_500))).isEqualTo("1500ms");
        assertThat(Arguments.shown(Duration.ZERO)).isEqualTo("0ms");
        assertThat(Arguments.shown(Duration.ofSeconds(-5))).isEqualTo("-5s");
        assertThat(Arguments.shown(Duration.ofNanos(500))).isEqualTo("500ns");
        assertThat(Arguments.shown((Duration) null)).isEqualTo("nothing");
        assertThat(Arguments.shown(Duration.ofSeconds(Long.MIN_VALUE))).startsWith("PT-");
    }

    @Nested
    class IdsAndText {
        @Test
        void an_id_is_1_to_200_printable_characters() {
            assertThatCode(() -> Arguments.requireValidId("a", "actor id")).doesNotThrowAnyException();
            assertThatCode(() -> Arguments.requireValidId("x".repeat(200), "actor id"))
                    .doesNotThrowAnyException();
            Refusal r = Refused.by(() -> Arguments.requireValidId("x".repeat(201), "actor id"));
            assertThat(r.category()).isEqualTo(INVALID_ARGUMENT);
            assertThat(r.getMessage()).startsWith("An actor id must be 1 to 200 printable characters, got 'xxx");
        }

        @Test
        void empty_blank_missing_and_control_characters_are_refused_and_shown_safely() {
            for (String bad : new String[] {"", "   ", null, "a\nb", "a\u0000"}) {
                assertThat(Arguments.isValidId(bad)).as("%s", bad).isFalse();
            }
            assertThat(Refused.by(() -> Arguments.requireValidId("a\nb", "actor id"))
                            .getMessage())
                    .isEqualTo("An actor id must be 1 to 200 printable characters, got 'a?b'.");
            assertThat(Refused.by(() -> Arguments.requireValidId(null, "actor id"))
                            .getMessage())
                    .endsWith("got nothing.");
        }

        @Test
        void a_message_sender_or_recipient_is_1_to_200_printable_characters() {
            assertThatCode(() -> Arguments.requireMessageText("y".repeat(200), "recipient"))
                    .doesNotThrowAnyException();
            Refusal r = Refused.by(() -> Arguments.requireMessageText("y".repeat(201), "sender"));
            assertThat(r.category()).isEqualTo(INVALID_ARGUMENT);
            assertThat(r.getMessage()).startsWith("A message sender must be 1 to 200 printable characters, got 'y");
            assertThat(Refused.by(() -> Arguments.requireMessageText(" ", "recipient"))
                            .getMessage())
                    .isEqualTo("A message recipient must be 1 to 200 printable characters, got ' '.");
            assertThat(Refused.by(() -> Arguments.requireMessageText("a\tb", "sender"))
                            .getMessage())
                    .endsWith("got 'a?b'.");
        }

        @Test
        void a_subject_may_be_empty_not_missing() {
            assertThatCode(() -> Arguments.requireSubject("")).doesNotThrowAnyException();
            Refusal r = Refused.by(() -> Arguments.requireSubject(null));
            assertThat(r.category()).isEqualTo(INVALID_ARGUMENT);
            assertThat(r.getMessage()).isEqualTo("A message needs a subject (it may be empty, not missing).");
        }

        @Test
        void max_retries_is_zero_or_more() {
            assertThatCode(() -> Arguments.requireMaxRetries(0)).doesNotThrowAnyException();
            Refusal r = Refused.by(() -> Arguments.requireMaxRetries(-1));
            assertThat(r.category()).isEqualTo(INVALID_ARGUMENT);
            assertThat(r.getMessage()).isEqualTo("Max retries must be zero or more, got -1.");
        }

        @Test
        void an_attempt_ttl_is_positive() {
            assertThatCode(() -> Arguments.requireAttemptTtl(1)).doesNotThrowAnyException();
            for (long bad : new long[] {0, -1}) {
                Refusal r = Refused.by(() -> Arguments.requireAttemptTtl(bad));
                assertThat(r.category()).isEqualTo(INVALID_ARGUMENT);
                assertThat(r.getMessage()).isEqualTo("An attempt TTL must be positive, got " + bad + " ms.");
            }
        }

        @Test
        void the_workspace_policies_are_temporary_and_persistent() {
            assertThat(Arguments.WORKSPACE_POLICIES)
                    .containsExactlyInAnyOrder("temporary", "persistent")
                    .contains(Arguments.DEFAULT_WORKSPACE_POLICY);
            assertThatCode(() -> Arguments.requirePolicy("persistent")).doesNotThrowAnyException();
            Refusal r = Refused.by(() -> Arguments.requirePolicy("tmp"));
            assertThat(r.category()).isEqualTo(UNKNOWN_WORKSPACE_POLICY);
            assertThat(r.category().isBadInput()).isTrue();
            assertThat(r.getMessage()).isEqualTo("Unknown workspace policy 'tmp'; use 'temporary' or 'persistent'.");
            Refusal none = Refused.by(() -> Arguments.requirePolicy(null));
            assertThat(none.category()).isEqualTo(UNKNOWN_WORKSPACE_POLICY);
            assertThat(none.getMessage())
                    .isEqualTo("Unknown workspace policy nothing; use 'temporary' or" + " 'persistent'.");
            assertThat(Refused.by(() -> Arguments.requirePolicy("tmp\n")).getMessage())
                    .startsWith("Unknown workspace policy 'tmp?';");
        }
    }

    /** Within the limits a duration comes back as its milliseconds; outside them it is refused, never clipped. */
    @Property(tries = 300)
    void a_duration_is_its_milliseconds_inside_the_limits_and_refused_outside(
            @ForAll @LongRange(min = -2 * YEAR_MS, max = 2 * YEAR_MS) long ms) {
        Duration d = Duration.ofMillis(ms);
        if (ms >= 1 && ms <= YEAR_MS) {
            assertThat(Arguments.leaseTtlMillis(d)).isEqualTo(ms);
            assertThat(Arguments.durationMillis(d, "x")).isEqualTo(ms);
        } else {
            assertThat(Refused.by(() -> Arguments.leaseTtlMillis(d)).category()).isEqualTo(INVALID_ARGUMENT);
        }
        if (Math.abs(ms) <= YEAR_MS) {
            assertThat(Arguments.offsetMillis(d, "x")).isEqualTo(ms);
        } else {
            assertThat(Refused.by(() -> Arguments.offsetMillis(d, "x")).category())
                    .isEqualTo(INVALID_ARGUMENT);
        }
    }

    /** A run TTL passes exactly when it is within the limits and spans two beats. */
    @Property(tries = 300)
    void a_run_ttl_passes_exactly_when_it_spans_two_beats(
            @ForAll @LongRange(min = 1, max = 100_000) long ttlMs,
            @ForAll @LongRange(min = 1, max = 60_000) long beatMs) {
        boolean ok;
        try {
            Arguments.runTtlMillis(Duration.ofMillis(ttlMs), Duration.ofMillis(beatMs));
            ok = true;
        } catch (Refusal r) {
            assertThat(r.getMessage()).contains("at least 2 heartbeat intervals");
            ok = false;
        }
        assertThat(ok).isEqualTo(ttlMs >= 2 * beatMs);
    }
}
