package dev.sovereign.engine.lease;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.base.Refusal;
import dev.sovereign.engine.base.RefusalCategory;
import dev.sovereign.engine.journal.EventKind;
import dev.sovereign.engine.journal.FenceEvent;
import dev.sovereign.engine.testing.Contract;
import dev.sovereign.engine.testing.SettableClock;
import dev.sovereign.engine.testing.TempDatabase;
import dev.sovereign.engine.testing.TestBackend;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

@Contract
abstract class ActorLeaseContract {
    /** The backend this class's ledgers are on: each backend's module has its subclass (decision 0015). */
    protected abstract TestBackend backend();

    @RegisterExtension
    final TempDatabase temp = new TempDatabase(this::backend);

    private final SettableClock clock = new SettableClock();
    private Engine a;
    private Engine b;

    @BeforeEach
    void open() {
        a = temp.open(clock);
        b = temp.open(clock);
        a.actors().add("operator");
    }

    @Test
    void twoEnginesInOneJvmAreTwoProcesses() {
        assertThat(a.processIdentity()).startsWith("proc_").isNotEqualTo(b.processIdentity());
    }

    @Test
    void aLiveLeaseRefusesASecondProcessNamingTheHolder() {
        Lease held = a.leases().acquire("operator", Duration.ofSeconds(10));

        assertThatThrownBy(() -> b.leases().acquire("operator", Duration.ofSeconds(10)))
                .isInstanceOfSatisfying(Refusal.class, r -> {
                    assertThat(r.category()).isEqualTo(RefusalCategory.ACTOR_LEASE_HELD);
                    assertThat(r.currentToken()).isEqualTo(held.token());
                    assertThat(r.getMessage()).contains(a.processIdentity()).contains("token " + held.token());
                });
        assertThat(b.journal().rejections(10))
                .singleElement()
                .satisfies(e -> assertThat(e.category()).isEqualTo("actor_lease_held"));
    }

    @Test
    void aLiveLeaseRefusesEvenItsOwnHolder() {
        a.leases().acquire("operator", Duration.ofSeconds(10));
        assertThatThrownBy(() -> a.leases().acquire("operator", Duration.ofSeconds(10)))
                .isInstanceOfSatisfying(
                        Refusal.class, r -> assertThat(r.category()).isEqualTo(RefusalCategory.ACTOR_LEASE_HELD));
    }

    @Test
    void anUnknownActorIsUnknownNotHeld() {
        assertThatThrownBy(() -> a.leases().acquire("ghost", Duration.ofSeconds(10)))
                .isInstanceOfSatisfying(
                        Refusal.class, r -> assertThat(r.category()).isEqualTo(RefusalCategory.UNKNOWN_ACTOR));
    }

    @Test
    void tokensStrictlyIncreaseAcrossAChainOfTakeovers() {
        List<Long> tokens = new ArrayList<>();
        Engine[] turn = {a, b};
        for (int i = 0; i < 10; i++) {
            tokens.add(turn[i % 2]
                    .leases()
                    .acquire("operator", Duration.ofSeconds(5))
                    .token());
            clock.advance(Duration.ofSeconds(6));
        }
        for (int i = 1; i < tokens.size(); i++) {
            assertThat(tokens.get(i)).isGreaterThan(tokens.get(i - 1));
        }
        assertThat(a.journal().since(0, 100))
                .filteredOn(e -> e.kind() == EventKind.LEASE_TAKEN_OVER)
                .hasSize(9);
    }

    @Test
    void anExpiredLeaseCanBeTakenOverByItsOwnHolderWithAGreaterToken() {
        Lease first = a.leases().acquire("operator", Duration.ofSeconds(5));
        clock.advance(Duration.ofSeconds(5));
        Lease second = a.leases().acquire("operator", Duration.ofSeconds(5));
        assertThat(second.token()).isGreaterThan(first.token());
    }

    @Test
    void renewalKeepsTheTokenAndExtendsTheExpiry() {
        Lease held = a.leases().acquire("operator", Duration.ofSeconds(5));
        clock.advance(Duration.ofSeconds(3));
        Lease renewed = a.leases().renew("operator", held.token(), Duration.ofSeconds(5));
        assertThat(renewed.token()).isEqualTo(held.token());
        assertThat(renewed.expiresAt()).isEqualTo(clock.millis() + 5_000);
    }

    @Test
    void aStaleRenewIsRefusedJournalledAndLeavesTheHolderAlone() {
        Lease old = a.leases().acquire("operator", Duration.ofSeconds(5));
        clock.advance(Duration.ofSeconds(6));
        Lease current = b.leases().acquire("operator", Duration.ofSeconds(5));

        assertThatThrownBy(() -> a.leases().renew("operator", old.token(), Duration.ofSeconds(5)))
                .isInstanceOfSatisfying(Refusal.class, r -> {
                    assertThat(r.category()).isEqualTo(RefusalCategory.ACTOR_LEASE_LOST);
                    assertThat(r.presentedToken()).isEqualTo(old.token());
                    assertThat(r.currentToken()).isEqualTo(current.token());
                });

        assertThat(a.leases().current("operator")).contains(current);
        FenceEvent rejected = a.journal().rejections(1).get(0);
        assertThat(rejected.category()).isEqualTo("actor_lease_lost");
        assertThat(rejected.presentedToken()).isEqualTo(old.token());
        assertThat(rejected.currentToken()).isEqualTo(current.token());
        assertThat(rejected.processIdentity()).isEqualTo(a.processIdentity());
    }

