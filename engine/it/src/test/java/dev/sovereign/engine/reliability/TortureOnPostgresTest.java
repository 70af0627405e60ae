package dev.sovereign.engine.reliability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The torture run on PostgreSQL (issue 15, decision 0908): the same workers, histories and checker as
 * {@link TortureTest}, on a server started for the run, with the server's nemeses beside SIGSTOP/SIGKILL, clock
 * jumps and the rogue lock: backend kills ({@code pg_terminate_backend} of a worker's connection inside a
 * transaction and between two) and server restarts (fast and immediate) while the workers run. The short form
 * runs in every build (3 workers, 25 s of chaos); the long form is the same test with properties:
 * <pre>
 *   mvn -B -ntp -pl engine/it -am test -Dtest=TortureOnPostgresTest -Dsurefire.failIfNoSpecifiedTests=false \
 *       -Dsovereign.torture.seconds=900 -Dsovereign.torture.workers=6
 * </pre>
 * {@code -Dsovereign.torture.brokenFence=true} starts the workers with the lab sandbox's fault switch (the
 * terminal fence ignored), which the checker must then report: how this test was seen red.
 */
class TortureOnPostgresTest {
    static final int SECONDS = Integer.getInteger("sovereign.torture.seconds", 25);
    static final int WORKERS = Integer.getInteger("sovereign.torture.workers", 3);

    @Test
    void underBackendKillsServerRestartsPausesAndKillsNoTwoHoldersCommitAndNothingAcknowledgedIsLost() {
        long seed = Long.getLong("sovereign.torture.seed", System.nanoTime() % 1_000_000);
        TortureRun.Settings settings = TortureRun.Settings.of(
                        TortureTest.runDirectory("torture-pg", seed), WORKERS, Duration.ofSeconds(SECONDS), seed)
                .onPostgres();
        if (Boolean.getBoolean("sovereign.torture.brokenFence")) {
            settings = settings.withBrokenFence(TortureRun.RUN_HEAVY);
        }
        TortureRun.Settings run = settings;
        TortureRun.Report report =
                assertTimeoutPreemptively(Duration.ofSeconds(SECONDS + 300), () -> TortureRun.run(run));
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
        assertThat(report.faults().backendKills()).as("backend kills").isPositive();
        assertThat(report.faults().serverRestarts()).as("server restarts").isPositive();
        // a compromised worker host typing SQL during the run (issue 26): every statement that found a row refused
        assertThat(report.faults().handSqlAccepted())
                .as("hand-written worker-login SQL the database accepted")
                .isEmpty();
        assertThat(report.faults().handSqlRefused())
                .as("hand-written worker-login SQL refused")
                .isPositive();
        assertThat(report.ops().stream()
                        .filter(o -> o.outcome() == HistoryOp.Outcome.INFO && !"busy".equals(o.result("reason"))))
                .as("calls that lost their connection")
                .isNotEmpty();
        assertThat(report.secondTickRecovered())
                .as("a second final tick recovers nothing")
                .isZero();
        // the run did work between the faults (a floor, not a speed: 164-200 at load 7-14 with another run beside it,
        // 94 at load 13 with two; a run that did nothing but fail would have a handful)
        assertThat(report.ops().stream().filter(o -> o.outcome() == HistoryOp.Outcome.OK))
                .hasSizeGreaterThan(40);
        assertThat(report.ops().stream().filter(o -> o.op().equals("run") && o.outcome() == HistoryOp.Outcome.OK))
                .isNotEmpty();
        assertThat(report.ops().stream().filter(o -> o.op().equals("complete") && o.outcome() == HistoryOp.Outcome.OK))
                .isNotEmpty();
        assertThat(report.ledger().events())
                .anyMatch(e -> e.kind().equals("LEASE_TAKEN_OVER"))
                .anyMatch(e -> e.kind().equals("REJECTED"));
    }
}
