package dev.sovereign.engine.reliability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The torture run of issue 9 (see docs/reliability.md). The short form runs in every build: three
 * workers for 30 s of chaos. The long form is the same test with system properties:
 * <pre>
 *   mvn -B -ntp -pl engine test -Dtest=TortureTest -Dsovereign.torture.seconds=600 -Dsovereign.torture.workers=6
 * </pre>
 * ({@code -Dsovereign.torture.seed=N} repeats a run's random choices). The database, every history
 * file, the worker logs and {@code report.md} stay in {@code engine/target/torture/}.
 */
class TortureTest {
    static final int SECONDS = Integer.getInteger("sovereign.torture.seconds", 30);
    static final int WORKERS = Integer.getInteger("sovereign.torture.workers", 3);

    static Path runDirectory(String name, long seed) {
        return Path.of(
                System.getProperty("basedir", "."),
                "target",
                "torture",
                name + "-" + seed + "-" + System.currentTimeMillis());
    }

    @Test
    void underPausesKillsClockJumpsAndABusyDatabaseNoTwoHoldersCommitAndNothingAcknowledgedIsLost() {
        long seed = Long.getLong("sovereign.torture.seed", System.nanoTime() % 1_000_000);
        TortureRun.Settings settings =
                TortureRun.Settings.of(runDirectory("torture", seed), WORKERS, Duration.ofSeconds(SECONDS), seed);
        TortureRun.Report report =
                assertTimeoutPreemptively(Duration.ofSeconds(SECONDS + 300), () -> TortureRun.run(settings));
        System.out.println(report.text());

        assertThat(report.result().violations())
                .as("violations (seed %d, run in %s)%n%s", seed, settings.dir(), report.text())
                .isEmpty();
        // the run exercised what it claims to
        assertThat(report.faults().unexpectedExits())
                .as("workers that died by themselves")
                .isZero();
        assertThat(report.faults().pauses()).isPositive();
        assertThat(report.faults().kills()).isPositive();
        assertThat(report.secondTickRecovered())
                .as("a second final tick recovers nothing")
                .isZero();
        // the run did work between the faults: a floor, not a speed (195 at load 13 with two builds beside it; a run
        // that did nothing but fail busy would have a handful)
        assertThat(report.ops().stream().filter(o -> o.outcome() == HistoryOp.Outcome.OK))
                .hasSizeGreaterThan(60);
        assertThat(report.ops().stream().filter(o -> o.op().equals("run") && o.outcome() == HistoryOp.Outcome.OK))
                .isNotEmpty();
        assertThat(report.ops().stream().filter(o -> o.op().equals("complete") && o.outcome() == HistoryOp.Outcome.OK))
                .isNotEmpty();
        assertThat(report.ledger().events())
                .anyMatch(e -> e.kind().equals("LEASE_TAKEN_OVER"))
                .anyMatch(e -> e.kind().equals("REJECTED"));
    }
}
