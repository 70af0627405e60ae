package dev.sovereign.console.feature;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sovereign.console.shell.ShellViewModel;
import dev.sovereign.console.testing.ConsoleFixture;
import dev.sovereign.engine.Engine;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Issue 17, item 11: the supervisor's report names the processes that went silent recently, not the long dead
 * (decision 0421) — with a real ledger holding a process stopped long ago, one killed long ago (never stopped)
 * and one silent for seconds, and a real supervisor tick.
 */
class SupervisorReportLongDeadTest {
    @RegisterExtension
    final ConsoleFixture fx = new ConsoleFixture();

    @Test
    void theReportNamesTheRecentlySilentAndOnlyCountsTheLongDead() {
        Engine stoppedLongAgo = fx.engine("worker 7201");
        stoppedLongAgo.close(); // a clean stop: marked stopped
        Engine killed = fx.engine("worker 7202"); // never beats, never stops: as if killed
        fx.clock.advance(Duration.ofMinutes(20));
        Engine recent = fx.engine("worker 7203");
        fx.clock.advance(Duration.ofSeconds(10)); // recent misses its beats: stale for a few seconds
        Engine supervisor = fx.engine("supervisor 7210");
        supervisor.supervisor().tick();

        ShellViewModel vm = fx.attachedShell();

        assertThat(vm.supervisor().lastTickProperty().get().staleProcesses())
                .as("the tick itself still reports every stale process")
                .isEqualTo(2);
        assertThat(vm.supervisor().reportLines())
                .anyMatch(l -> l.startsWith("Process worker 7203 (") && l.contains("is stale"))
                .noneMatch(l -> l.contains("7202")
                        || l.contains(killed.processIdentity().substring(0, 13)))
                .noneMatch(l -> l.contains("7201"))
                .contains("1 more process has been silent for more than 5 minutes (never stopped: a crash or a kill);"
                        + " not listed again. The Processes page shows it; Stop process marks it stopped.");
        // its links name the supervisor and the recently silent process, not the long dead
        assertThat(vm.supervisor().reportLinks())
                .extracting(l -> l.id())
                .containsExactly(supervisor.processIdentity(), recent.processIdentity());
    }
}
