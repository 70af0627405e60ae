package dev.sovereign.engine.mailbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.base.Refusal;
import dev.sovereign.engine.base.RefusalCategory;
import dev.sovereign.engine.journal.EventKind;
import dev.sovereign.engine.journal.FenceEvent;
import dev.sovereign.engine.lease.Lease;
import dev.sovereign.engine.testing.Contract;
import dev.sovereign.engine.testing.SettableClock;
import dev.sovereign.engine.testing.TempDatabase;
import dev.sovereign.engine.testing.TestBackend;
import java.time.Duration;
import java.util.List;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

@Contract
abstract class MailboxContract {
    /** The backend this class's ledgers are on: each backend's module has its subclass (decision 0015). */
    protected abstract TestBackend backend();

    static final Duration TTL = Duration.ofSeconds(5);

    @RegisterExtension
    final TempDatabase temp = new TempDatabase(this::backend);

    private final SettableClock clock = new SettableClock();
    Engine a;
    private Engine b;

    @BeforeEach
    void open() {
        a = temp.open(temp.config(clock).defaultTtl(Duration.ofSeconds(7)).build());
        b = temp.open(clock);
        a.actors().add("operator");
        a.actors().add("reviewer");
    }

    private static void assertRefused(ThrowingCallable call, RefusalCategory category) {
        assertThatThrownBy(call)
                .isInstanceOfSatisfying(
                        Refusal.class, r -> assertThat(r.category()).isEqualTo(category));
    }

    private List<FenceEvent> events(String message, EventKind kind) {
        return a.journal().forResource("message", message).stream()
                .filter(e -> e.kind() == kind)
                .toList();
    }

    // ---- send and read ----

    @Test
    void aMessageToAKnownActorArrivesNewInItsInboxAndIsJournalled() {
        Message m = a.mailbox().send("someone-outside", "operator", "hello", "body");

        assertThat(m.state()).isEqualTo(MessageState.NEW);
        assertThat(m.claim()).isNull();
        assertThat(m.maxRetries()).isEqualTo(Mailbox.DEFAULT_MAX_RETRIES);
        assertThat(b.mailbox().inbox("operator")).containsExactly(m);
        assertThat(b.mailbox().inbox("reviewer")).isEmpty();
        assertThat(b.mailbox().find(m.id())).contains(m);
        assertThat(events(m.id(), EventKind.MESSAGE_SENT))
                .singleElement()
                .satisfies(e -> assertThat(e.actorId()).isEqualTo("operator"));
    }

    @Test
    void aMessageToAnUnknownActorIsRefused() {
        assertRefused(() -> a.mailbox().send("x", "ghost", "hello", null), RefusalCategory.UNKNOWN_ACTOR);
        assertRefused(() -> a.mailbox().send("", "operator", "hello", null), RefusalCategory.INVALID_ARGUMENT);
        assertRefused(() -> a.mailbox().send("x", "operator", "hello", null, -1), RefusalCategory.INVALID_ARGUMENT);
        assertThat(a.mailbox().list()).isEmpty();
    }

    @Test
    void theInboxIsOldestFirstAndLeavesOutFinishedMessages() {
        Lease lease = a.leases().acquire("operator", TTL);
        Message first = a.mailbox().send("x", "operator", "1", null);
        clock.advance(Duration.ofMillis(1));
        Message second = a.mailbox().send("x", "operator", "2", null);
        clock.advance(Duration.ofMillis(1));
        Message third = a.mailbox().send("x", "operator", "3", null);
        a.mailbox()
                .complete(
                        second.id(), a.mailbox().claim(second.id(), "operator").token());

        assertThat(a.mailbox().inbox("operator")).extracting(Message::id).containsExactly(first.id(), third.id());
        assertThat(a.mailbox().list()).extracting(Message::id).containsExactly(third.id(), second.id(), first.id());
        assertThat(lease.token()).isPositive();
        assertRefused(() -> a.mailbox().inbox("ghost"), RefusalCategory.UNKNOWN_ACTOR);
    }

    // ---- who may claim ----

    @Test
    void onlyTheRecipientMayClaim() {
        a.leases().acquire("reviewer", TTL);
        Message m = a.mailbox().send("x", "operator", "for the operator", null);

        assertRefused(() -> a.mailbox().claim(m.id(), "reviewer"), RefusalCategory.NOT_RECIPIENT);
        assertThat(a.mailbox().find(m.id())).get().extracting(Message::state).isEqualTo(MessageState.NEW);
    }

