package dev.sovereign.engine.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.base.Refusal;
import dev.sovereign.engine.base.RefusalCategory;
import dev.sovereign.engine.journal.EventKind;
import dev.sovereign.engine.journal.FenceEvent;
import dev.sovereign.engine.lease.Lease;
import dev.sovereign.engine.provider.Outcome;
import dev.sovereign.engine.provider.ProviderResult;
import dev.sovereign.engine.testing.ChildOutput;
import dev.sovereign.engine.testing.Contract;
import dev.sovereign.engine.testing.Port;
import dev.sovereign.engine.testing.SettableClock;
import dev.sovereign.engine.testing.TempDatabase;
import dev.sovereign.engine.testing.TestBackend;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

@Contract
abstract class RunAssignmentContract {
    /** The backend this class's ledgers are on: each backend's module has its subclass (decision 0015). */
    protected abstract TestBackend backend();

    @RegisterExtension
    final TempDatabase temp = new TempDatabase(this::backend);

    final SettableClock clock = new SettableClock();
    private final AtomicInteger invocations = new AtomicInteger();
    Engine a;
    Engine b;

    @BeforeEach
    void open() {
        a = temp.open(clock);
        b = temp.open(clock);
        a.actors().add("operator");
        for (Engine e : List.of(a, b)) {
            e.providers().register("counting", arg -> job -> {
                invocations.incrementAndGet();
                return ProviderResult.completed("counted");
            });
        }
    }

    private static RefusalCategory categoryOf(Throwable t) {
        return ((Refusal) t).category();
    }

    @Test
    void aRunCommitsTheOutcomeWithOneReceiptAndReleasesTheLease() {
        Assignment x = a.runs().assign("operator", "scripted:ms=0,outcome=completed");
        assertThat(x.state()).isEqualTo(AssignmentState.CREATED);

        RunResult r = a.runs().runAssignment(x.id(), Duration.ofSeconds(30));

        assertThat(r.assignment().state()).isEqualTo(AssignmentState.COMPLETED);
        assertThat(r.assignment().currentAttempt()).isNull();
        assertThat(r.attempt().state()).isEqualTo(AttemptState.DONE);
        assertThat(r.receipt().status()).isEqualTo(Outcome.COMPLETED);
        assertThat(r.receipt().outcomeKnown()).isTrue();
        assertThat(r.receipt().attemptId()).isEqualTo(r.attempt().id());
        assertThat(r.receipt().attemptToken()).isEqualTo(r.attempt().token());
        assertThat(a.runs().receipt(x.id())).contains(r.receipt());
        assertThat(a.leases().current("operator")).isEmpty();
        assertThat(Port.grants(a).attempts()).isEmpty();
        assertThat(a.journal().forResource("attempt", r.attempt().id()))
                .extracting(FenceEvent::kind)
                .containsExactly(EventKind.ATTEMPT_STARTED, EventKind.ATTEMPT_DONE);
    }

    @Test
    void theAttemptIsBoundToTheLeaseTokenAndCarriesAGreaterToken() {
        Assignment x = a.runs().assign("operator", "scripted");
        RunResult r = a.runs().runAssignment(x.id());
        FenceEvent acquired = a.journal().forResource("actor", "operator").get(0);
        assertThat(acquired.kind()).isEqualTo(EventKind.LEASE_ACQUIRED);
        assertThat(r.attempt().leaseToken()).isEqualTo(acquired.token());
        assertThat(r.attempt().token()).isGreaterThan(r.attempt().leaseToken());
    }

    @Test
    void blockedAndFailedOutcomesEndTheAssignmentInTheirOwnStates() {
        RunResult blocked = a.runs()
                .runAssignment(
                        a.runs().assign("operator", "scripted:outcome=blocked").id());
        RunResult failed = a.runs()
                .runAssignment(
                        a.runs().assign("operator", "scripted:outcome=failed").id());
        assertThat(blocked.assignment().state()).isEqualTo(AssignmentState.BLOCKED);
        assertThat(blocked.receipt().failureCategory()).isNull();
        assertThat(failed.assignment().state()).isEqualTo(AssignmentState.FAILED);
        assertThat(failed.receipt().failureCategory()).isEqualTo("scripted_failure");
    }

    @Test
    void aProviderThatThrowsEndsTheRunAsFailedWithItsError() {
        a.providers().register("broken", arg -> job -> {
            throw new IllegalStateException("boom");
        });
        RunResult r =
                a.runs().runAssignment(a.runs().assign("operator", "broken").id());
        assertThat(r.assignment().state()).isEqualTo(AssignmentState.FAILED);
        assertThat(r.receipt().failureCategory()).isEqualTo("provider_error");
        assertThat(r.receipt().summary()).contains("boom");
    }

