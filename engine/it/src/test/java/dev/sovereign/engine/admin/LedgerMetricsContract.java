package dev.sovereign.engine.admin;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.Ledgers;
import dev.sovereign.engine.lease.Lease;
import dev.sovereign.engine.run.Assignment;
import dev.sovereign.engine.testing.Contract;
import dev.sovereign.engine.testing.Port;
import dev.sovereign.engine.testing.SettableClock;
import dev.sovereign.engine.testing.TempDatabase;
import dev.sovereign.engine.testing.TestBackend;
import java.time.Duration;
import java.time.ZoneOffset;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code Engine.metrics()} on every backend (decision 0319): the numbers follow the ledger's own rules — a lease
 * kept alive by its holder's beats is live past its own expiry, one whose holder stopped beating is expired — and
 * the journal's, the processes' and the tables' counts are what happened.
 */
@Contract
abstract class LedgerMetricsContract {
    /** The backend this class's ledgers are on: each backend's module has its subclass (decision 0015). */
    protected abstract TestBackend backend();

    @RegisterExtension
    final TempDatabase temp = new TempDatabase(this::backend);

    private final SettableClock clock = new SettableClock();

    @Test
    void liveAndExpiredFollowTheHoldersBeatsAndTheCountsAreWhatHappened() {
        Engine a = temp.open(clock);
        Engine b = temp.open(clock);
        a.actors().add("x");
        a.actors().add("y");
        long start = clock.millis();
        a.leases().acquire("x", Duration.ofSeconds(10));
        b.leases().acquire("y", Duration.ofSeconds(10));
        clock.advance(Duration.ofSeconds(8));
        a.heartbeatNow(); // x now lives until +18 s; y, whose holder did not beat, until +10 s
        clock.advance(Duration.ofSeconds(5));

        LedgerMetrics m = a.metrics();
        assertThat(m.readAt()).isEqualTo(clock.millis());
        assertThat(m.leasesLive()).isEqualTo(1);
        assertThat(m.leasesExpired()).isEqualTo(1);
        assertThat(m.grants()).isEqualTo(2);
        assertThat(m.takeovers()).isZero();
        assertThat(m.refusalsByCategory()).isEmpty();
        assertThat(m.rowsByTable()).containsEntry("actors", 2L).containsEntry("actor_leases", 2L);
        assertThat(m.processesLive() + m.processesStale()).isEqualTo(2);
        assertThat(m.processesWithoutHeartbeat()).isZero();
        assertThat(m.processesStopped()).isZero();
        assertThat(m.sizeBytes()).isPositive();
        assertThat(m.oldestEventAt()).isEqualTo(start);
        assertThat(m.eventsLastDay()).isEqualTo(m.journalRows());

        a.leases().acquire("y", Duration.ofSeconds(10)); // a takeover
        assertThat(a.leases().tryAcquire("x", Duration.ofSeconds(1))).isEmpty(); // its own live lease: refused
        b.close();
        clock.advance(Duration.ofDays(2));
        LedgerMetrics later = a.metrics();
        assertThat(later.grants()).isEqualTo(3);
        assertThat(later.takeovers()).isEqualTo(1);
        // the refused try, and b's release on close of the lease a took over: refused as stale
        assertThat(later.refusalsByCategory())
                .containsExactly(Map.entry("actor_lease_held", 1L), Map.entry("actor_lease_lost", 1L));
        assertThat(later.processesStopped()).isEqualTo(1);
        assertThat(later.leasesLive()).isEqualTo(0); // nobody beat for two days
        assertThat(later.eventsLastDay()).isZero();
        assertThat(later.runsByState()).containsOnlyKeys("CREATED", "RUNNING", "COMPLETED", "BLOCKED", "FAILED");
        assertThat(later.workerLost()).isZero();
    }

    /**
     * A run recovered as worker-lost counts as lost and as needing an operator, the same number the console's reader
     * counts; acknowledged, it counts as neither.
     */
    @Test
    void aRecoveredRunCountsAsNeedingAnOperatorAsTheConsoleCountsIt() {
        Engine a = temp.open(clock);
        a.actors().add("x");
        Assignment run = a.runs().assign("x", "scripted");
        Lease lease = a.leases().acquire("x", Duration.ofSeconds(10));
        Port.runs(a).startAttempt(run.id(), lease.token(), 2_000);
        clock.advance(Duration.ofSeconds(30));
        assertThat(a.supervisor().tick().recovered()).hasSize(1);

        LedgerMetrics m = a.metrics();
        assertThat(m.workerLost()).isEqualTo(1);
        assertThat(m.runsNeedingOperator()).isEqualTo(1);
        assertThat(m.runsByState()).containsEntry("FAILED", 1L);
        try (AdminReader reader =
                Ledgers.openReader(temp.location(), temp.dir().resolve("sovereign.data"), clock, ZoneOffset.UTC)) {
            assertThat(reader.snapshot().counts().needsOperator()).isEqualTo(m.runsNeedingOperator());
        }

        a.runs().acknowledge(run.id());
        assertThat(a.metrics().runsNeedingOperator()).isZero();
        assertThat(a.metrics().workerLost()).isZero();
    }

    /**
     * The console reads the ledger's metrics through its own reader (issue 29 item 4): the same statements as the
     * engine's, so the console and {@code sovereign status} show one number for one fact — the size on disk, the rows
     * per table, the oldest retained event and the last day's growth, and every other count.
     */
    @Test
    void theOperatorsReaderReadsTheSameMetricsAsTheEngine() {
        Engine a = temp.open(clock);
        a.actors().add("x");
        a.actors().add("y");
        a.leases().acquire("x", Duration.ofSeconds(10));
        assertThat(a.leases().tryAcquire("x", Duration.ofSeconds(1))).isEmpty();
        clock.advance(Duration.ofHours(25)); // the first rows fall out of the last day
        a.leases().acquire("y", Duration.ofSeconds(10));
        a.runs().assign("x", "scripted");

        LedgerMetrics engine = a.metrics();
        try (AdminReader reader =
                Ledgers.openReader(temp.location(), temp.dir().resolve("sovereign.data"), clock, ZoneOffset.UTC)) {
            LedgerMetrics console = reader.metrics();
            assertThat(console.readAt()).isEqualTo(engine.readAt());
            assertThat(console.sizeBytes()).isPositive().isEqualTo(engine.sizeBytes());
            assertThat(console.rowsByTable()).isEqualTo(engine.rowsByTable());
            assertThat(console.oldestEventAt()).isPositive().isEqualTo(engine.oldestEventAt());
            assertThat(console.eventsLastDay())
                    .isLessThan(console.journalRows())
                    .isEqualTo(engine.eventsLastDay());
            assertThat(console).isEqualTo(engine);
        }
    }
}