    @Test
    void aProcessNotHostingTheActorCannotClaim() {
        Message m = a.mailbox().send("x", "operator", "hello", null);
        // nobody hosts the actor
        assertRefused(() -> b.mailbox().claim(m.id(), "operator"), RefusalCategory.NOT_HOSTING);
        // another process hosts it
        a.leases().acquire("operator", TTL);
        assertRefused(() -> b.mailbox().claim(m.id(), "operator"), RefusalCategory.NOT_HOSTING);
        assertThat(a.mailbox().find(m.id())).get().extracting(Message::state).isEqualTo(MessageState.NEW);
    }

    @Test
    void aProcessWhoseLeaseExpiredOrWasTakenOverCannotClaimAndTheRefusalIsJournalled() {
        Message m = a.mailbox().send("x", "operator", "hello", null);
        Lease old = a.leases().acquire("operator", TTL);
        clock.advance(TTL);
        // expired, not yet taken over
        assertRefused(() -> a.mailbox().claim(m.id(), "operator"), RefusalCategory.ACTOR_LEASE_LOST);
        Lease taken = b.leases().acquire("operator", TTL);
        // taken over
        assertThatThrownBy(() -> a.mailbox().claim(m.id(), "operator")).isInstanceOfSatisfying(Refusal.class, r -> {
            assertThat(r.category()).isEqualTo(RefusalCategory.ACTOR_LEASE_LOST);
            assertThat(r.presentedToken()).isEqualTo(old.token());
            assertThat(r.currentToken()).isEqualTo(taken.token());
        });
        assertThat(a.journal().rejections(10))
                .hasSize(2)
                .allSatisfy(e -> assertThat(e.resourceId()).isEqualTo(m.id()));
        assertThat(b.mailbox().claim(m.id(), "operator").process()).isEqualTo(b.processIdentity());
    }

    @Test
    void anUnknownMessageIsMissing() {
        a.leases().acquire("operator", TTL);
        assertRefused(() -> a.mailbox().claim("msg_nope", "operator"), RefusalCategory.MESSAGE_MISSING);
        assertRefused(() -> a.mailbox().complete("msg_nope", 1), RefusalCategory.MESSAGE_MISSING);
        assertRefused(() -> a.mailbox().deadLetter("msg_nope", 1), RefusalCategory.MESSAGE_MISSING);
        assertThat(a.mailbox().find("msg_nope")).isEmpty();
    }

    // ---- tokens ----

    @Test
    void aClaimLastsTheEnginesDefaultTtlUnlessTold() {
        a.leases().acquire("operator", TTL);
        Message m = a.mailbox().send("x", "operator", "hello", null);
        Message n = a.mailbox().send("x", "operator", "hello", null);

        assertThat(a.mailbox().claim(m.id(), "operator").expiresAt()).isEqualTo(clock.millis() + 7_000);
        assertThat(a.mailbox().claim(n.id(), "operator", Duration.ofSeconds(2)).expiresAt())
                .isEqualTo(clock.millis() + 2_000);
        assertRefused(() -> a.mailbox().claim(n.id(), "operator", Duration.ZERO), RefusalCategory.INVALID_ARGUMENT);
    }

    @Test
    void aSameOwnerUnexpiredReClaimReturnsTheSameTokenAndRenewsTheClaim() {
        a.leases().acquire("operator", Duration.ofSeconds(60));
        Message m = a.mailbox().send("x", "operator", "hello", null);
        Claim first = a.mailbox().claim(m.id(), "operator", TTL);
        clock.advance(Duration.ofSeconds(4));
        Claim again = a.mailbox().claim(m.id(), "operator", TTL);

        assertThat(again.token()).isEqualTo(first.token());
        assertThat(again.process()).isEqualTo(a.processIdentity());
        assertThat(again.expiresAt()).isEqualTo(clock.millis() + 5_000);
        // renewed: still live past the first expiry, so the sweep leaves it alone
        clock.advance(Duration.ofSeconds(2));
        assertThat(b.mailbox().sweepExpiredClaims()).isEmpty();
        assertThat(a.mailbox().complete(m.id(), first.token()).state()).isEqualTo(MessageState.DONE);
    }

