package dev.sovereign.engine.rules;

import static dev.sovereign.engine.base.RefusalCategory.ACTOR_LEASE_LOST;
import static dev.sovereign.engine.base.RefusalCategory.ASSIGNMENT_MISSING;
import static dev.sovereign.engine.base.RefusalCategory.ASSIGNMENT_NOT_RETRYABLE;
import static dev.sovereign.engine.base.RefusalCategory.ASSIGNMENT_NOT_RUNNABLE;
import static dev.sovereign.engine.base.RefusalCategory.EXECUTION_ATTEMPT_HELD;
import static dev.sovereign.engine.base.RefusalCategory.EXECUTION_ATTEMPT_LOST;
import static dev.sovereign.engine.base.RefusalCategory.INVALID_ARGUMENT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import dev.sovereign.engine.base.Refusal;
import dev.sovereign.engine.lease.Lease;
import dev.sovereign.engine.provider.Outcome;
import dev.sovereign.engine.run.Assignment;
import dev.sovereign.engine.run.AssignmentState;
import dev.sovereign.engine.run.Attempt;
import dev.sovereign.engine.run.AttemptState;
import dev.sovereign.engine.testing.Refused;
import dev.sovereign.engine.testing.SettableClock;
import java.time.Instant;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.LongRange;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The rules of assignments and execution attempts (contract §5, 6). */
class RunRulesTest {
    static final String ME = "proc_me";
    static final String OTHER = "proc_other";
    static final long TTL = 5_000;

    final SettableClock clock = new SettableClock();

    long now() {
        return clock.millis();
    }

    Assignment assignment(AssignmentState state, String currentAttempt) {
        return new Assignment(
                "as1", "a1", "scripted:completed", "temporary", state, currentAttempt, null, null, now(), now());
    }

    /** Attempt {@code id} of as1 by {@code process}, token {@code token}, under lease token 5. */
    Attempt attempt(String id, String process, long token, AttemptState state, long expiresAt) {
        return new Attempt(id, "as1", "a1", process, token, 5, state, TTL, now(), now(), expiresAt, null);
    }

    Lease lease(String process, long token) {
        return new Lease("a1", process, token, TTL, now(), now(), now() + TTL);
    }

    static String at(long millis) {
        return Instant.ofEpochMilli(millis).toString();
    }

    @Test
    void missing_says_how_to_list_assignments() {
        Refusal r = RunRules.missing("as9");
        assertThat(r.category()).isEqualTo(ASSIGNMENT_MISSING);
        assertThat(r.category().isBadInput()).isTrue();
        assertThat(r.getMessage()).isEqualTo("There is no assignment 'as9'; list them with 'sovereign assignments'.");
        assertThat(r.resourceType()).isEqualTo("assignment");
        assertThat(r.resourceId()).isEqualTo("as9");
    }

    @Nested
    class Runnable {
        @Test
        void a_created_assignment_and_a_running_one_with_an_attempt_may_run() {
            assertThatCode(() -> RunRules.requireRunnableState(assignment(AssignmentState.CREATED, null)))
                    .doesNotThrowAnyException();
            assertThatCode(() -> RunRules.requireRunnableState(assignment(AssignmentState.RUNNING, "at1")))
                    .doesNotThrowAnyException();
        }

        @Test
        void a_running_assignment_whose_pointer_was_cleared_waits_for_recovery() {
            Refusal r = Refused.by(() -> RunRules.requireRunnableState(assignment(AssignmentState.RUNNING, null)));
            assertThat(r.category()).isEqualTo(ASSIGNMENT_NOT_RUNNABLE);
            assertThat(r.getMessage())
                    .isEqualTo("Assignment as1 cannot run: it is RUNNING but its attempt pointer was"
                            + " cleared by an operator; wait for the supervisor to recover it, then retry it.");
            assertThat(r.actorId()).isEqualTo("a1");
        }

        @ParameterizedTest
        @EnumSource(
                value = AssignmentState.class,
                names = {"COMPLETED", "BLOCKED", "FAILED"})
        void an_ended_assignment_must_be_retried_to_run_again(AssignmentState ended) {
            Refusal r = Refused.by(() -> RunRules.requireRunnableState(assignment(ended, null)));
            assertThat(r.category()).isEqualTo(ASSIGNMENT_NOT_RUNNABLE);
            assertThat(r.getMessage())
                    .isEqualTo("Assignment as1 cannot run: it has already ended as " + ended
                            + "; retry it to run it again.");
        }

