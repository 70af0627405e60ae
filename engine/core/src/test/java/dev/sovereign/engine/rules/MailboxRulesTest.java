package dev.sovereign.engine.rules;

import static dev.sovereign.engine.base.RefusalCategory.ACTOR_LEASE_LOST;
import static dev.sovereign.engine.base.RefusalCategory.FENCING_TOKEN_STALE;
import static dev.sovereign.engine.base.RefusalCategory.MESSAGE_CLAIMED;
import static dev.sovereign.engine.base.RefusalCategory.MESSAGE_FINISHED;
import static dev.sovereign.engine.base.RefusalCategory.MESSAGE_MISSING;
import static dev.sovereign.engine.base.RefusalCategory.NOT_HOSTING;
import static dev.sovereign.engine.base.RefusalCategory.NOT_RECIPIENT;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sovereign.engine.base.FencingTokens;
import dev.sovereign.engine.base.Refusal;
import dev.sovereign.engine.lease.Lease;
import dev.sovereign.engine.mailbox.Claim;
import dev.sovereign.engine.mailbox.Message;
import dev.sovereign.engine.mailbox.MessageState;
import dev.sovereign.engine.rules.MailboxRules.ClaimKind;
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

/** The mailbox rules (contract §8, decisions 0200-0203): who may claim, and why a finishing write was refused. */
class MailboxRulesTest {
    static final String ME = "proc_me";
    static final String OTHER = "proc_other";
    static final long TTL = 5_000;
    /** A token of epoch 1 (after a restore or a fence bump). */
    static final long EPOCH_1 = FencingTokens.firstTokenOf(1);

    final SettableClock clock = new SettableClock();

    long now() {
        return clock.millis();
    }

    Lease lease(String process, long token) {
        return new Lease("a1", process, token, TTL, now(), now(), now() + TTL);
    }

    Claim claim(String process, long token, long expiresAt) {
        return new Claim("m1", "a1", process, token, expiresAt);
    }

    Message message(MessageState state, Claim claim) {
        return new Message("m1", "a0", "a1", "hello", "body", state, claim, 0, 3, now(), now());
    }

    Message fresh() {
        return message(MessageState.NEW, null);
    }

    static String at(long millis) {
        return Instant.ofEpochMilli(millis).toString();
    }

    @Test
    void missing_says_how_to_list_messages() {
        Refusal r = MailboxRules.missing("m9");
        assertThat(r.category()).isEqualTo(MESSAGE_MISSING);
        assertThat(r.category().isBadInput()).isTrue();
        assertThat(r.getMessage()).isEqualTo("There is no message m9; list messages with 'sovereign inbox ACTOR'.");
        assertThat(r.resourceType()).isEqualTo("message");
        assertThat(r.resourceId()).isEqualTo("m9");
    }

    @Test
    void a_finished_message_never_changes_and_says_with_which_token_it_finished() {
        Refusal r = MailboxRules.finished(message(MessageState.DONE, claim(OTHER, 7, now())), "dead-letter");
        assertThat(r.category()).isEqualTo(MESSAGE_FINISHED);
        assertThat(r.getMessage())
                .isEqualTo("Cannot dead-letter message m1: it is already DONE (finished with"
                        + " token 7) and a finished message never changes.");
        assertThat(r.currentToken()).isEqualTo(7L);
        assertThat(r.actorId()).isEqualTo("a1");
        Refusal noClaim = MailboxRules.finished(message(MessageState.DEAD, null), "claim");
        assertThat(noClaim.getMessage())
                .isEqualTo("Cannot claim message m1: it is already DEAD and a finished" + " message never changes.");
        assertThat(noClaim.currentToken()).isNull();
    }

    @Nested
    class Claiming {
        @Test
        void only_the_recipient_may_claim() {
            Refusal r = Refused.by(() -> MailboxRules.decideClaim(fresh(), "a2", lease(ME, 5), null, ME, now()));
            assertThat(r.category()).isEqualTo(NOT_RECIPIENT);
            assertThat(r.category().isFencing()).isFalse();
            assertThat(r.getMessage())
                    .isEqualTo("Message m1 is addressed to a1, not to a2; only the recipient" + " actor may claim it.");
            assertThat(r.actorId()).isEqualTo("a2");
        }