    /** Both backends alike (decision 0011): a re-claim with a shorter TTL keeps the expiry already promised. */
    @Test
    void aReClaimWithAShorterTtlNeverShortensTheClaim() {
        a.leases().acquire("operator", Duration.ofSeconds(60));
        Message m = a.mailbox().send("x", "operator", "hello", null);
        Claim first = a.mailbox().claim(m.id(), "operator", Duration.ofSeconds(30));
        clock.advance(Duration.ofSeconds(1));
        Claim again = a.mailbox().claim(m.id(), "operator", Duration.ofSeconds(2));

        assertThat(again.token()).isEqualTo(first.token());
        assertThat(again.expiresAt()).isEqualTo(first.expiresAt());
        clock.advance(Duration.ofSeconds(5));
        assertThat(b.mailbox().sweepExpiredClaims())
                .as("still live until the first promise")
                .isEmpty();
    }

    @Test
    void aSameOwnerExpiredReClaimReturnsAGreaterTokenAndTheOldOneCannotComplete() {
        a.leases().acquire("operator", Duration.ofSeconds(60));
        Message m = a.mailbox().send("x", "operator", "hello", null);
        Claim first = a.mailbox().claim(m.id(), "operator", TTL);
        clock.advance(TTL);
        Claim fresh = a.mailbox().claim(m.id(), "operator", TTL);

        assertThat(fresh.token()).isGreaterThan(first.token());
        assertThat(fresh.process()).isEqualTo(a.processIdentity());

        assertThatThrownBy(() -> a.mailbox().complete(m.id(), first.token()))
                .isInstanceOfSatisfying(Refusal.class, r -> {
                    assertThat(r.category()).isEqualTo(RefusalCategory.FENCING_TOKEN_STALE);
                    assertThat(r.presentedToken()).isEqualTo(first.token());
                    assertThat(r.currentToken()).isEqualTo(fresh.token());
                });
        FenceEvent rejected = a.journal().rejections(1).get(0);
        assertThat(rejected.resourceType()).isEqualTo("message");
        assertThat(rejected.resourceId()).isEqualTo(m.id());
        assertThat(rejected.category()).isEqualTo("fencing_token_stale");
        assertThat(rejected.presentedToken()).isEqualTo(first.token());
        assertThat(rejected.currentToken()).isEqualTo(fresh.token());
        assertThat(rejected.processIdentity()).isEqualTo(a.processIdentity());
        assertThat(a.mailbox().find(m.id())).get().extracting(Message::state).isEqualTo(MessageState.CLAIMED);

        assertThat(a.mailbox().complete(m.id(), fresh.token()).state()).isEqualTo(MessageState.DONE);
        assertThat(events(m.id(), EventKind.CLAIM_GRANTED))
                .extracting(FenceEvent::token)
                .containsExactly(first.token(), fresh.token());
        assertThat(events(m.id(), EventKind.MESSAGE_DONE))
                .singleElement()
                .extracting(FenceEvent::token)
                .isEqualTo(fresh.token());
    }

    @Test
    void aStaleTokenCannotDeadLetterAMessage() {
        a.leases().acquire("operator", Duration.ofSeconds(60));
        Message m = a.mailbox().send("x", "operator", "hello", null);
        Claim first = a.mailbox().claim(m.id(), "operator", TTL);
        clock.advance(TTL);
        Claim fresh = a.mailbox().claim(m.id(), "operator", TTL);

        assertRefused(() -> a.mailbox().deadLetter(m.id(), first.token()), RefusalCategory.FENCING_TOKEN_STALE);

        Message after = a.mailbox().find(m.id()).orElseThrow();
        assertThat(after.state()).isEqualTo(MessageState.CLAIMED);
        assertThat(after.retryCount()).isZero();
        assertThat(after.claim().token()).isEqualTo(fresh.token());
        assertThat(a.journal().rejections(1)).singleElement().satisfies(e -> {
            assertThat(e.category()).isEqualTo("fencing_token_stale");
            assertThat(e.presentedToken()).isEqualTo(first.token());
        });
    }

    @Test
    void anotherProcessesLiveClaimIsRefusedAsClaimedAndJournalled() {
        Lease lease = a.leases().acquire("operator", TTL);
        Message m = a.mailbox().send("x", "operator", "hello", null);
        Claim held = a.mailbox().claim(m.id(), "operator", Duration.ofSeconds(30));
        clock.advance(TTL);
        b.leases().acquire("operator", TTL);

        assertThatThrownBy(() -> b.mailbox().claim(m.id(), "operator")).isInstanceOfSatisfying(Refusal.class, r -> {
            assertThat(r.category()).isEqualTo(RefusalCategory.MESSAGE_CLAIMED);
            assertThat(r.currentToken()).isEqualTo(held.token());
        });
        assertThat(b.journal().rejections(1))
                .singleElement()
                .satisfies(e -> assertThat(e.category()).isEqualTo("message_claimed"));
        assertThat(lease.token()).isLessThan(held.token());
    }

