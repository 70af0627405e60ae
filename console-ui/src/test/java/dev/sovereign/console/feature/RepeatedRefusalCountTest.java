package dev.sovereign.console.feature;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sovereign.console.feature.rejections.RejectionsViewModel;
import dev.sovereign.console.shell.ShellViewModel;
import dev.sovereign.console.testing.ConsoleFixture;
import dev.sovereign.engine.Engine;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Issue 29 item 2 (decision 0019): a process refused a live lease again and again is counted, not journalled row by
 * row, and the Rejections page still says who was refused how often: the window's one row says the count as of the
 * latest poll, also when the page read that row before the repeats came (no new journal row announces them).
 */
class RepeatedRefusalCountTest {
    @RegisterExtension
    final ConsoleFixture fx = new ConsoleFixture();

    @Test
    void theWindowsRowSaysHowOftenItsProcessWasRefusedAsOfTheLatestPoll() {
        Engine holder = fx.engine("holder");
        Engine eager = fx.engine("eager");
        holder.actors().add("lock");
        holder.leases().acquire("lock", Duration.ofHours(1));
        fx.clock.advance(Duration.ofMillis(600_000L - Math.floorMod(fx.clock.millis(), 600_000L))); // a window's start
        assertThat(eager.leases().tryAcquire("lock", Duration.ofSeconds(5))).isEmpty();

        ShellViewModel shell = fx.attachedShell();
        RejectionsViewModel vm = shell.rejections();
        assertThat(vm.rows()).hasSize(1);
        assertThat(vm.sentence(vm.rows().get(0))).doesNotContain("Refused");
        int version = vm.repeatsVersionProperty().get();

        for (int i = 0; i < 6; i++) {
            fx.clock.advance(Duration.ofSeconds(20));
            assertThat(eager.leases().tryAcquire("lock", Duration.ofSeconds(5))).isEmpty();
        }
        shell.pollNow();
        assertThat(vm.rows()).as("still one journal row").hasSize(1);
        assertThat(vm.sentence(vm.rows().get(0)))
                .contains("Refused 7 times in this ten-minute window")
                .containsOnlyOnce("Refused");
        assertThat(vm.repeatsVersionProperty().get()).isGreaterThan(version);
        assertThat(vm.totalProperty().get()).as("every refusal counted").isEqualTo(7);
    }
}
