package dev.sovereign.console.feature;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sovereign.console.shell.ShellViewModel;
import dev.sovereign.console.testing.ConsoleFixture;
import dev.sovereign.engine.Engine;
import dev.sovereign.engine.Ledgers;
import dev.sovereign.engine.admin.OperatorActions;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Issue 31, item 7: a stopped process's page does not list an expired lease under "Leases it holds now". */
class StoppedProcessLeasesTest {
    @RegisterExtension
    final ConsoleFixture fx = new ConsoleFixture();

    @Test
    void anExpiredLeaseIsNotHeldNow() throws Exception {
        Engine worker = fx.engine("worker 7501");
        worker.actors().add("operator");
        worker.leases().acquire("operator", Duration.ofSeconds(5));
        String id = worker.processIdentity();
        // killed, then marked stopped by an operator: its lease row stays until it expires or is taken over
        try (OperatorActions ops = Ledgers.openOperatorActions(fx.file(), fx.clock)) {
            ops.stopProcess(id);
        }
        ShellViewModel vm = fx.attachedShell();
        vm.navigation().openProcess(id);
        assertThat(vm.processPage().leases())
                .as("before expiry it still holds it")
                .hasSize(1);

        fx.clock.advance(Duration.ofSeconds(30));
        vm.pollNow();
        vm.tick(fx.clock.millis());

        assertThat(vm.ledger().snapshot().leases())
                .as("the row is still there, expired")
                .anyMatch(l -> l.holder() != null && l.holder().identity().equals(id));
        assertThat(vm.processPage().leases()).as("Leases it holds now").isEmpty();
    }
}
