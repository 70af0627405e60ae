package dev.sovereign.engine.internal.run;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sovereign.engine.base.CommandAllowList;
import dev.sovereign.engine.base.Refusal;
import dev.sovereign.engine.rules.Arguments;
import dev.sovereign.engine.testing.Refused;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A run's TTL is judged by the rule book's rule and worded by its sentence, nowhere else (decision 0008): the runner
 * once re-implemented the limit with a sentence of its own ("A run TTL must be a duration from 1 ms to 365 days"). The
 * runner here has no ledger at all, so a TTL that got past the rule would fail on the missing store, not be refused;
 * and a second check with its own words, ahead of the rule book's, would change the sentence.
 */
class AssignmentRunnerTtlTest {
    static final Duration BEAT = Duration.ofSeconds(1);

    /** A runner with nothing below it: any call that reaches the ledger fails with a NullPointerException. */
    static AssignmentRunner withoutALedger(Duration defaultTtl) {
        return new AssignmentRunner(null, null, null, null, null, defaultTtl, BEAT, CommandAllowList.none());
    }

    static Refusal ruleBook(Duration ttl) {
        return Refused.by(() -> Arguments.runTtlMillis(ttl, BEAT));
    }

    @Test
    void a_refused_run_ttl_is_the_rule_book_s_refusal_word_for_word() {
        List<Duration> refused = Arrays.asList(
                Duration.ofDays(365).plusMillis(1),
                Duration.ZERO,
                Duration.ofMillis(-1),
                Duration.ofNanos(1),
                BEAT.multipliedBy(2).minusMillis(1),
                null);
        AssignmentRunner runner = withoutALedger(Duration.ofMinutes(1));
        for (Duration ttl : refused) {
            Refusal byRunner = Refused.by(() -> runner.runAssignment("as1", ttl));
            Refusal byRules = ruleBook(ttl);
            assertThat(byRunner.category()).as("%s", ttl).isEqualTo(byRules.category());
            assertThat(byRunner.getMessage()).as("%s", ttl).isEqualTo(byRules.getMessage());
        }
    }

    @Test
    void the_engine_s_default_ttl_is_judged_by_the_same_rule() {
        Duration tooLong = Duration.ofDays(366);
        Refusal byRunner = Refused.by(() -> withoutALedger(tooLong).runAssignment("as1"));
        assertThat(byRunner.getMessage())
                .isEqualTo(ruleBook(tooLong).getMessage())
                .isEqualTo("A run TTL must be at most 365 days, got 8784h.");
    }
}