        @ParameterizedTest
        @EnumSource(
                value = MessageState.class,
                names = {"DONE", "DEAD"})
        void a_finished_message_is_never_claimed(MessageState finished) {
            Message m = message(finished, claim(ME, 4, now() + TTL));
            Refusal r = Refused.by(() -> MailboxRules.decideClaim(m, "a1", lease(ME, 5), null, ME, now()));
            assertThat(r.category()).isEqualTo(MESSAGE_FINISHED);
            assertThat(r.getMessage()).startsWith("Cannot claim message m1: it is already " + finished);
        }

        @Test
        void a_new_message_is_granted_to_the_live_host() {
            assertThat(MailboxRules.decideClaim(fresh(), "a1", lease(ME, 5), lease(ME, 5), ME, now()))
                    .isEqualTo(ClaimKind.GRANT);
        }

        @Test
        void the_own_lease_expiring_exactly_now_no_longer_hosts() {
            Lease l = lease(ME, 5);
            clock.set(l.expiresAt());
            Refusal r = Refused.by(() -> MailboxRules.decideClaim(fresh(), "a1", l, l, ME, now()));
            assertThat(r.category()).isEqualTo(ACTOR_LEASE_LOST);
            assertThat(r.getMessage())
                    .isEqualTo("Cannot claim message m1: this process's lease on actor a1 (token 5)" + " expired at "
                            + at(l.expiresAt()) + "; renew or acquire the lease, then claim again.");
            assertThat(r.presentedToken()).isEqualTo(5L);
            assertThat(r.currentToken()).isEqualTo(5L);
        }

        @Test
        void the_own_lease_one_ms_before_its_expiry_still_hosts() {
            Lease l = lease(ME, 5);
            clock.set(l.expiresAt() - 1);
            assertThat(MailboxRules.decideClaim(fresh(), "a1", l, l, ME, now())).isEqualTo(ClaimKind.GRANT);
        }

        @Test
        void a_believed_lease_that_is_gone_is_lost_not_never_hosted() {
            Refusal r =
                    Refused.by(() -> MailboxRules.decideClaim(fresh(), "a1", lease(OTHER, 9), lease(ME, 3), ME, now()));
            assertThat(r.category()).isEqualTo(ACTOR_LEASE_LOST);
            assertThat(r.getMessage())
                    .isEqualTo("Cannot claim message m1: this process no longer hosts actor a1"
                            + " (its lease token 3 is gone; it is hosted by proc_other with token 9); acquire the lease"
                            + " again.");
            assertThat(r.presentedToken()).isEqualTo(3L);
            assertThat(r.currentToken()).isEqualTo(9L);
            Refusal none = Refused.by(() -> MailboxRules.decideClaim(fresh(), "a1", null, lease(ME, 3), ME, now()));
            assertThat(none.getMessage()).contains("(its lease token 3 is gone; no process hosts it now)");
            assertThat(none.currentToken()).isNull();
        }

        @Test
        void a_process_that_never_hosted_the_actor_is_not_hosting() {
            Refusal r = Refused.by(() -> MailboxRules.decideClaim(fresh(), "a1", null, null, ME, now()));
            assertThat(r.category()).isEqualTo(NOT_HOSTING);
            assertThat(r.category().isFencing()).isTrue();
            assertThat(r.getMessage())
                    .isEqualTo("Cannot claim message m1: this process does not host actor a1"
                            + " (no process hosts it now); acquire its lease first.");
            Refusal other = Refused.by(() -> MailboxRules.decideClaim(fresh(), "a1", lease(OTHER, 9), null, ME, now()));
            assertThat(other.category()).isEqualTo(NOT_HOSTING);
            assertThat(other.getMessage()).contains("(it is hosted by proc_other with token 9)");
            assertThat(other.currentToken()).isEqualTo(9L);
            assertThat(other.presentedToken()).isNull();
        }

        @Test
        void a_live_claim_of_another_process_is_message_claimed() {
            Claim c = claim(OTHER, 8, now() + 1);
            Refusal r = Refused.by(() ->
                    MailboxRules.decideClaim(message(MessageState.CLAIMED, c), "a1", lease(ME, 10), null, ME, now()));
            assertThat(r.category()).isEqualTo(MESSAGE_CLAIMED);
            assertThat(r.getMessage())
                    .isEqualTo("Message m1 is claimed by proc_other with token 8 until " + at(c.expiresAt())
                            + "; wait for the claim to be finished or to expire.");
            assertThat(r.currentToken()).isEqualTo(8L);
        }

