package dev.sovereign.console.shell;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sovereign.console.feature.runs.RunsViewModel;
import dev.sovereign.console.fx.FxUiExecutor;
import dev.sovereign.console.fx.LinkedSentence;
import dev.sovereign.console.ledger.FilterChoice;
import dev.sovereign.console.testing.ConsoleFixture;
import dev.sovereign.engine.Engine;
import dev.sovereign.engine.admin.AssignmentRow;
import dev.sovereign.engine.run.Assignment;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import javafx.geometry.Bounds;
import javafx.scene.Node;
import javafx.scene.Scene;
import javafx.scene.control.Button;
import javafx.scene.control.Hyperlink;
import javafx.scene.control.Labeled;
import javafx.scene.control.TableRow;
import javafx.scene.control.TableView;
import javafx.stage.Stage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;
import org.testfx.util.WaitForAsyncUtils;

/**
 * Issue 31, items 10 and 18, as the tester met them, in the real window over a real ledger with the real poller:
 * a worker-lost run and a blocked one need the operator (item 18: not only worker-lost ones), "2 alerts" — the same
 * number as the navigation's badge for Runs and its "Needs action" filter — opens Runs with the oldest of them
 * selected and scrolled into view past thirty newer runs, its id a link in the banner that opens it; a retry takes
 * one off every count and the banner away at once, an acknowledgement the other.
 */
@ExtendWith(ApplicationExtension.class)
class AlertsClickThroughTest {
    private static final int WAIT_S = 20;

    @RegisterExtension
    final ConsoleFixture fx = new ConsoleFixture();