    @Test
    void assignValidatesActorProviderAndPolicyBeforeWritingAnything() {
        assertThatThrownBy(() -> a.runs().assign("ghost", "scripted"))
                .satisfies(t -> assertThat(categoryOf(t)).isEqualTo(RefusalCategory.UNKNOWN_ACTOR));
        for (String bad : List.of(
                "",
                "nope:x",
                "scripted:ms=abc",
                "scripted:outcome=maybe",
                "scripted:colour=red",
                "command:",
                "command:   ")) {
            assertThatThrownBy(() -> a.runs().assign("operator", bad))
                    .as(bad)
                    .satisfies(t -> assertThat(categoryOf(t)).isEqualTo(RefusalCategory.UNKNOWN_PROVIDER));
        }
        assertThatThrownBy(() -> a.runs().assign("operator", "scripted", "forever"))
                .satisfies(t -> assertThat(categoryOf(t)).isEqualTo(RefusalCategory.UNKNOWN_WORKSPACE_POLICY));
        assertThat(a.runs().list()).isEmpty();
    }

    @Test
    void anAssignmentTakesTheActorsPolicyUnlessOneIsGiven() {
        a.actors().add("keeper", "persistent");
        assertThat(a.runs().assign("keeper", "scripted").workspacePolicy()).isEqualTo("persistent");
        assertThat(a.runs().assign("keeper", "scripted", "temporary").workspacePolicy())
                .isEqualTo("temporary");
    }

    @Test
    void aFinishedAssignmentIsNotRunnableAndAMissingOneIsMissing() {
        Assignment x = a.runs().assign("operator", "scripted");
        a.runs().runAssignment(x.id());
        assertThatThrownBy(() -> a.runs().runAssignment(x.id()))
                .satisfies(t -> assertThat(categoryOf(t)).isEqualTo(RefusalCategory.ASSIGNMENT_NOT_RUNNABLE));
        assertThatThrownBy(() -> a.runs().runAssignment("asg_nothere"))
                .satisfies(t -> assertThat(categoryOf(t)).isEqualTo(RefusalCategory.ASSIGNMENT_MISSING));
    }

    @Test
    void aLiveLeaseOfAnotherProcessRefusesBeforeTheProviderIsInvoked() {
        Assignment x = a.runs().assign("operator", "counting");
        Lease held = b.leases().acquire("operator", Duration.ofSeconds(30));

        assertThatThrownBy(() -> a.runs().runAssignment(x.id())).isInstanceOfSatisfying(Refusal.class, r -> {
            assertThat(r.category()).isEqualTo(RefusalCategory.ACTOR_LEASE_HELD);
            assertThat(r.currentToken()).isEqualTo(held.token());
        });

        assertThat(invocations).hasValue(0);
        assertThat(a.runs().get(x.id())).get().extracting(Assignment::state).isEqualTo(AssignmentState.CREATED);
        assertThat(a.runs().attempts(x.id())).isEmpty();
        assertThat(b.leases().current("operator")).contains(held);
    }

    @Test
    void aRunLeavesALeaseTheEngineAlreadyHeldHeld() {
        Lease hosting = a.leases().acquire("operator", Duration.ofSeconds(30));
        a.runs().runAssignment(a.runs().assign("operator", "counting").id(), Duration.ofSeconds(30));
        assertThat(a.leases().current("operator"))
                .get()
                .extracting(Lease::token)
                .isEqualTo(hosting.token());
        assertThat(a.leases().held()).extracting(Lease::token).containsExactly(hosting.token());
    }

    @Test
    void aRunningAssignmentWithALiveAttemptIsHeldAndAnExpiredOneIsSuperseded() {
        Assignment x = a.runs().assign("operator", "counting");
        Lease lease = a.leases().acquire("operator", Duration.ofSeconds(10));
        Attempt first = Port.runs(a).startAttempt(x.id(), lease.token(), 10_000);
        // process a "dies": nothing renews its lease or attempt any more

        assertThatThrownBy(() -> b.runs().runAssignment(x.id()))
                .satisfies(t -> assertThat(categoryOf(t)).isEqualTo(RefusalCategory.EXECUTION_ATTEMPT_HELD));
        assertThat(invocations).hasValue(0);

        clock.advance(Duration.ofSeconds(11));
        RunResult r = b.runs().runAssignment(x.id());

        assertThat(r.assignment().state()).isEqualTo(AssignmentState.COMPLETED);
        assertThat(r.receipt().attemptId()).isNotEqualTo(first.id());
        assertThat(r.attempt().token()).isGreaterThan(first.token());
        assertThat(b.runs().attempts(x.id()))
                .extracting(Attempt::state)
                .containsExactly(AttemptState.SUPERSEDED, AttemptState.DONE);
        assertThat(b.journal().rejections(10)).extracting(FenceEvent::category).contains("execution_attempt_held");
    }