    @Test
    void anExpiredClaimOfAnotherProcessIsTakenOverWithAGreaterTokenAndTheOldHolderIsFenced() {
        a.leases().acquire("operator", TTL);
        Message m = a.mailbox().send("x", "operator", "hello", null);
        Claim old = a.mailbox().claim(m.id(), "operator", TTL);
        clock.advance(TTL);
        b.leases().acquire("operator", TTL);
        Claim taken = b.mailbox().claim(m.id(), "operator", TTL);

        assertThat(taken.token()).isGreaterThan(old.token());
        assertThat(taken.process()).isEqualTo(b.processIdentity());
        assertRefused(() -> a.mailbox().complete(m.id(), old.token()), RefusalCategory.FENCING_TOKEN_STALE);
        assertThat(b.mailbox().complete(m.id(), taken.token()).claim().process())
                .isEqualTo(b.processIdentity());
    }

    @Test
    void aHolderWhoseLeaseWasTakenOverCannotCompleteEvenWithItsCurrentClaimToken() {
        a.leases().acquire("operator", TTL);
        Message m = a.mailbox().send("x", "operator", "hello", null);
        Claim claim = a.mailbox().claim(m.id(), "operator", Duration.ofSeconds(60));
        clock.advance(TTL);
        Lease taken = b.leases().acquire("operator", TTL);

        // the claim itself is still live and current: only the lease pointer fences the old holder
        assertThatThrownBy(() -> a.mailbox().complete(m.id(), claim.token()))
                .isInstanceOfSatisfying(Refusal.class, r -> {
                    assertThat(r.category()).isEqualTo(RefusalCategory.ACTOR_LEASE_LOST);
                    assertThat(r.presentedToken()).isEqualTo(claim.token());
                    assertThat(r.currentToken()).isEqualTo(taken.token());
                });
        assertRefused(() -> a.mailbox().deadLetter(m.id(), claim.token()), RefusalCategory.ACTOR_LEASE_LOST);
        assertThat(a.journal().rejections(10))
                .hasSize(2)
                .allSatisfy(e -> assertThat(e.category()).isEqualTo("actor_lease_lost"));
        Message after = a.mailbox().find(m.id()).orElseThrow();
        assertThat(after.state()).isEqualTo(MessageState.CLAIMED);
        assertThat(after.retryCount()).isZero();
    }

    @Test
    void aTokenOfAnotherProcessCannotFinishTheMessage() {
        a.leases().acquire("operator", TTL);
        Message m = a.mailbox().send("x", "operator", "hello", null);
        Claim claim = a.mailbox().claim(m.id(), "operator");

        assertRefused(() -> b.mailbox().complete(m.id(), claim.token()), RefusalCategory.FENCING_TOKEN_STALE);
        assertThat(a.mailbox().find(m.id())).get().extracting(Message::state).isEqualTo(MessageState.CLAIMED);
    }

    // ---- retries and terminal states ----

    @Test
    void retriesReachDeadAfterMaxRetries() {
        a.leases().acquire("operator", Duration.ofSeconds(60));
        Message m = a.mailbox().send("x", "operator", "flaky", null, 2);

        Message r1 = a.mailbox()
                .deadLetter(m.id(), a.mailbox().claim(m.id(), "operator").token());
        assertThat(r1.state()).isEqualTo(MessageState.NEW);
        assertThat(r1.retryCount()).isEqualTo(1);
        assertThat(r1.claim()).isNull();
        Message r2 = a.mailbox()
                .deadLetter(m.id(), a.mailbox().claim(m.id(), "operator").token());
        assertThat(r2.state()).isEqualTo(MessageState.NEW);
        assertThat(r2.retryCount()).isEqualTo(2);
        long last = a.mailbox().claim(m.id(), "operator").token();
        Message dead = a.mailbox().deadLetter(m.id(), last);

        assertThat(dead.state()).isEqualTo(MessageState.DEAD);
        assertThat(dead.retryCount()).isEqualTo(2);
        assertThat(dead.claim().token()).isEqualTo(last);
        assertThat(events(m.id(), EventKind.MESSAGE_RETRIED)).hasSize(2);
        assertThat(events(m.id(), EventKind.MESSAGE_DEAD))
                .singleElement()
                .extracting(FenceEvent::token)
                .isEqualTo(last);
        assertThat(a.mailbox().inbox("operator")).isEmpty();
    }