        @Test
        void a_claim_expiring_exactly_now_is_taken_over() {
            Message m = message(MessageState.CLAIMED, claim(OTHER, 8, now()));
            assertThat(MailboxRules.decideClaim(m, "a1", lease(ME, 10), null, ME, now()))
                    .isEqualTo(ClaimKind.TAKE_OVER);
            Message own = message(MessageState.CLAIMED, claim(ME, 8, now()));
            assertThat(MailboxRules.decideClaim(own, "a1", lease(ME, 10), null, ME, now()))
                    .isEqualTo(ClaimKind.TAKE_OVER);
        }

        @Test
        void the_own_live_claim_is_renewed() {
            Message m = message(MessageState.CLAIMED, claim(ME, 8, now() + 1));
            assertThat(MailboxRules.decideClaim(m, "a1", lease(ME, 10), null, ME, now()))
                    .isEqualTo(ClaimKind.RENEW_OWN);
        }

        @Test
        void the_own_live_claim_of_an_earlier_epoch_is_lost() {
            long claimToken = FencingTokens.startOf(1) - 1; // the last token epoch 0 can issue
            Claim c = claim(ME, claimToken, now() + TTL);
            Refusal r = Refused.by(() -> MailboxRules.decideClaim(
                    message(MessageState.CLAIMED, c), "a1", lease(ME, EPOCH_1), null, ME, now()));
            assertThat(r.category()).isEqualTo(FENCING_TOKEN_STALE);
            assertThat(r.getMessage())
                    .isEqualTo("Cannot claim message m1 with token " + claimToken + ": the claim was"
                            + " granted before the ledger's current epoch began (a restore or a fence bump), so it is lost; it"
                            + " expires at " + at(c.expiresAt())
                            + " and the supervisor sweeps it, then claim it again for a"
                            + " token of this epoch.");
            assertThat(r.presentedToken()).isEqualTo(claimToken);
        }
    }

    @Nested
    class Finishing {
        @Test
        void a_message_that_is_gone_is_missing() {
            assertThat(MailboxRules.finishRefused("m1", null, 7, "complete", ME, lease(ME, 5))
                            .category())
                    .isEqualTo(MESSAGE_MISSING);
        }

        @Test
        void a_message_with_no_claim_was_swept_or_requeued() {
            Refusal r = MailboxRules.finishRefused("m1", fresh(), 7, "complete", ME, lease(ME, 5));
            assertThat(r.category()).isEqualTo(FENCING_TOKEN_STALE);
            assertThat(r.getMessage())
                    .isEqualTo("Cannot complete message m1 with token 7: the message is NEW with no"
                            + " claim (it was swept or re-queued); claim it again for a fresh token.");
            assertThat(r.presentedToken()).isEqualTo(7L);
            assertThat(r.currentToken()).isNull();
        }

        @Test
        void a_stale_token_is_judged_first_and_names_the_current_claim() {
            Message m = message(MessageState.CLAIMED, claim(OTHER, 9, now() + TTL));
            Refusal r = MailboxRules.finishRefused("m1", m, 7, "complete", ME, lease(OTHER, 8));
            assertThat(r.category()).isEqualTo(FENCING_TOKEN_STALE);
            assertThat(r.getMessage())
                    .isEqualTo("Cannot complete message m1 with token 7: its current claim is token 9"
                            + " of proc_other and the message is CLAIMED; the result of the stale claim is discarded.");
            assertThat(r.presentedToken()).isEqualTo(7L);
            assertThat(r.currentToken()).isEqualTo(9L);
        }

        @Test
        void a_stale_token_on_a_finished_message_is_still_stale_not_finished() {
            Message m = message(MessageState.DONE, claim(ME, 9, now()));
            Refusal r = MailboxRules.finishRefused("m1", m, 7, "dead-letter", ME, null);
            assertThat(r.category()).isEqualTo(FENCING_TOKEN_STALE);
            assertThat(r.getMessage()).contains("its last claim is token 9 of this process and the message is DONE");
        }

