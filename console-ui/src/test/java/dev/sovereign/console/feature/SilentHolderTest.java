package dev.sovereign.console.feature;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sovereign.console.shell.ShellViewModel;
import dev.sovereign.console.testing.ConsoleFixture;
import dev.sovereign.engine.Engine;
import dev.sovereign.engine.run.Assignment;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Issue 31, item 8: a run whose holder has been silent past its TTL says so on its page before any supervisor
 * tick, derived from what the ledger says (the attempt's own expiry), writing nothing.
 */
class SilentHolderTest {
    @RegisterExtension
    final ConsoleFixture fx = new ConsoleFixture();

    @Test
    void aRunningRunWhoseHolderWentSilentSaysSo() {
        Engine worker = fx.engine("worker 7601"); // heartbeat off: it beats only when told, so it goes silent
        worker.actors().add("operator");
        Assignment run = fx.gatedRun(worker, "operator", Duration.ofSeconds(5), "g1");
        ShellViewModel vm = fx.attachedShell();
        vm.runs().assignments().stream()
                .filter(a -> a.id().equals(run.id()))
                .findFirst()
                .ifPresent(vm.runs().selectedProperty()::set);
        assertThat(vm.runs().detailProperty().get()).contains("is RUNNING").doesNotContain("silent past");

        long seq = vm.ledger().snapshot().counts().assignments();
        fx.clock.advance(Duration.ofSeconds(20));
        vm.tick(fx.clock.millis()); // the clock alone, no new read

        assertThat(vm.runs().detailProperty().get())
                .as(vm.runs().detailProperty().get())
                .contains("is RUNNING")
                .contains("Its holder worker 7601 (", "has been silent past its TTL", "expired at 08:00:")
                .contains("until a supervisor tick recovers it");
        vm.pollNow();
        assertThat(vm.runs().selectedProperty().get().state())
                .as("nothing written")
                .isEqualTo("RUNNING");
        assertThat(vm.ledger().snapshot().counts().assignments()).isEqualTo(seq);
    }
}