    @Test
    void aStaleReleaseNeverClearsTheNewerHolderAndIsJournalled() {
        Lease old = a.leases().acquire("operator", Duration.ofSeconds(5));
        clock.advance(Duration.ofSeconds(6));
        Lease current = b.leases().acquire("operator", Duration.ofSeconds(5));

        assertThat(a.leases().release("operator", old.token())).isFalse();

        assertThat(b.leases().current("operator")).contains(current);
        assertThat(a.journal().rejections(1)).singleElement().satisfies(e -> {
            assertThat(e.presentedToken()).isEqualTo(old.token());
            assertThat(e.currentToken()).isEqualTo(current.token());
        });
    }

    @Test
    void releaseByTheHolderFreesTheActor() {
        Lease held = a.leases().acquire("operator", Duration.ofSeconds(5));
        assertThat(a.leases().release("operator", held.token())).isTrue();
        assertThat(a.leases().current("operator")).isEmpty();
        assertThat(b.leases().acquire("operator", Duration.ofSeconds(5)).token())
                .isGreaterThan(held.token());
    }

    @Test
    void acquireOrRenewRenewsOwnLeaseAndAcquiresOtherwise() {
        Lease first = a.leases().acquireOrRenew("operator", Duration.ofSeconds(5));
        Lease again = a.leases().acquireOrRenew("operator", Duration.ofSeconds(5));
        assertThat(again.token()).isEqualTo(first.token());
        assertThatThrownBy(() -> b.leases().acquireOrRenew("operator", Duration.ofSeconds(5)))
                .isInstanceOfSatisfying(
                        Refusal.class, r -> assertThat(r.category()).isEqualTo(RefusalCategory.ACTOR_LEASE_HELD));
    }

    @Test
    void theHeartbeatKeepsALeaseAliveFarBeyondItsTtlAndTheListenerFiresWhenItIsLost() {
        List<GrantLost> lost = new ArrayList<>();
        a.addGrantLossListener(lost::add);
        Lease held = a.leases().acquire("operator", Duration.ofSeconds(5));
        for (int i = 0; i < 20; i++) {
            clock.advance(Duration.ofSeconds(2));
            a.heartbeatNow();
            assertThatThrownBy(() -> b.leases().acquire("operator", Duration.ofSeconds(5)))
                    .isInstanceOf(Refusal.class);
        }
        assertThat(a.leases().current("operator"))
                .get()
                .extracting(Lease::token)
                .isEqualTo(held.token());

        // the heartbeat stops; the lease expires; another process takes over
        clock.advance(Duration.ofSeconds(6));
        Lease taken = b.leases().acquire("operator", Duration.ofSeconds(5));
        assertThat(taken.token()).isGreaterThan(held.token());

        assertThat(lost).isEmpty();
        a.heartbeatNow();
        assertThat(lost).containsExactly(new GrantLost("actor", "operator", held.token()));
        assertThat(a.leases().held()).isEmpty();
    }

    @Test
    void aClockJumpAllowsAnEarlyTakeoverButNeverTwoWriters() {
        Lease old = a.leases().acquire("operator", Duration.ofSeconds(30));
        // b's clock jumps an hour ahead: it sees the lease expired and takes over early
        SettableClock jumped = new SettableClock(clock.millis() + 3_600_000);
        Engine skewed = temp.open(jumped);
        Lease early = skewed.leases().acquire("operator", Duration.ofSeconds(30));
        assertThat(early.token()).isGreaterThan(old.token());

        // the old holder, whose own clock says its lease is live, can no longer renew or release
        assertThatThrownBy(() -> a.leases().renew("operator", old.token()))
                .isInstanceOfSatisfying(
                        Refusal.class, r -> assertThat(r.category()).isEqualTo(RefusalCategory.ACTOR_LEASE_LOST));
        assertThat(a.leases().release("operator", old.token())).isFalse();
        a.heartbeatNow();
        assertThat(a.leases().current("operator"))
                .get()
                .extracting(Lease::process)
                .isEqualTo(skewed.processIdentity());
    }

    @Test
    void heartbeatsKeepALeaseAliveWithoutAJournalRowPerBeat() {
        Lease granted = a.leases().acquire("operator", Duration.ofSeconds(5));
        for (int i = 0; i < 50; i++) {
            clock.advance(Duration.ofMillis(500));
            a.heartbeatNow();
        }
        // 25 s of beats every 0.5 s keep a 5 s lease: still a's, same token, expiring a TTL after the last beat
        Lease now = a.leases().current("operator").orElseThrow();
        assertThat(now.token()).isEqualTo(granted.token());
        assertThat(now.expiresAt()).isEqualTo(clock.millis() + 5_000);
        assertThatThrownBy(() -> b.leases().acquire("operator", Duration.ofSeconds(5)))
                .isInstanceOfSatisfying(
                        Refusal.class, r -> assertThat(r.category()).isEqualTo(RefusalCategory.ACTOR_LEASE_HELD));
        // 50 beats: renewals journalled at most once per 5 s (decision 0003), or not per lease at all where the
        // beat renews the holder's session instead of the rows (decision 0509)
        long renewedEvents = a.journal().since(0, 1000).stream()
                .filter(e -> e.kind() == EventKind.LEASE_RENEWED)
                .count();
        assertThat(renewedEvents).isLessThanOrEqualTo(6L);
    }
}
