package dev.sovereign.engine.supervisor;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.journal.EventKind;
import dev.sovereign.engine.mailbox.Claim;
import dev.sovereign.engine.mailbox.Message;
import dev.sovereign.engine.mailbox.MessageState;
import dev.sovereign.engine.testing.Contract;
import dev.sovereign.engine.testing.SettableClock;
import dev.sovereign.engine.testing.TempDatabase;
import dev.sovereign.engine.testing.TestBackend;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Step 2 of the tick: the supervisor sweeps expired mailbox claims, and only those. */
@Contract
abstract class SupervisorSweepContract {
    /** The backend this class's ledgers are on: each backend's module has its subclass (decision 0015). */
    protected abstract TestBackend backend();

    @RegisterExtension
    final TempDatabase temp = new TempDatabase(this::backend);

    private final SettableClock clock = new SettableClock();

    @Test
    void aTickSweepsOnlyExpiredClaimsAndASecondTickFindsNothing() {
        Engine worker = temp.open(clock);
        Engine supervisor = temp.open(clock);
        worker.actors().add("reviewer");
        worker.leases().acquire("reviewer", Duration.ofMinutes(10));
        Message shortOne = worker.mailbox().send("operator", "reviewer", "short", null, 3);
        Message longOne = worker.mailbox().send("operator", "reviewer", "long", null, 3);
        Claim expiring = worker.mailbox().claim(shortOne.id(), "reviewer", Duration.ofSeconds(5));
        Claim live = worker.mailbox().claim(longOne.id(), "reviewer", Duration.ofMinutes(5));

        clock.advance(Duration.ofSeconds(5));
        TickReport first = supervisor.supervisor().tick();

        assertThat(first.sweptClaims()).containsExactly(shortOne.id());
        assertThat(supervisor.mailbox().find(shortOne.id())).get().satisfies(m -> {
            assertThat(m.state()).isEqualTo(MessageState.NEW);
            assertThat(m.claim()).isNull();
        });
        assertThat(supervisor.mailbox().find(longOne.id())).get().satisfies(m -> {
            assertThat(m.state()).isEqualTo(MessageState.CLAIMED);
            assertThat(m.claim().token()).isEqualTo(live.token());
        });
        assertThat(supervisor.journal().forResource("message", shortOne.id()))
                .filteredOn(e -> e.kind() == EventKind.CLAIM_SWEPT)
                .singleElement()
                .satisfies(e -> assertThat(e.token()).isEqualTo(expiring.token()));

        TickReport second = supervisor.supervisor().tick();
        assertThat(second.sweptClaims()).isEmpty();
        assertThat(supervisor.mailbox().list()).hasSize(2);
    }
}
