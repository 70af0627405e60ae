package dev.sovereign.console.shell;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sovereign.console.feature.leases.LeasesView;
import dev.sovereign.console.fx.FxUiExecutor;
import dev.sovereign.console.testing.ConsoleFixture;
import dev.sovereign.console.testing.ViewHarness;
import dev.sovereign.engine.Engine;
import dev.sovereign.engine.lease.Lease;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import javafx.scene.control.Label;
import javafx.stage.Stage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;
import org.testfx.util.WaitForAsyncUtils;

/** The real poller thread and the real FX executor: changes arrive by themselves, off the FX thread. */
@ExtendWith(ApplicationExtension.class)
class LivePollingTest {
    @RegisterExtension
    final ConsoleFixture fx = new ConsoleFixture();

    private ShellViewModel vm;
    private Engine worker;

    @Start
    void start(Stage stage) {
        worker = fx.engine("worker 7101");
        worker.actors().add("operator");
        vm = fx.shell(new FxUiExecutor(), Duration.ofMillis(40));
        ViewHarness.show(stage, new LeasesView(vm.leases(), vm.formats()).create());
        vm.attach(fx.file());
    }

    @Test
    void aLeaseTakenInAnotherConnectionShowsUpWithoutAnyoneAskingAndWithoutTheFxThreadReading(FxRobot robot)
            throws Exception {
        WaitForAsyncUtils.waitFor(
                10,
                TimeUnit.SECONDS,
                () -> vm.attachment().attachedProperty().get() != null
                        && robot.lookup("#state-operator").tryQuery().isPresent());
        assertThat(robot.lookup("#state-operator").queryAs(Label.class).getText())
                .isEqualTo("free");

        Lease lease = worker.leases().acquire("operator", Duration.ofSeconds(30));

        WaitForAsyncUtils.waitFor(
                10, TimeUnit.SECONDS, () -> vm.leases().rows().get(0).row().token() == lease.token());
        WaitForAsyncUtils.waitForFxEvents();
        assertThat(robot.lookup("#state-operator").queryAs(Label.class).getText())
                .isEqualTo("live");
        int snapshots = fx.reader.snapshots.get();
        int polls = fx.reader.dataVersions.get();
        WaitForAsyncUtils.waitFor(10, TimeUnit.SECONDS, () -> fx.reader.dataVersions.get() >= polls + 5);
        assertThat(fx.reader.snapshots.get()).isEqualTo(snapshots);
        assertThat(fx.reader.threads).containsOnly("console-poller");
    }
}
