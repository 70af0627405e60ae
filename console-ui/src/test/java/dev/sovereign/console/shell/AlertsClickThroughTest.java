package dev.sovereign.console.shell;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sovereign.console.fx.FxUiExecutor;
import dev.sovereign.console.fx.LinkedSentence;
import dev.sovereign.console.testing.ConsoleFixture;
import dev.sovereign.engine.Engine;
import dev.sovereign.engine.run.Assignment;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import javafx.scene.Node;
import javafx.scene.Scene;
import javafx.scene.control.Button;
import javafx.scene.control.Hyperlink;
import javafx.stage.Stage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;
import org.testfx.util.WaitForAsyncUtils;

/**
 * Issue 31, item 10, as the tester met it, in the real window over a real ledger with the real poller: "2
 * alerts" opens Runs with the oldest run that needs the operator selected, its id a link in the banner; a retry
 * and an acknowledgement each take one off the status bar's count (the same number as the Runs page's) and take
 * the banner about that run away.
 */
@ExtendWith(ApplicationExtension.class)
class AlertsClickThroughTest {
    private static final int WAIT_S = 20;

    @RegisterExtension
    final ConsoleFixture fx = new ConsoleFixture();

    private ShellViewModel vm;
    private Assignment older;
    private Assignment newer;

    private Assignment loseARun(String label, String actor) {
        Engine silent = fx.engine(label);
        silent.leases().acquire(actor, Duration.ofSeconds(5));
        Assignment run = fx.gatedRun(silent, actor, Duration.ofSeconds(5), label);
        fx.clock.advance(Duration.ofSeconds(6));
        try (Engine supervisor = fx.engine("supervisor of " + label)) {
            supervisor.supervisor().tick();
        }
        return run;
    }

    @Start
    void start(Stage stage) {
        fx.engine("admin").actors().add("archivist");
        fx.engine("admin 2").actors().add("indexer");
        older = loseARun("worker 7107", "archivist");
        newer = loseARun("worker 7108", "indexer");
        vm = fx.shell(new FxUiExecutor(), Duration.ofMillis(50));
        MainWindow window = new MainWindow(vm, () -> {});
        Scene scene = new Scene(window.create(), 1320, 820);
        window.install(scene);
        stage.setScene(scene);
        stage.show();
        vm.attach(fx.file());
    }

    private void awaitFx(String what, Callable<Boolean> condition) throws Exception {
        try {
            WaitForAsyncUtils.waitFor(
                    WAIT_S,
                    TimeUnit.SECONDS,
                    () -> WaitForAsyncUtils.asyncFx(condition).get());
        } catch (TimeoutException e) {
            String state = WaitForAsyncUtils.asyncFx(
                            () -> "page " + vm.pageProperty().get() + ", selected "
                                    + (vm.runs().selectedProperty().get() == null
                                            ? "nothing"
                                            : vm.runs().selectedProperty().get().id())
                                    + ", status bar count "
                                    + vm.banners().alerts().unseenProperty().get()
                                    + ", Runs' needs operator "
                                    + vm.runs().needsOperatorProperty().get()
                                    + ", banner " + vm.bannerProperty().get())
                    .get();
            throw new AssertionError("waited " + WAIT_S + " s for " + what + "; " + state, e);
        }
    }

    private static boolean shown(FxRobot robot, String id) {
        return robot.lookup(id).tryQuery().map(Node::isVisible).orElse(false);
    }

    private static String alertsText(FxRobot robot) {
        return robot.lookup("#status-alerts").queryAs(Button.class).getText();
    }

    private Hyperlink bannerLink(FxRobot robot, String id) {
        LinkedSentence said = robot.lookup("#banner-text").queryAs(LinkedSentence.class);
        return said.getChildren().stream()
                .filter(n -> n instanceof Hyperlink h && h.getText().equals(id))
                .map(Hyperlink.class::cast)
                .findFirst()
                .orElseThrow(() -> new AssertionError("no link to " + id + " in the banner: " + said.getText()));
    }

    @Test
    void theAlertsOpenTheRunSelectedAndFollowTheLedgerAsRunsAreSeenTo(FxRobot robot) throws Exception {
        awaitFx(
                "\"2 alerts\" in the status bar, as many as Runs says need the operator",
                () -> shown(robot, "#status-alerts")
                        && alertsText(robot).equals("2 alerts")
                        && vm.runs().needsOperatorProperty().get() == 2);

        robot.clickOn("#status-alerts");
        awaitFx(
                "Runs with the older run selected",
                () -> vm.pageProperty().get() == Page.RUNS
                        && vm.runs().selectedProperty().get() != null
                        && vm.runs().selectedProperty().get().id().equals(older.id())
                        && shown(robot, "#banner-holder"));
        assertThat(vm.bannerProperty().get().text()).contains(older.id());

        // the id in the banner is a link like every other id in a sentence
        robot.interact(() -> vm.pageProperty().set(Page.LEASES));
        robot.clickOn(bannerLink(robot, older.id()));
        awaitFx(
                "the banner's link back on the run",
                () -> vm.pageProperty().get() == Page.RUNS
                        && vm.runs().selectedProperty().get() != null
                        && vm.runs().selectedProperty().get().id().equals(older.id()));
        assertThat(alertsText(robot)).as("looking at a run does not see to it").isEqualTo("2 alerts");

        awaitFx(
                "Retry on",
                () -> !robot.lookup("#run-retry").queryAs(Button.class).isDisabled());
        robot.clickOn("#run-retry");
        awaitFx(
                "\"1 alert\" and no banner once the run is retried",
                () -> alertsText(robot).equals("1 alert")
                        && vm.runs().needsOperatorProperty().get() == 1
                        && vm.bannerProperty().get() == null
                        && !shown(robot, "#banner-holder"));

        robot.clickOn("#status-alerts");
        awaitFx(
                "Runs with the other run selected",
                () -> vm.pageProperty().get() == Page.RUNS
                        && vm.runs().selectedProperty().get() != null
                        && vm.runs().selectedProperty().get().id().equals(newer.id())
                        && shown(robot, "#banner-holder"));
        assertThat(bannerLink(robot, newer.id())).isNotNull();

        awaitFx(
                "Acknowledge on",
                () -> !robot.lookup("#run-acknowledge").queryAs(Button.class).isDisabled());
        robot.clickOn("#run-acknowledge");
        awaitFx(
                "no alert and no banner once the run is acknowledged",
                () -> !shown(robot, "#status-alerts")
                        && vm.banners().alerts().unseenProperty().get() == 0
                        && vm.runs().needsOperatorProperty().get() == 0
                        && vm.bannerProperty().get() == null
                        && !shown(robot, "#banner-holder"));
    }
}
