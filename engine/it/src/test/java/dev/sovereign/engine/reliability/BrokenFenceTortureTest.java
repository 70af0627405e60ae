package dev.sovereign.engine.reliability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.sovereign.engine.reliability.HistoryChecker.Rule;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The checker must be able to fail on a real run, not only on hand-made histories: the same torture,
 * but every worker is started with {@code -Dsovereign.fault.ignoreTerminalFence=true}, so a holder
 * whose attempt was superseded, stolen or whose lease was taken over still commits its terminal write.
 * The checker must report that as writes against token order.
 */
class BrokenFenceTortureTest {
    @Test
    void withTheTerminalFenceSwitchedOffTheCheckerFindsAStaleHolderCommitting() {
        long seed = Long.getLong("sovereign.torture.seed", System.nanoTime() % 1_000_000);
        TortureRun.Settings settings = TortureRun.Settings.of(
                        TortureTest.runDirectory("broken-fence", seed), 3, Duration.ofSeconds(12), seed)
                .withBrokenFence(TortureRun.RUN_HEAVY);
        TortureRun.Report report = assertTimeoutPreemptively(Duration.ofSeconds(300), () -> TortureRun.run(settings));
        System.out.println(report.text());

        HistoryChecker.Result result = report.result();
        assertThat(result.count(Rule.ATTEMPT_ORDER) + result.count(Rule.ACTOR_ORDER))
                .as(
                        "stale terminal writes found by the checker (seed %d, run in %s)%n%s",
                        seed, settings.dir(), report.text())
                .isPositive();
    }
}