    @Test
    void aStolenFenceMidRunRefusesTheTerminalWriteWithoutAReceipt() {
        a.providers().register("thief", arg -> job -> {
            b.runs().stealFence(job.assignmentId()); // another engine clears the pointer while the provider runs
            return ProviderResult.completed("finished, but too late");
        });
        Assignment x = a.runs().assign("operator", "thief");

        assertThatThrownBy(() -> a.runs().runAssignment(x.id())).isInstanceOfSatisfying(Refusal.class, r -> {
            assertThat(r.category()).isEqualTo(RefusalCategory.EXECUTION_ATTEMPT_LOST);
            assertThat(r.currentToken()).isNull();
        });

        assertThat(a.runs().receipt(x.id())).isEmpty();
        Assignment after = a.runs().get(x.id()).orElseThrow();
        assertThat(after.state()).isEqualTo(AssignmentState.RUNNING);
        assertThat(after.currentAttempt()).isNull();
        Attempt attempt = a.runs().attempts(x.id()).get(0);
        assertThat(attempt.state()).isEqualTo(AttemptState.ACTIVE);
        FenceEvent rejected = a.journal().rejections(1).get(0);
        assertThat(rejected.category()).isEqualTo("execution_attempt_lost");
        assertThat(rejected.presentedToken()).isEqualTo(attempt.token());
        assertThat(rejected.processIdentity()).isEqualTo(a.processIdentity());
        assertThat(a.journal().forResource("attempt", attempt.id()))
                .extracting(FenceEvent::kind)
                .containsExactly(EventKind.ATTEMPT_STARTED, EventKind.ATTEMPT_STOLEN);
        assertThat(a.leases().current("operator")).isEmpty(); // released in finally even though the write lost
    }

    @Test
    void aHolderWhoseLeaseWasTakenOverCannotCommitEvenBeforeItsAttemptIsRecovered() {
        a.providers().register("paused", arg -> job -> {
            // while this holder "sleeps" past its TTL, another process takes the actor over
            clock.advance(Duration.ofSeconds(31));
            b.leases().acquire("operator", Duration.ofSeconds(30));
            return ProviderResult.completed("woke up and finished");
        });
        Assignment x = a.runs().assign("operator", "paused");

        assertThatThrownBy(() -> a.runs().runAssignment(x.id(), Duration.ofSeconds(30)))
                .satisfies(t -> assertThat(categoryOf(t)).isEqualTo(RefusalCategory.ACTOR_LEASE_LOST));

        assertThat(a.runs().receipt(x.id())).isEmpty();
        assertThat(a.runs().get(x.id())).get().extracting(Assignment::state).isEqualTo(AssignmentState.RUNNING);
        assertThat(b.leases().current("operator"))
                .get()
                .extracting(Lease::process)
                .isEqualTo(b.processIdentity());
        assertThat(a.journal().rejections(10)).extracting(FenceEvent::category).contains("actor_lease_lost");
    }

    @Test
    void theHeartbeatReportsAStolenAttemptLostAndTheRunIsCancelled() throws Exception {
        Assignment x = a.runs().assign("operator", "scripted:ms=60000");
        CompletableFuture<Throwable> outcome = CompletableFuture.supplyAsync(() -> {
            try {
                a.runs().runAssignment(x.id());
                return null;
            } catch (Throwable t) {
                return t;
            }
        });
        ChildOutput.await(
                "the attempt started",
                Duration.ofSeconds(10),
                () -> !Port.grants(a).attempts().isEmpty());
        b.runs().stealFence(x.id());

        assertThat(a.heartbeatNow().lostAttempts()).hasSize(1);

        Throwable t = outcome.get(10, TimeUnit.SECONDS);
        assertThat(categoryOf(t)).isEqualTo(RefusalCategory.EXECUTION_ATTEMPT_LOST);
        assertThat(a.runs().receipt(x.id())).isEmpty();
    }

    @Test
    void anInterruptedCallerCancelsTheProviderEndsTheRunAsCancelledAndKeepsItsInterrupt() throws Exception {
        Assignment x = a.runs().assign("operator", "scripted:ms=60000");
        CompletableFuture<Object[]> outcome = new CompletableFuture<>();
        Thread caller = new Thread(() -> {
            RunResult r = a.runs().runAssignment(x.id());
            outcome.complete(new Object[] {r, Thread.currentThread().isInterrupted()});
        });
        caller.start();
        ChildOutput.await(
                "the attempt started",
                Duration.ofSeconds(10),
                () -> !Port.grants(a).attempts().isEmpty());
        caller.interrupt();

        Object[] done = outcome.get(10, TimeUnit.SECONDS);
        RunResult r = (RunResult) done[0];
        assertThat(r.assignment().state()).isEqualTo(AssignmentState.FAILED);
        assertThat(r.receipt().failureCategory()).isEqualTo("cancelled");
        assertThat((Boolean) done[1]).as("the caller's interrupt is restored").isTrue();
        assertThat(a.leases().current("operator")).isEmpty();
    }
}