    private ShellViewModel vm;
    private Assignment older;
    private Assignment newer;
    private static final int NEWER_RUNS = 30;

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
        fx.clock.advance(Duration.ofSeconds(1));
        Engine blocker = fx.engine("worker 7108");
        newer = blocker.runs()
                .runAssignment(
                        blocker.runs()
                                .assign("indexer", "scripted:ms=0,outcome=blocked")
                                .id(),
                        Duration.ofSeconds(5))
                .assignment();
        for (int i = 0; i < NEWER_RUNS; i++) { // newer runs above them: the run opened must be scrolled to
            fx.clock.advance(Duration.ofMillis(10));
            blocker.runs().assign("indexer", "scripted:ms=0,outcome=completed");
        }
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
                                    + ", banner " + vm.bannerProperty().get() + ", " + rowsInView())
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

    /** The navigation's badge for Runs, empty when it shows none. */
    private static String runsBadge(FxRobot robot) {
        return robot.lookup("#nav-count-runs")
                .tryQuery()
                .filter(Node::isVisible)
                .map(n -> ((Labeled) n).getText())
                .orElse("");
    }

    /** The Runs filter's "Needs action N" button's text (the page may not be built yet: the choice behind it). */
    private String needsActionFilter() {
        return vm.runs().filterChoices().stream()
                .filter(c -> c.key().equals(RunsViewModel.NEEDS_ACTION))
                .map(FilterChoice::label)
                .findFirst()
                .orElse("");
    }

    /** One number for one fact: the status bar, the badge, the filter and the ledger's count say {@code n}. */
    private boolean everyCountSays(FxRobot robot, int n) {
        return (n == 0 ? !shown(robot, "#status-alerts") : alertsText(robot).equals(n == 1 ? "1 alert" : n + " alerts"))
                && runsBadge(robot).equals(n == 0 ? "" : Integer.toString(n))
                && needsActionFilter().equals("Needs action " + n)
                && vm.runs().needsOperatorProperty().get() == n
                && vm.banners().alerts().unseenProperty().get() == n;
    }

    /** The assignments table's rows as drawn, for a failure's message. */
    private static String rowsInView() {
        FxRobot robot = new FxRobot();
        return robot.lookup("#assignments-table")
                .tryQuery()
                .map(t -> "table " + t.localToScene(t.getBoundsInLocal()) + ", flow "
                        + t.lookup(".virtual-flow")
                                .localToScene(t.lookup(".virtual-flow").getLayoutBounds())
                        + ", clip "
                        + t.lookup(".clipped-container")
                                .localToScene(t.lookup(".clipped-container").getLayoutBounds())
                        + ", rows "
                        + robot.lookup("#assignments-table .table-row-cell").queryAll().stream()
                                .filter(n -> n instanceof TableRow<?> r && !r.isEmpty() && r.isVisible())
                                .map(n -> n.getId() + (((TableRow<?>) n).isSelected() ? " (selected)" : "") + " at "
                                        + Math.round(n.localToScene(n.getBoundsInLocal())
                                                .getMinY()) + ".."
                                        + Math.round(n.localToScene(n.getBoundsInLocal())
                                                .getMaxY()))
                                .toList())
                .orElse("no table");
    }

    /**
     * Whether {@code run}'s row is drawn in the assignments table's view, selected, its top inside the table. The
     * oldest run is the last of thirty-two rows: without a scroll it would not be drawn at all. (Scrolled to the end
     * with the banner just put up, its bottom can still lie under the table's edge.)
     */
    private static boolean inView(FxRobot robot, Assignment run) {
        TableView<?> table = robot.lookup("#assignments-table").queryAs(TableView.class);
        Bounds shown = table.localToScene(table.getBoundsInLocal());
        return robot.lookup("#assignment-" + run.id()).tryQuery().stream()
                .anyMatch(n -> n instanceof TableRow<?> r
                        && r.isVisible()
                        && !r.isEmpty()
                        && r.getItem() instanceof AssignmentRow a
                        && a.id().equals(run.id())
                        && r.isSelected()
                        && r.localToScene(r.getBoundsInLocal()).getMinY() >= shown.getMinY()
                        && r.localToScene(r.getBoundsInLocal()).getMinY() < shown.getMaxY());
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
                "\"2 alerts\" in the status bar, the badge and the filter saying 2 too",
                () -> shown(robot, "#status-alerts") && everyCountSays(robot, 2));

        robot.clickOn("#status-alerts");
        awaitFx(
                "Runs with the older run selected and scrolled into view",
                () -> vm.pageProperty().get() == Page.RUNS
                        && vm.runs().selectedProperty().get() != null
                        && vm.runs().selectedProperty().get().id().equals(older.id())
                        && shown(robot, "#banner-holder")
                        && inView(robot, older));
        assertThat(vm.bannerProperty().get().text()).contains(older.id());

        // the id in the banner is a link like every other id in a sentence, and it opens the run
        robot.interact(() -> vm.pageProperty().set(Page.LEASES));
        robot.clickOn(bannerLink(robot, older.id()));
        awaitFx(
                "the banner's link back on the run",
                () -> vm.pageProperty().get() == Page.RUNS
                        && vm.runs().selectedProperty().get() != null
                        && vm.runs().selectedProperty().get().id().equals(older.id())
                        && inView(robot, older));
        assertThat(alertsText(robot)).as("looking at a run does not see to it").isEqualTo("2 alerts");

        awaitFx(
                "Retry on",
                () -> !robot.lookup("#run-retry").queryAs(Button.class).isDisabled());
        robot.clickOn("#run-retry");
        awaitFx(
                "1 everywhere and no banner once the run is retried",
                () -> everyCountSays(robot, 1) && vm.bannerProperty().get() == null && !shown(robot, "#banner-holder"));

        robot.clickOn("#status-alerts");
        awaitFx(
                "Runs with the blocked run selected and in view",
                () -> vm.pageProperty().get() == Page.RUNS
                        && vm.runs().selectedProperty().get() != null
                        && vm.runs().selectedProperty().get().id().equals(newer.id())
                        && shown(robot, "#banner-holder")
                        && inView(robot, newer));
        assertThat(bannerLink(robot, newer.id())).isNotNull();
        assertThat(vm.bannerProperty().get().text())
                .startsWith("Run " + newer.id() + " of actor indexer needs an operator: it ended BLOCKED");

        awaitFx(
                "Acknowledge on",
                () -> !robot.lookup("#run-acknowledge").queryAs(Button.class).isDisabled());
        robot.clickOn("#run-acknowledge");
        awaitFx(
                "no alert, no badge, 0 needing action and no banner once the run is acknowledged",
                () -> everyCountSays(robot, 0) && vm.bannerProperty().get() == null && !shown(robot, "#banner-holder"));
    }
}
