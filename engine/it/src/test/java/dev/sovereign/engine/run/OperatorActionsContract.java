package dev.sovereign.engine.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.base.Refusal;
import dev.sovereign.engine.base.RefusalCategory;
import dev.sovereign.engine.journal.EventKind;
import dev.sovereign.engine.journal.FenceEvent;
import dev.sovereign.engine.lease.Lease;
import dev.sovereign.engine.testing.Contract;
import dev.sovereign.engine.testing.Port;
import dev.sovereign.engine.testing.SettableClock;
import dev.sovereign.engine.testing.TempDatabase;
import dev.sovereign.engine.testing.TestBackend;
import java.time.Duration;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

@Contract
abstract class OperatorActionsContract {
    /** The backend this class's ledgers are on: each backend's module has its subclass (decision 0015). */
    protected abstract TestBackend backend();

    @RegisterExtension
    final TempDatabase temp = new TempDatabase(this::backend);

    private final SettableClock clock = new SettableClock();
    private Engine a;

    @BeforeEach
    void open() {
        a = temp.open(clock);
        a.actors().add("operator");
    }

    private static RefusalCategory categoryOf(Throwable t) {
        return ((Refusal) t).category();
    }

    @Test
    void aFailedAssignmentIsRetriedAsANewAssignmentOnceAndNeverAutomatically() {
        Assignment x = a.runs().assign("operator", "scripted:outcome=failed", "persistent");
        a.runs().runAssignment(x.id());
        assertThat(a.runs().list()).hasSize(1); // nothing retried by itself

        Assignment retry = a.runs().retry(x.id());

        assertThat(retry.id()).isNotEqualTo(x.id());
        assertThat(retry.retryOf()).isEqualTo(x.id());
        assertThat(retry.state()).isEqualTo(AssignmentState.CREATED);
        assertThat(retry.providerSpec()).isEqualTo(x.providerSpec());
        assertThat(retry.workspacePolicy()).isEqualTo("persistent");
        assertThat(a.runs().get(x.id())).get().extracting(Assignment::state).isEqualTo(AssignmentState.FAILED);
        assertThat(a.journal().forResource("assignment", retry.id()))
                .extracting(FenceEvent::kind)
                .containsExactly(EventKind.ASSIGNMENT_RETRIED);
        assertThatThrownBy(() -> a.runs().retry(x.id()))
                .satisfies(t -> assertThat(categoryOf(t)).isEqualTo(RefusalCategory.ASSIGNMENT_NOT_RETRYABLE))
                .hasMessageContaining(retry.id());
    }

    @Test
    void aBlockedAssignmentCanBeRetriedButACompletedCreatedOrRunningOneCannot() {
        Assignment blocked = a.runs().assign("operator", "scripted:outcome=blocked");
        a.runs().runAssignment(blocked.id());
        assertThat(a.runs().retry(blocked.id()).retryOf()).isEqualTo(blocked.id());

        Assignment completed = a.runs().assign("operator", "scripted");
        a.runs().runAssignment(completed.id());
        Assignment created = a.runs().assign("operator", "scripted");
        for (Assignment x : new Assignment[] {completed, created}) {
            assertThatThrownBy(() -> a.runs().retry(x.id()))
                    .satisfies(t -> assertThat(categoryOf(t)).isEqualTo(RefusalCategory.ASSIGNMENT_NOT_RETRYABLE));
        }
        assertThatThrownBy(() -> a.runs().retry("asg_nothere"))
                .satisfies(t -> assertThat(categoryOf(t)).isEqualTo(RefusalCategory.ASSIGNMENT_MISSING));
    }

    @Test
    void acknowledgingAFailureStampsItOnceAndJournalsIt() {
        Assignment x = a.runs().assign("operator", "scripted:outcome=failed");
        a.runs().runAssignment(x.id());
        clock.advance(Duration.ofSeconds(5));

        Assignment acked = a.runs().acknowledge(x.id());
        clock.advance(Duration.ofSeconds(5));
        Assignment again = a.runs().acknowledge(x.id());

        assertThat(acked.acknowledgedAt()).isEqualTo(clock.millis() - 5_000);
        assertThat(again.acknowledgedAt()).isEqualTo(acked.acknowledgedAt());
        assertThat(a.journal().forResource("assignment", x.id()))
                .extracting(FenceEvent::kind)
                .containsExactly(EventKind.ASSIGNMENT_CREATED, EventKind.ASSIGNMENT_ACKNOWLEDGED);
    }

    @Test
    void onlyAFailedOrBlockedAssignmentCanBeAcknowledged() {
        Assignment x = a.runs().assign("operator", "scripted");
        assertThatThrownBy(() -> a.runs().acknowledge(x.id()))
                .satisfies(t -> assertThat(categoryOf(t)).isEqualTo(RefusalCategory.INVALID_ARGUMENT));
    }

    @Test
    void stealingTheFenceClearsThePointerKeepsRunningAndJournalsIt() {
        Assignment x = a.runs().assign("operator", "scripted");
        Lease lease = a.leases().acquire("operator", Duration.ofSeconds(10));
        Attempt attempt = Port.runs(a).startAttempt(x.id(), lease.token(), 10_000);

        Attempt stolen = a.runs().stealFence(x.id());

        assertThat(stolen.id()).isEqualTo(attempt.id());
        Assignment after = a.runs().get(x.id()).orElseThrow();
        assertThat(after.state()).isEqualTo(AssignmentState.RUNNING);
        assertThat(after.currentAttempt()).isNull();
        FenceEvent event = a.journal().forResource("attempt", attempt.id()).get(1);
        assertThat(event.kind()).isEqualTo(EventKind.ATTEMPT_STOLEN);
        assertThat(event.token()).isEqualTo(attempt.token());
        assertThatThrownBy(() -> a.runs().stealFence(x.id()))
                .satisfies(t -> assertThat(categoryOf(t)).isEqualTo(RefusalCategory.INVALID_ARGUMENT));
        assertThatThrownBy(() -> a.runs().runAssignment(x.id()))
                .satisfies(t -> assertThat(categoryOf(t)).isEqualTo(RefusalCategory.ASSIGNMENT_NOT_RUNNABLE));
    }
}