    @Test
    void zeroMaxRetriesMeansTheFirstDeadLetterIsFinal() {
        a.leases().acquire("operator", TTL);
        Message m = a.mailbox().send("x", "operator", "once", null, 0);
        assertThat(a.mailbox()
                        .deadLetter(
                                m.id(), a.mailbox().claim(m.id(), "operator").token())
                        .state())
                .isEqualTo(MessageState.DEAD);
    }

    @Test
    void doneAndDeadMessagesCannotBeCompletedRetriedClaimedOrSwept() {
        a.leases().acquire("operator", Duration.ofSeconds(60));
        Message done = a.mailbox().send("x", "operator", "done", null);
        long doneToken = a.mailbox().claim(done.id(), "operator", TTL).token();
        a.mailbox().complete(done.id(), doneToken);
        Message dead = a.mailbox().send("x", "operator", "dead", null, 0);
        long deadToken = a.mailbox().claim(dead.id(), "operator", TTL).token();
        a.mailbox().deadLetter(dead.id(), deadToken);
        long seq = a.journal().lastSeq();

        for (String id : List.of(done.id(), dead.id())) {
            long token = id.equals(done.id()) ? doneToken : deadToken;
            assertRefused(() -> a.mailbox().complete(id, token), RefusalCategory.MESSAGE_FINISHED);
            assertRefused(() -> a.mailbox().deadLetter(id, token), RefusalCategory.MESSAGE_FINISHED);
            assertRefused(() -> a.mailbox().claim(id, "operator"), RefusalCategory.MESSAGE_FINISHED);
            // an older token is still a stale one, and is journalled as such
            assertRefused(() -> a.mailbox().complete(id, token - 1), RefusalCategory.FENCING_TOKEN_STALE);
        }
        clock.advance(Duration.ofMinutes(5));
        assertThat(a.mailbox().sweepExpiredClaims()).isEmpty();

        assertThat(a.mailbox().find(done.id())).get().extracting(Message::state).isEqualTo(MessageState.DONE);
        assertThat(a.mailbox().find(dead.id())).get().extracting(Message::state).isEqualTo(MessageState.DEAD);
        // only the two stale-token attempts wrote anything: their rejections
        assertThat(a.journal().since(seq, 100))
                .extracting(FenceEvent::kind)
                .containsExactly(EventKind.REJECTED, EventKind.REJECTED);
    }

    // ---- the sweep ----

    @Test
    void theSweepReturnsOnlyExpiredClaimsToNewClearingEveryClaimFieldAndJournalsEach() {
        a.leases().acquire("operator", Duration.ofSeconds(60));
        Message shortClaim = a.mailbox().send("x", "operator", "short", null);
        Message longClaim = a.mailbox().send("x", "operator", "long", null);
        Message unclaimed = a.mailbox().send("x", "operator", "new", null);
        Claim expiring = a.mailbox().claim(shortClaim.id(), "operator", Duration.ofSeconds(2));
        Claim live = a.mailbox().claim(longClaim.id(), "operator", Duration.ofSeconds(30));
        clock.advance(Duration.ofSeconds(2));

        List<Claim> swept = b.mailbox().sweepExpiredClaims();

        assertThat(swept).containsExactly(expiring);
        Message after = a.mailbox().find(shortClaim.id()).orElseThrow();
        assertThat(after.state()).isEqualTo(MessageState.NEW);
        assertThat(after.claim()).isNull();
        assertThat(after.retryCount()).isZero();
        assertThat(a.mailbox().find(longClaim.id()).orElseThrow().claim()).isEqualTo(live);
        assertThat(a.mailbox().find(unclaimed.id()))
                .get()
                .extracting(Message::state)
                .isEqualTo(MessageState.NEW);
        assertThat(events(shortClaim.id(), EventKind.CLAIM_SWEPT))
                .singleElement()
                .satisfies(e -> {
                    assertThat(e.token()).isEqualTo(expiring.token());
                    assertThat(e.processIdentity()).isEqualTo(b.processIdentity());
                });
        // idempotent, and the swept claim's token is stale from now on
        assertThat(b.mailbox().sweepExpiredClaims()).isEmpty();
        assertRefused(
                () -> a.mailbox().complete(shortClaim.id(), expiring.token()), RefusalCategory.FENCING_TOKEN_STALE);
        assertThat(a.mailbox().claim(shortClaim.id(), "operator").token()).isGreaterThan(live.token());
    }
}
