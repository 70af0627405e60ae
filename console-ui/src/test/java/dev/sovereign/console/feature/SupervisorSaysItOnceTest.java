package dev.sovereign.console.feature;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sovereign.console.shell.ShellViewModel;
import dev.sovereign.console.testing.ConsoleFixture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Issue 31, item 22: after auto-tick starts, the supervisor page says "ticks every 1 s" once, not twice. */
class SupervisorSaysItOnceTest {
    @RegisterExtension
    final ConsoleFixture fx = new ConsoleFixture();

    @Test
    void theIntervalIsSaidOnce() {
        fx.engine("worker 7701").close();
        ShellViewModel vm = fx.attachedShell();
        vm.supervisor().startAutoTick();
        try {
            String page = vm.supervisor().status().message() + "\n"
                    + vm.supervisor().ownSupervisorProperty().get();
            assertThat(page).as(page).contains("ticks every");
            assertThat(page.split("ticks every", -1)).as(page).hasSize(2);
        } finally {
            vm.supervisor().toggleAutoTick();
        }
    }
}