        @Test
        void the_right_token_of_another_process_is_not_this_process_s() {
            Message m = message(MessageState.CLAIMED, claim(OTHER, 7, now() + TTL));
            Refusal r = MailboxRules.finishRefused("m1", m, 7, "complete", ME, null);
            assertThat(r.category()).isEqualTo(FENCING_TOKEN_STALE);
            assertThat(r.getMessage())
                    .contains(": token 7 belongs to proc_other, not to this process and the message" + " is CLAIMED");
        }

        @Test
        void the_own_claim_of_a_finished_message_is_message_finished() {
            Message m = message(MessageState.DEAD, claim(ME, 7, now()));
            assertThat(MailboxRules.finishRefused("m1", m, 7, "complete", ME, lease(ME, 5))
                            .category())
                    .isEqualTo(MESSAGE_FINISHED);
        }

        @Test
        void the_own_claim_of_an_earlier_epoch_is_lost_to_the_new_epoch() {
            Message m = message(MessageState.CLAIMED, claim(ME, 7, now() + TTL));
            Refusal r = MailboxRules.finishRefused("m1", m, 7, "complete", ME, lease(ME, EPOCH_1));
            assertThat(r.category()).isEqualTo(FENCING_TOKEN_STALE);
            assertThat(r.getMessage())
                    .startsWith("Cannot complete message m1 with token 7: the claim was granted"
                            + " before the ledger's current epoch began");
        }

        @Test
        void the_own_claim_whose_host_is_gone_can_no_longer_finish() {
            Message m = message(MessageState.CLAIMED, claim(ME, 7, now() + TTL));
            Refusal none = MailboxRules.finishRefused("m1", m, 7, "complete", ME, null);
            assertThat(none.category()).isEqualTo(ACTOR_LEASE_LOST);
            assertThat(none.getMessage())
                    .isEqualTo("Cannot complete message m1 with token 7: this process no longer"
                            + " hosts actor a1 (no process hosts it now); its claim can no longer finish the message.");
            assertThat(none.currentToken()).isNull();
            Refusal other = MailboxRules.finishRefused("m1", m, 7, "dead-letter", ME, lease(OTHER, 12));
            assertThat(other.category()).isEqualTo(ACTOR_LEASE_LOST);
            assertThat(other.getMessage()).contains("(it is now hosted by proc_other with lease token 12)");
            assertThat(other.currentToken()).isEqualTo(12L);
            assertThat(other.presentedToken()).isEqualTo(7L);
        }
    }

    @Nested
    class Epochs {
        @Test
        void a_claim_is_of_an_older_epoch_only_when_the_lease_is_of_a_later_one() {
            long lastOfEpoch0 = FencingTokens.startOf(1) - 1;
            assertThat(MailboxRules.olderEpoch(lastOfEpoch0, lease(ME, EPOCH_1)))
                    .isTrue();
            assertThat(MailboxRules.olderEpoch(1, lease(ME, lastOfEpoch0))).isFalse();
            assertThat(MailboxRules.olderEpoch(EPOCH_1, lease(ME, EPOCH_1 + 1))).isFalse();
            assertThat(MailboxRules.olderEpoch(EPOCH_1, lease(ME, 5))).isFalse();
            assertThat(MailboxRules.olderEpoch(1, null)).isFalse();
        }
    }

    /** The claim decision on a live host: grant a new message; renew an own live claim; take over an expired one. */
    @Property(tries = 300)
    void a_live_host_s_claim_depends_only_on_the_claim_s_holder_and_expiry(
            @ForAll boolean own, @ForAll @LongRange(min = -10_000, max = 10_000) long expiryMinusNow) {
        Claim c = claim(own ? ME : OTHER, 4, now() + expiryMinusNow);
        Message m = message(MessageState.CLAIMED, c);
        boolean live = expiryMinusNow > 0;
        if (live && !own) {
            assertThat(Refused.by(() -> MailboxRules.decideClaim(m, "a1", lease(ME, 5), null, ME, now()))
                            .category())
                    .isEqualTo(MESSAGE_CLAIMED);
        } else {
            assertThat(MailboxRules.decideClaim(m, "a1", lease(ME, 5), null, ME, now()))
                    .isEqualTo(live ? ClaimKind.RENEW_OWN : ClaimKind.TAKE_OVER);
        }
    }
}
