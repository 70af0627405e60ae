package dev.sovereign.console.feature;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sovereign.console.shell.ShellViewModel;
import dev.sovereign.console.testing.ConsoleFixture;
import dev.sovereign.engine.Engine;
import dev.sovereign.engine.base.EngineConfig;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Issue 31, item 4: one definition of a stale process, one number everywhere. A worker that went silent is
 * stale; CLI identities that never beat are not. The supervisor's tick and the Processes page count the same.
 */
class StaleCountAgreesTest {
    @RegisterExtension
    final ConsoleFixture fx = new ConsoleFixture();

    @Test
    void theTickAndTheProcessesPageCountTheSameStaleProcesses() {
        fx.engine("worker 7301"); // never beats again: silent
        for (int i = 0; i < 3; i++) { // three CLI identities, as `lease acquire` leaves them: never meant to beat
            fx.track(Engine.open(EngineConfig.forDatabase(fx.file())
                    .clock(fx.clock)
                    .heartbeat(false)
                    .processKind("cli")
                    .processLabel("sovereign lease acquire")
                    .build()));
        }
        fx.clock.advance(Duration.ofSeconds(30));
        Engine supervisor = fx.engine("supervisor 7310");
        supervisor.supervisor().tick();

        ShellViewModel vm = fx.attachedShell();

        assertThat(vm.supervisor().lastTickProperty().get().staleProcesses())
                .as("the tick's count")
                .isEqualTo(1);
        assertThat(vm.processes().summaryProperty().get())
                .as("the Processes page's count")
                .startsWith("1 live \u00b7 1 stale \u00b7 3 CLI without heartbeat");
    }
}
