package dev.sovereign.engine.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.base.Refusal;
import dev.sovereign.engine.base.RefusalCategory;
import dev.sovereign.engine.journal.FenceEvent;
import dev.sovereign.engine.lease.Lease;
import dev.sovereign.engine.spi.RunStore;
import dev.sovereign.engine.testing.Contract;
import dev.sovereign.engine.testing.Port;
import dev.sovereign.engine.testing.SettableClock;
import dev.sovereign.engine.testing.TempDatabase;
import dev.sovereign.engine.testing.TestBackend;
import java.time.Duration;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Step 3 of a run on its own: the attempt transaction re-verifies the presented actor-lease token
 * inside itself, so a token that was valid a moment ago is worthless once it is not.
 */
@Contract
abstract class StartAttemptContract {
    /** The backend this class's ledgers are on: each backend's module has its subclass (decision 0015). */
    protected abstract TestBackend backend();

    @RegisterExtension
    final TempDatabase temp = new TempDatabase(this::backend);

    private final SettableClock clock = new SettableClock();
    private Engine a;
    private Engine b;
    private RunStore runsOfA;
    private RunStore runsOfB;
    private Assignment x;

    @BeforeEach
    void open() {
        a = temp.open(clock);
        b = temp.open(clock);
        a.actors().add("operator");
        runsOfA = Port.runs(a);
        runsOfB = Port.runs(b);
        x = a.runs().assign("operator", "scripted");
    }

    private void assertRefusedAndNothingWritten(Runnable start, Long presented) {
        long eventsBefore = a.journal().lastSeq();
        assertThatThrownBy(start::run).isInstanceOfSatisfying(Refusal.class, r -> {
            assertThat(r.category()).isEqualTo(RefusalCategory.ACTOR_LEASE_LOST);
            assertThat(r.presentedToken()).isEqualTo(presented);
        });
        assertThat(a.runs().attempts(x.id())).isEmpty();
        assertThat(a.runs().get(x.id())).get().extracting(Assignment::state).isEqualTo(AssignmentState.CREATED);
        assertThat(a.journal().since(eventsBefore, 10)).singleElement().satisfies(e -> {
            assertThat(e.kind().name()).isEqualTo("REJECTED");
            assertThat(e.category()).isEqualTo("actor_lease_lost");
            assertThat(e.presentedToken()).isEqualTo(presented);
        });
    }

    @Test
    void theCurrentLeaseTokenOfThisProcessStartsAnAttempt() {
        Lease lease = a.leases().acquire("operator", Duration.ofSeconds(10));
        Attempt attempt = runsOfA.startAttempt(x.id(), lease.token(), 10_000);
        assertThat(attempt.leaseToken()).isEqualTo(lease.token());
        assertThat(attempt.processIdentity()).isEqualTo(a.processIdentity());
        assertThat(a.runs().get(x.id())).get().satisfies(asg -> {
            assertThat(asg.state()).isEqualTo(AssignmentState.RUNNING);
            assertThat(asg.currentAttempt()).isEqualTo(attempt.id());
        });
    }

    @Test
    void aStaleLeaseTokenCannotStartAnAttemptEvenThoughItWasValidAMomentAgo() {
        Lease old = a.leases().acquire("operator", Duration.ofSeconds(10));
        clock.advance(Duration.ofSeconds(10));
        Lease current = b.leases().acquire("operator", Duration.ofSeconds(10));
        assertThat(current.token()).isGreaterThan(old.token());

        assertRefusedAndNothingWritten(() -> runsOfA.startAttempt(x.id(), old.token(), 10_000), old.token());
    }

    @Test
    void anotherProcesssLiveLeaseTokenCannotStartAnAttempt() {
        Lease theirs = b.leases().acquire("operator", Duration.ofSeconds(10));
        assertRefusedAndNothingWritten(() -> runsOfA.startAttempt(x.id(), theirs.token(), 10_000), theirs.token());
    }

    @Test
    void theTokenThisProcessHeldBeforeItsOwnTakeoverCannotStartAnAttempt() {
        Lease old = a.leases().acquire("operator", Duration.ofSeconds(10));
        clock.advance(Duration.ofSeconds(10));
        Lease renewedByTakeover = a.leases().acquire("operator", Duration.ofSeconds(10));
        assertThat(renewedByTakeover.process()).isEqualTo(old.process());
        assertRefusedAndNothingWritten(() -> runsOfA.startAttempt(x.id(), old.token(), 10_000), old.token());
    }

    @Test
    void anExpiredLeaseOfThisVeryProcessCannotStartAnAttempt() {
        Lease mine = a.leases().acquire("operator", Duration.ofSeconds(10));
        clock.advance(Duration.ofSeconds(10)); // expiry is expires_at <= now: exactly now counts
        assertRefusedAndNothingWritten(() -> runsOfA.startAttempt(x.id(), mine.token(), 10_000), mine.token());
    }

    @Test
    void aReleasedLeaseTokenCannotStartAnAttempt() {
        Lease mine = a.leases().acquire("operator", Duration.ofSeconds(10));
        assertThat(a.leases().release("operator", mine.token())).isTrue();
        assertRefusedAndNothingWritten(() -> runsOfA.startAttempt(x.id(), mine.token(), 10_000), mine.token());
    }

    @Test
    void aSecondAttemptWhileTheFirstIsLiveIsHeldNotGranted() {
        Lease mine = a.leases().acquire("operator", Duration.ofSeconds(10));
        Attempt first = runsOfA.startAttempt(x.id(), mine.token(), 10_000);
        assertThatThrownBy(() -> runsOfA.startAttempt(x.id(), mine.token(), 10_000))
                .isInstanceOfSatisfying(Refusal.class, r -> {
                    assertThat(r.category()).isEqualTo(RefusalCategory.EXECUTION_ATTEMPT_HELD);
                    assertThat(r.currentToken()).isEqualTo(first.token());
                });
        assertThat(a.runs().attempts(x.id())).hasSize(1);
        assertThat(a.journal().rejections(1))
                .extracting(FenceEvent::category)
                .containsExactly("execution_attempt_held");
    }

    @Test
    void theOtherEnginesTokenFailsForItTooWhenPresentedThroughItsOwnStore() {
        Lease mine = a.leases().acquire("operator", Duration.ofSeconds(10));
        assertThatThrownBy(() -> runsOfB.startAttempt(x.id(), mine.token(), 10_000))
                .isInstanceOfSatisfying(
                        Refusal.class, r -> assertThat(r.category()).isEqualTo(RefusalCategory.ACTOR_LEASE_LOST));
    }
}
