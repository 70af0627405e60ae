package dev.sovereign.engine.lease;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.base.Refusal;
import dev.sovereign.engine.base.RefusalCategory;
import dev.sovereign.engine.journal.FenceEvent;
import dev.sovereign.engine.mailbox.Message;
import dev.sovereign.engine.run.Assignment;
import dev.sovereign.engine.run.Attempt;
import dev.sovereign.engine.testing.Contract;
import dev.sovereign.engine.testing.Port;
import dev.sovereign.engine.testing.SettableClock;
import dev.sovereign.engine.testing.TempDatabase;
import dev.sovereign.engine.testing.TestBackend;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Every refused presentation of a token or pointer leaves a REJECTED row (contract §8/9, decision 0005): the
 * heartbeat's refused renewals, a stale release whose row is gone, a claim by a process that hosts nothing.
 * Real SQLite file, two engines (two processes for fencing), a settable clock.
 */
@Contract
abstract class RefusedRenewalJournalContract {
    /** The backend this class's ledgers are on: each backend's module has its subclass (decision 0015). */
    protected abstract TestBackend backend();

    @RegisterExtension
    final TempDatabase temp = new TempDatabase(this::backend);

    private final SettableClock clock = new SettableClock();

    private static List<FenceEvent> rejectionsBy(Engine reader, String process) {
        return reader.journal().rejections(100).stream()
                .filter(e -> process.equals(e.processIdentity()))
                .toList();
    }

    @Test
    void aBeatThatFindsOneLeaseTakenOverJournalsItAndKeepsTheOtherRenewal() {
        Engine a = temp.open(clock);
        Engine b = temp.open(clock);
        a.actors().add("short");
        a.actors().add("long");
        Lease lost = a.leases().acquire("short", Duration.ofSeconds(1));
        Lease kept = a.leases().acquire("long", Duration.ofSeconds(60));
        clock.advance(Duration.ofSeconds(2));
        Lease taker = b.leases().acquire("short", Duration.ofSeconds(30));

        Beat beat = a.heartbeatNow();

        assertThat(beat.lostLeases()).containsOnlyKeys("short");
        assertThat(beat.renewedLeases()).extracting(Lease::actor).containsExactly("long");
        assertThat(a.leases().current("long"))
                .get()
                .extracting(Lease::expiresAt)
                .isEqualTo(clock.millis() + 60_000);
        assertThat(rejectionsBy(b, a.processIdentity())).singleElement().satisfies(e -> {
            assertThat(e.category()).isEqualTo("actor_lease_lost");
            assertThat(e.resourceType()).isEqualTo("actor");
            assertThat(e.resourceId()).isEqualTo("short");
            assertThat(e.presentedToken()).isEqualTo(lost.token());
            assertThat(e.currentToken()).isEqualTo(taker.token());
            assertThat(e.detail()).contains("heartbeat");
        });
        assertThat(kept.token()).isNotEqualTo(lost.token());
        // the loss is journalled once: the next beat no longer presents the lost token
        a.heartbeatNow();
        assertThat(rejectionsBy(b, a.processIdentity())).hasSize(1);
    }

    @Test
    void aBeatWhoseAttemptLostItsFenceJournalsTheAttempt() {
        Engine a = temp.open(clock);
        Engine operator = temp.open(clock);
        a.actors().add("operator");
        Assignment x = a.runs().assign("operator", "scripted");
        Lease lease = a.leases().acquire("operator", Duration.ofSeconds(30));
        Attempt attempt = Port.runs(a).startAttempt(x.id(), lease.token(), 30_000);
        Port.grants(a).holdAttempt(attempt.id(), attempt.token());
        operator.runs().stealFence(x.id());

        Beat beat = a.heartbeatNow();

        assertThat(beat.lostAttempts()).containsOnlyKeys(attempt.id());
        assertThat(beat.renewedLeases()).extracting(Lease::actor).containsExactly("operator");
        assertThat(rejectionsBy(operator, a.processIdentity())).singleElement().satisfies(e -> {
            assertThat(e.category()).isEqualTo("execution_attempt_lost");
            assertThat(e.resourceType()).isEqualTo("assignment");
            assertThat(e.resourceId()).isEqualTo(x.id());
            assertThat(e.presentedToken()).isEqualTo(attempt.token());
        });
    }

    @Test
    void aLeaseThisProcessReleasedIsNotARejectionWhenAStaleBeatMissesIt() {
        Engine a = temp.open(clock);
        a.actors().add("operator");
        Lease lease = a.leases().acquire("operator", Duration.ofSeconds(30));
        assertThat(a.leases().release("operator", lease.token())).isTrue();
        Port.grants(a).holdLease(lease); // a beat that read its beliefs before the release dropped them

        Beat beat = a.heartbeatNow();

        assertThat(beat.lostLeases()).containsOnlyKeys("operator");
        assertThat(a.journal().rejections(10)).isEmpty();
    }

    @Test
    void aStaleReleaseWhoseRowIsGoneIsJournalled() {
        Engine a = temp.open(clock);
        Engine b = temp.open(clock);
        a.actors().add("operator");
        Lease old = a.leases().acquire("operator", Duration.ofSeconds(1));
        clock.advance(Duration.ofSeconds(2));
        Lease taken = b.leases().acquire("operator", Duration.ofSeconds(30));
        assertThat(b.leases().release("operator", taken.token())).isTrue();

        assertThat(a.leases().release("operator", old.token())).isFalse();

        assertThat(rejectionsBy(b, a.processIdentity())).singleElement().satisfies(e -> {
            assertThat(e.category()).isEqualTo("actor_lease_lost");
            assertThat(e.presentedToken()).isEqualTo(old.token());
            assertThat(e.currentToken()).isNull();
            assertThat(e.detail()).contains("no process holds the lease now");
        });
    }

    @Test
    void aClaimByAProcessThatHostsNothingIsJournalled() {
        Engine a = temp.open(clock);
        a.actors().add("operator");
        Message m = a.mailbox().send("someone", "operator", "hello", null, 1);

        assertThatThrownBy(() -> a.mailbox().claim(m.id(), "operator"))
                .isInstanceOfSatisfying(
                        Refusal.class, r -> assertThat(r.category()).isEqualTo(RefusalCategory.NOT_HOSTING));

        assertThat(a.journal().rejections(10)).singleElement().satisfies(e -> {
            assertThat(e.category()).isEqualTo("not_hosting");
            assertThat(e.resourceType()).isEqualTo("message");
            assertThat(e.resourceId()).isEqualTo(m.id());
            assertThat(e.processIdentity()).isEqualTo(a.processIdentity());
        });
    }
}