        @Test
        void a_live_active_attempt_holds_the_assignment_until_exactly_its_expiry() {
            Assignment a = assignment(AssignmentState.RUNNING, "at1");
            Attempt live = attempt("at1", OTHER, 12, AttemptState.ACTIVE, now() + 1);
            Refusal r = Refused.by(() -> RunRules.requireSupersedable(a, live, now()));
            assertThat(r.category()).isEqualTo(EXECUTION_ATTEMPT_HELD);
            assertThat(r.getMessage())
                    .isEqualTo("Assignment as1 is being run by attempt at1 of proc_other (token 12)" + " until "
                            + at(live.expiresAt()) + "; wait for it to finish or expire.");
            assertThat(r.currentToken()).isEqualTo(12L);
            clock.set(live.expiresAt());
            assertThatCode(() -> RunRules.requireSupersedable(a, live, now())).doesNotThrowAnyException();
        }

        @ParameterizedTest
        @EnumSource(value = AttemptState.class, names = "ACTIVE", mode = EnumSource.Mode.EXCLUDE)
        void an_attempt_that_is_no_longer_active_holds_nothing(AttemptState state) {
            Attempt ended = attempt("at1", OTHER, 12, state, now() + TTL);
            assertThatCode(() -> RunRules.requireSupersedable(assignment(AssignmentState.RUNNING, "at1"), ended, now()))
                    .doesNotThrowAnyException();
        }
    }

    @Nested
    class StartingAnAttempt {
        final Assignment a = assignment(AssignmentState.CREATED, null);

        @Test
        void the_own_live_lease_with_the_presented_token_starts_it() {
            assertThatCode(() -> RunRules.requireLeaseForAttempt(a, 5, lease(ME, 5), ME, now()))
                    .doesNotThrowAnyException();
        }

        @Test
        void the_own_lease_expiring_exactly_now_does_not() {
            Lease l = lease(ME, 5);
            clock.set(l.expiresAt());
            Refusal r = Refused.by(() -> RunRules.requireLeaseForAttempt(a, 5, l, ME, now()));
            assertThat(r.category()).isEqualTo(ACTOR_LEASE_LOST);
            assertThat(r.getMessage())
                    .isEqualTo("Cannot start an attempt for assignment as1 under actor lease token 5:"
                            + " that lease expired at " + at(l.expiresAt()) + "; acquire the lease again.");
            assertThat(r.presentedToken()).isEqualTo(5L);
            assertThat(r.currentToken()).isEqualTo(5L);
        }

        @Test
        void no_lease_or_another_holder_or_another_token_says_what_became_of_it() {
            Refusal none = Refused.by(() -> RunRules.requireLeaseForAttempt(a, 5, null, ME, now()));
            assertThat(none.category()).isEqualTo(ACTOR_LEASE_LOST);
            assertThat(none.getMessage()).contains(": no process holds the lease of actor a1 now;");
            assertThat(none.currentToken()).isNull();
            Refusal other = Refused.by(() -> RunRules.requireLeaseForAttempt(a, 5, lease(OTHER, 9), ME, now()));
            assertThat(other.getMessage()).contains(": the lease of actor a1 is now held by proc_other with token 9;");
            assertThat(other.currentToken()).isEqualTo(9L);
            Refusal newer = Refused.by(() -> RunRules.requireLeaseForAttempt(a, 5, lease(ME, 9), ME, now()));
            assertThat(newer.getMessage()).contains("is now held by this process with token 9;");
        }
    }

    @Nested
    class TerminalWrites {
        final Attempt mine = attempt("at1", ME, 12, AttemptState.ACTIVE, SettableClock.START + TTL);

        @Test
        void each_outcome_ends_in_its_state() {
            assertThat(RunRules.terminalState(Outcome.COMPLETED)).isEqualTo(AssignmentState.COMPLETED);
            assertThat(RunRules.terminalState(Outcome.BLOCKED)).isEqualTo(AssignmentState.BLOCKED);
            assertThat(RunRules.terminalState(Outcome.FAILED)).isEqualTo(AssignmentState.FAILED);
        }

        @Test
        void the_lease_fence_stands_only_on_the_bound_token_and_this_process() {
            assertThat(RunRules.leaseFenceStands(mine, lease(ME, 5), ME)).isTrue();
            assertThat(RunRules.leaseFenceStands(mine, lease(ME, 6), ME)).isFalse();
            assertThat(RunRules.leaseFenceStands(mine, lease(OTHER, 5), ME)).isFalse();
            assertThat(RunRules.leaseFenceStands(mine, null, ME)).isFalse();
        }

