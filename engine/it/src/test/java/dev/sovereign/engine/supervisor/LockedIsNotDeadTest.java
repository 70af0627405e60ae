package dev.sovereign.engine.supervisor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.base.Refusal;
import dev.sovereign.engine.base.RefusalCategory;
import dev.sovereign.engine.base.StorageException;
import dev.sovereign.engine.lease.Lease;
import dev.sovereign.engine.provider.Outcome;
import dev.sovereign.engine.run.Assignment;
import dev.sovereign.engine.run.AssignmentState;
import dev.sovereign.engine.run.Attempt;
import dev.sovereign.engine.run.Receipt;
import dev.sovereign.engine.spi.RunStore;
import dev.sovereign.engine.testing.Port;
import dev.sovereign.engine.testing.SettableClock;
import dev.sovereign.engine.testing.TempDatabase;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Issue 13, suspected (b), proven: a write lock held (by another connection) longer than every TTL makes a
 * live worker look dead, and the next supervisor tick recovers its attempt as {@code worker_lost}. This is
 * a liveness cost only: the worker can no longer commit, and its refused writes are journalled. Documented
 * in docs/what-happens-when-a-process-dies.md ("Locked is not dead").
 */
class LockedIsNotDeadTest {
    @RegisterExtension
    final TempDatabase temp = new TempDatabase();

    private final SettableClock clock = new SettableClock();

    @Test
    void aLockLongerThanTheTtlGetsALiveWorkersAttemptRecoveredButNeverLetsItCommit() throws Exception {
        Engine worker =
                temp.open(temp.config(clock).busyBound(Duration.ofMillis(200)).build());
        Engine supervisor = temp.open(clock);
        worker.actors().add("operator");
        Assignment x = worker.runs().assign("operator", "scripted");
        Lease lease = worker.leases().acquire("operator", Duration.ofSeconds(5));
        RunStore runs = Port.runs(worker);
        Attempt attempt = runs.startAttempt(x.id(), lease.token(), 5_000);
        Port.grants(worker).holdAttempt(attempt.id(), attempt.token());
        worker.heartbeatNow(); // alive and well just before the lock

        try (Connection rogue = DriverManager.getConnection("jdbc:sqlite:" + temp.file());
                Statement s = rogue.createStatement()) {
            s.execute("BEGIN IMMEDIATE");
            clock.advance(Duration.ofSeconds(6)); // the lock outlasts every TTL
            assertThatThrownBy(worker::heartbeatNow).isInstanceOf(StorageException.class); // alive, but blocked
            s.execute("ROLLBACK");
        }
        TickReport report = supervisor.supervisor().tick(); // wins the freed lock before the worker's next beat

        assertThat(report.recovered()).singleElement().satisfies(r -> {
            assertThat(r.attemptId()).isEqualTo(attempt.id());
            assertThat(r.lostProcess()).isEqualTo(worker.processIdentity());
        });
        Receipt receipt = supervisor.runs().receipt(x.id()).orElseThrow();
        assertThat(receipt.failureCategory()).isEqualTo(Receipt.WORKER_LOST);
        assertThat(receipt.outcomeKnown()).isFalse();

        // safety does not depend on time: the live worker cannot commit its (perhaps finished) work
        assertThat(worker.heartbeatNow().lostAttempts()).containsOnlyKeys(attempt.id());
        assertThatThrownBy(() -> runs.finish(attempt, Outcome.COMPLETED, null, true, "too late"))
                .isInstanceOfSatisfying(
                        Refusal.class, r -> assertThat(r.category()).isEqualTo(RefusalCategory.EXECUTION_ATTEMPT_LOST));
        assertThat(supervisor.runs().get(x.id()))
                .get()
                .extracting(Assignment::state)
                .isEqualTo(AssignmentState.FAILED);
        assertThat(supervisor.journal().rejections(10))
                .filteredOn(e -> x.id().equals(e.resourceId()))
                .hasSize(2)
                .allMatch(e -> e.category().equals("execution_attempt_lost"));
    }
}
