package dev.sovereign.console.feature;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sovereign.console.feature.supervisor.SupervisorViewModel;
import dev.sovereign.console.shell.ShellViewModel;
import dev.sovereign.console.testing.ConsoleFixture;
import dev.sovereign.engine.Engine;
import dev.sovereign.engine.admin.SupervisorTickRow;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Issue 31 (decision 0428): after Run a tick now (F6), the result line is this console's tick, with its time, and
 * the page's header names the newest tick of any supervisor and whose it was: this console's, or — when another
 * supervisor (the demo's) ticked a second later — that supervisor's, while the result line still tells this
 * console's own tick.
 */
class SupervisorTickWhoseTest {
    @RegisterExtension
    final ConsoleFixture fx = new ConsoleFixture();

    @Test
    void theResultLineIsThisConsolesTickAndTheHeaderSaysWhoseTheNewestWas() {
        fx.engine("worker 7701").close();
        ShellViewModel vm = fx.attachedShell();
        SupervisorViewModel sup = vm.supervisor();

        sup.tickNow();

        SupervisorTickRow own = sup.lastTickProperty().get();
        String ownAt = vm.formats().time(own.at());
        assertThat(sup.status().message())
                .isEqualTo("Tick done at " + ownAt
                        + " by this console: nothing to recover, no expired claims (0 expired leases reported).");
        assertThat(sup.headlineProperty().get())
                .startsWith("Last tick at " + ownAt + " ")
                .endsWith(" by this console (" + own.process().shortId() + ")");

        // the demo's own supervisor ticks a second later
        fx.clock.advance(Duration.ofSeconds(1));
        Engine demo = fx.engine("demo supervisor");
        demo.supervisor().tick();
        vm.pollNow();

        SupervisorTickRow newest = sup.lastTickProperty().get();
        assertThat(newest.seq()).isGreaterThan(own.seq());
        assertThat(sup.headlineProperty().get())
                .startsWith("Last tick at " + vm.formats().time(newest.at()) + " ")
                .endsWith(" by demo supervisor (" + newest.process().shortId() + ")")
                .doesNotContain("this console");
        assertThat(sup.status().message()).startsWith("Tick done at " + ownAt + " by this console: ");
    }
}