        @Test
        void a_moved_lease_fence_is_actor_lease_lost() {
            Refusal r = RunRules.terminalWriteRefused(mine, null, ME, null, null);
            assertThat(r.category()).isEqualTo(ACTOR_LEASE_LOST);
            assertThat(r.getMessage())
                    .isEqualTo("The terminal write of assignment as1 by attempt at1 (token 12) was"
                            + " refused and nothing was written: the lease of actor a1 it was bound to (token 5) is no longer"
                            + " this process's (no process holds it now). Its result is not canonical; see the assignment's"
                            + " current state.");
            assertThat(r.presentedToken()).isEqualTo(5L);
            assertThat(r.currentToken()).isNull();
            Refusal other = RunRules.terminalWriteRefused(mine, lease(OTHER, 9), ME, null, null);
            assertThat(other.getMessage()).contains("(it is now held by proc_other with token 9)");
            assertThat(other.currentToken()).isEqualTo(9L);
        }

        @Test
        void a_moved_attempt_pointer_is_execution_attempt_lost() {
            Attempt current = attempt("at2", OTHER, 14, AttemptState.ACTIVE, now() + TTL);
            Refusal r = RunRules.terminalWriteRefused(
                    mine, lease(ME, 5), ME, assignment(AssignmentState.RUNNING, "at2"), current);
            assertThat(r.category()).isEqualTo(EXECUTION_ATTEMPT_LOST);
            assertThat(r.getMessage())
                    .isEqualTo("The terminal write of assignment as1 by attempt at1 (token 12) was"
                            + " refused and nothing was written: it is no longer the assignment's current attempt (the current"
                            + " attempt is at2 with token 14). Its result is not canonical; see the assignment's current"
                            + " state.");
            assertThat(r.presentedToken()).isEqualTo(12L);
            assertThat(r.currentToken()).isEqualTo(14L);
            Refusal recovered = RunRules.terminalWriteRefused(
                    mine, lease(ME, 5), ME, assignment(AssignmentState.FAILED, null), null);
            assertThat(recovered.getMessage()).contains("(the assignment has no current attempt and is FAILED)");
            assertThat(recovered.currentToken()).isNull();
        }
    }

    @Nested
    class AttemptBeats {
        final Attempt active = attempt("at1", ME, 12, AttemptState.ACTIVE, SettableClock.START + TTL);

        @Test
        void a_gone_or_finished_attempt_is_no_refusal() {
            assertThat(RunRules.beatRefused(null, 12, lease(ME, 5), null, ME)).isNull();
            Attempt done = attempt("at1", ME, 12, AttemptState.DONE, now());
            assertThat(RunRules.beatRefused(done, 12, null, null, ME)).isNull();
        }

        @Test
        void a_beat_whose_lease_moved_cancels_the_run() {
            Refusal r = RunRules.beatRefused(active, 12, lease(OTHER, 9), null, ME);
            assertThat(r.category()).isEqualTo(ACTOR_LEASE_LOST);
            assertThat(r.getMessage())
                    .isEqualTo(
                            "The heartbeat renewal of attempt at1 (token 12) of assignment as1 was"
                                    + " refused: the lease of actor a1 it was bound to (token 5) is no longer this process's (it is now"
                                    + " held by proc_other with token 9); its run was cancelled and its result can no longer commit.");
            assertThat(r.presentedToken()).isEqualTo(5L);
            assertThat(r.currentToken()).isEqualTo(9L);
            assertThat(RunRules.beatRefused(active, 12, null, null, ME).getMessage())
                    .contains("(no process holds it now)");
            assertThat(RunRules.beatRefused(active, 12, lease(ME, 6), null, ME).category())
                    .isEqualTo(ACTOR_LEASE_LOST);
        }

        @Test
        void a_beat_whose_attempt_lost_the_pointer_is_execution_attempt_lost() {
            Attempt superseded = attempt("at1", ME, 12, AttemptState.SUPERSEDED, now());
            Refusal r =
                    RunRules.beatRefused(superseded, 12, lease(ME, 5), assignment(AssignmentState.RUNNING, "at2"), ME);
            assertThat(r.category()).isEqualTo(EXECUTION_ATTEMPT_LOST);
            assertThat(r.getMessage())
                    .isEqualTo("The heartbeat renewal of attempt at1 (token 12) of assignment as1 was"
                            + " refused: the attempt is SUPERSEDED and the current attempt is at2; its run was cancelled and"
                            + " its result can no longer commit.");
            assertThat(r.presentedToken()).isEqualTo(12L);
            assertThat(RunRules.beatRefused(superseded, 12, lease(ME, 5), null, ME)
                            .getMessage())
                    .contains("and the assignment has no current attempt;");
            assertThat(RunRules.beatRefused(superseded, 12, lease(ME, 5), assignment(AssignmentState.FAILED, null), ME)
                            .getMessage())
                    .contains("and the assignment has no current attempt;");
        }
    }

