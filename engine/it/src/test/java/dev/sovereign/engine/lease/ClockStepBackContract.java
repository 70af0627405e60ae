package dev.sovereign.engine.lease;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.testing.Contract;
import dev.sovereign.engine.testing.SettableClock;
import dev.sovereign.engine.testing.TempDatabase;
import dev.sovereign.engine.testing.TestBackend;
import java.time.Clock;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A holder whose clock steps back (NTP, a VM resumed, an operator) renews with an earlier
 * {@code now} than the one it acquired with, so its lease row has {@code renewed_at < acquired_at}.
 * That is a clock step, not a corrupt ledger: the row must stay usable — above all it must stay
 * takeover-able once expired, or a holder dying while skewed would lock its actor out forever.
 * Found by the torture run (docs/reliability.md); see docs/decisions/0600.
 */
@Contract
abstract class ClockStepBackContract {
    /** The backend this class's ledgers are on: each backend's module has its subclass (decision 0015). */
    protected abstract TestBackend backend();

    @RegisterExtension
    final TempDatabase temp = new TempDatabase(this::backend);

    @Test
    void aLeaseRenewedAfterTheHoldersClockSteppedBackIsNotCorrupt() {
        SettableClock holderClock = new SettableClock();
        SettableClock otherClock = new SettableClock(holderClock.millis());
        Engine holder = temp.open(holderClock);
        Engine other = temp.open(otherClock);
        holder.actors().add("operator");
        Lease acquired = holder.leases().acquire("operator", Duration.ofSeconds(5));

        holderClock.advance(Duration.ofSeconds(-20));
        holder.heartbeatNow();
        Lease renewed = holder.leases().renew("operator", acquired.token());
        // the row's own renewal is the earlier time; a session that only moves forward keeps the beat already stamped
        assertThat(renewed.renewedAt()).isLessThanOrEqualTo(renewed.acquiredAt());
        assertThat(renewed.token()).isEqualTo(acquired.token());

        // the holder dies skewed; once the lease has expired for everyone else, it can be taken over
        holder.close();
        otherClock.advance(Duration.ofSeconds(1));
        Lease taken = other.leases().acquire("operator", Duration.ofSeconds(5));
        assertThat(taken.token()).isGreaterThan(acquired.token());
        assertThat(other.journal().rejections(10)).isEmpty();
    }

    @Test
    void aHolderWhoseClockSteppedBackCanStillClaimItsActorsMessages() {
        SettableClock clock = new SettableClock();
        Engine holder = temp.open(clock);
        Engine sender = temp.open(Clock.systemUTC());
        holder.actors().add("operator");
        holder.leases().acquire("operator", Duration.ofSeconds(30));
        clock.advance(Duration.ofSeconds(-10));
        holder.heartbeatNow();

        var message = sender.mailbox().send("someone", "operator", "hello", null);
        assertThat(holder.mailbox().claim(message.id(), "operator").token()).isPositive();
    }
}