    @Nested
    class OperatorActions {
        @ParameterizedTest
        @EnumSource(
                value = AssignmentState.class,
                names = {"FAILED", "BLOCKED"})
        void a_failed_or_blocked_assignment_is_retried_once(AssignmentState state) {
            Assignment a = assignment(state, null);
            assertThatCode(() -> RunRules.requireRetryable(a, null)).doesNotThrowAnyException();
            Refusal again = Refused.by(() -> RunRules.requireRetryable(a, "as2"));
            assertThat(again.category()).isEqualTo(ASSIGNMENT_NOT_RETRYABLE);
            assertThat(again.getMessage())
                    .isEqualTo("Assignment as1 was already retried as as2; retry that one" + " instead.");
            assertThatCode(() -> RunRules.requireAcknowledgeable(a)).doesNotThrowAnyException();
        }

        @ParameterizedTest
        @EnumSource(
                value = AssignmentState.class,
                names = {"CREATED", "RUNNING", "COMPLETED"})
        void any_other_assignment_is_neither_retried_nor_acknowledged(AssignmentState state) {
            Assignment a = assignment(state, null);
            Refusal retry = Refused.by(() -> RunRules.requireRetryable(a, null));
            assertThat(retry.category()).isEqualTo(ASSIGNMENT_NOT_RETRYABLE);
            assertThat(retry.getMessage())
                    .isEqualTo("Assignment as1 is " + state + "; only a FAILED or BLOCKED"
                            + " assignment can be retried.");
            Refusal ack = Refused.by(() -> RunRules.requireAcknowledgeable(a));
            assertThat(ack.category()).isEqualTo(INVALID_ARGUMENT);
            assertThat(ack.getMessage())
                    .isEqualTo("Assignment as1 is " + state + "; only a FAILED or BLOCKED"
                            + " assignment can be acknowledged.");
        }

        @Test
        void only_a_running_assignment_with_a_pointer_can_be_stolen() {
            assertThatCode(() -> RunRules.requireStealable(assignment(AssignmentState.RUNNING, "at1")))
                    .doesNotThrowAnyException();
            Refusal cleared = Refused.by(() -> RunRules.requireStealable(assignment(AssignmentState.RUNNING, null)));
            assertThat(cleared.category()).isEqualTo(INVALID_ARGUMENT);
            assertThat(cleared.getMessage())
                    .isEqualTo("Assignment as1 is RUNNING with no current attempt; there is no" + " fence to steal.");
            assertThat(Refused.by(() -> RunRules.requireStealable(assignment(AssignmentState.CREATED, null)))
                            .getMessage())
                    .startsWith("Assignment as1 is CREATED");
        }

        @Test
        void not_runnable_carries_the_reason_and_the_actor() {
            Refusal r = RunRules.notRunnable(assignment(AssignmentState.CREATED, null), "its provider is gone");
            assertThat(r.category()).isEqualTo(ASSIGNMENT_NOT_RUNNABLE);
            assertThat(r.getMessage()).isEqualTo("Assignment as1 cannot run: its provider is gone.");
            assertThat(r.actorId()).isEqualTo("a1");
            assertThat(r.resourceId()).isEqualTo("as1");
        }
    }

    /** An attempt may start exactly when the lease is this process's, with the presented token, and not expired. */
    @Property(tries = 300)
    void an_attempt_starts_exactly_under_the_own_live_presented_lease(
            @ForAll boolean own,
            @ForAll @LongRange(min = 4, max = 6) long leaseToken,
            @ForAll @LongRange(min = -3, max = 3) long expiryMinusNow) {
        Lease l = new Lease(
                "a1", own ? ME : OTHER, leaseToken, TTL, 0, now() + expiryMinusNow - TTL, now() + expiryMinusNow);
        boolean ok;
        try {
            RunRules.requireLeaseForAttempt(assignment(AssignmentState.CREATED, null), 5, l, ME, now());
            ok = true;
        } catch (Refusal r) {
            assertThat(r.category()).isEqualTo(ACTOR_LEASE_LOST);
            ok = false;
        }
        assertThat(ok).isEqualTo(own && leaseToken == 5 && expiryMinusNow > 0);
    }
}
