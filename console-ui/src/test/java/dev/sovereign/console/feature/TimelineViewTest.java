package dev.sovereign.console.feature;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sovereign.console.feature.timeline.TimelineMarker;
import dev.sovereign.console.feature.timeline.TimelineView;
import dev.sovereign.console.feature.timeline.TimelineViewModel;
import dev.sovereign.console.fx.LinkedSentence;
import dev.sovereign.console.shell.Page;
import dev.sovereign.console.shell.ShellViewModel;
import dev.sovereign.console.testing.ConsoleFixture;
import dev.sovereign.console.testing.Scenario;
import dev.sovereign.console.testing.ViewHarness;
import dev.sovereign.engine.Engine;
import dev.sovereign.engine.admin.JournalEntry;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import javafx.scene.Node;
import javafx.scene.control.Label;
import javafx.scene.control.Tooltip;
import javafx.scene.input.MouseButton;
import javafx.scene.layout.Region;
import javafx.stage.Stage;
import javafx.stage.Window;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;
import org.testfx.util.WaitForAsyncUtils;

@ExtendWith(ApplicationExtension.class)
class TimelineViewTest {
    @RegisterExtension
    final ConsoleFixture fx = new ConsoleFixture();

    private ShellViewModel vm;
    private Scenario scenario;

    @Start
    void start(Stage stage) {
        scenario = Scenario.build(fx);
        vm = fx.attachedShell();
        vm.pageProperty().set(Page.TIMELINE);
        ViewHarness.show(stage, new TimelineView(vm.timeline()).create());
    }

    @Test
    void eachHoldIsASegmentLabelledWithItsToken(FxRobot robot) {
        Label first = robot.lookup("#segment-operator-" + scenario.operatorFirst.token())
                .queryAs(Label.class);
        Label second = robot.lookup("#segment-operator-" + scenario.operatorSecond.token())
                .queryAs(Label.class);

        assertThat(first.getText()).isEqualTo("token " + scenario.operatorFirst.token() + " \u00b7 worker 7101");
        assertThat(second.getText()).isEqualTo("token " + scenario.operatorSecond.token() + " \u00b7 worker 7102");
        assertThat(first.isVisible()).isTrue();
        assertThat(second.isVisible()).isTrue();
        assertThat(first.getLayoutX() + first.getWidth()).isLessThanOrEqualTo(second.getLayoutX() + 1);
        assertThat(robot.lookup("#expired-planner-" + scenario.plannerLease.token())
                        .query()
                        .isVisible())
                .isTrue();
        assertThat(robot.lookup("#lane-archivist").tryQuery()).isPresent();
    }

    @Test
    void clickingARejectionMarkerExplainsIt(FxRobot robot) {
        // the newest refusal of the late write's incident: the timeline marks each refusal, the last on top
        JournalEntry rejection = vm.rejections().rows().stream()
                .filter(e -> "actor_lease_lost".equals(e.category()))
                .map(e -> vm.rejections().incident(e).newest())
                .findFirst()
                .orElseThrow();
        Node marker = robot.lookup("#marker-" + rejection.seq()).query();
        assertThat(marker.getStyleClass()).contains("rejection");

        robot.clickOn(marker);
        WaitForAsyncUtils.waitForFxEvents();

        assertThat(robot.lookup("#timeline-detail")
                        .queryAs(LinkedSentence.class)
                        .getText())
                .startsWith("Rejected write at ")
                .contains(rejection.sentence());
        assertThat(marker.getStyleClass()).contains("selected");
    }

    @Test
    void hoveringAMarkerThenASegmentShowsEachOnesOwnTooltip(FxRobot robot) throws Exception {
        // the newest refusal of the late write's incident: the timeline marks each refusal, the last on top
        JournalEntry rejection = vm.rejections().rows().stream()
                .filter(e -> "actor_lease_lost".equals(e.category()))
                .map(e -> vm.rejections().incident(e).newest())
                .findFirst()
                .orElseThrow();

        robot.moveTo(robot.lookup("#marker-" + rejection.seq()).<Node>query());
        WaitForAsyncUtils.waitFor(
                5, TimeUnit.SECONDS, () -> rejection.sentence().equals(shownTooltip()));

        robot.moveTo(robot.lookup("#segment-reviewer-2").<Node>query());
        WaitForAsyncUtils.waitFor(
                5,
                TimeUnit.SECONDS,
                () -> shownTooltip() != null && shownTooltip().contains("held actor reviewer with token 2"));
    }

    /** The text of the tooltip on screen, or null. */
    private static String shownTooltip() {
        return Window.getWindows().stream()
                .filter(w -> w instanceof Tooltip && w.isShowing())
                .map(w -> ((Tooltip) w).getText())
                .findFirst()
                .orElse(null);
    }

    @Test
    void zoomingChangesTheWindowAndMovesTheSegments(FxRobot robot) {
        Region seg = robot.lookup("#segment-reviewer-2").queryAs(Region.class);
        double before = seg.getWidth();

        robot.clickOn("#timeline-zoom-in");
        WaitForAsyncUtils.waitForFxEvents();

        assertThat(robot.lookup("#timeline-span").queryAs(Label.class).getText())
                .isEqualTo("1 min 00 s");
        assertThat(seg.getWidth()).isGreaterThan(before);
    }

    @Test
    void theWindowFollowsTheClockUntilPanned(FxRobot robot) {
        long end = vm.timeline().windowEndProperty().get();
        robot.interact(() -> vm.tick(end + 5_000));
        assertThat(vm.timeline().windowEndProperty().get()).isEqualTo(end + 5_000);

        robot.clickOn("#timeline-back");
        robot.interact(() -> vm.tick(end + 10_000));

        assertThat(vm.timeline().followingProperty().get()).isFalse();
        assertThat(vm.timeline().windowEndProperty().get()).isEqualTo(end + 5_000 - 60_000);
        robot.clickOn("#timeline-follow");
        assertThat(vm.timeline().windowEndProperty().get()).isEqualTo(end + 10_000);
    }

    @Test
    void fitToDataOpensTheWindowFromTheOldestEventToNow(FxRobot robot) {
        long oldest = vm.ledger().events().get(0).at();
        robot.clickOn("#timeline-zoom-in");
        robot.clickOn("#timeline-zoom-in");
        assertThat(vm.timeline().windowStart()).isGreaterThan(oldest);

        robot.clickOn("#timeline-fit");

        assertThat(vm.timeline().windowStart()).isLessThanOrEqualTo(oldest);
        assertThat(vm.timeline().windowEndProperty().get())
                .isEqualTo(vm.ledger().now());
        // not the 2-minute default step: the data's own extent, with a margin
        long extent = vm.ledger().now() - oldest;
        assertThat(vm.timeline().spanProperty().get()).isBetween(extent, extent + extent / 10 + 1_000);
        assertThat(robot.lookup("#segment-reviewer-2").query().isVisible()).isTrue();

        robot.clickOn("#timeline-zoom-in");
        assertThat(vm.timeline().spanProperty().get())
                .as("zooming in from a fitted span takes the step below it")
                .isLessThan(extent)
                .isIn(TimelineViewModel.SPANS);
    }

    @Test
    void aFollowingWindowSlidesInStepsOfASecondNotOnEveryTick(FxRobot robot) {
        long end = vm.timeline().windowEndProperty().get();
        robot.interact(() -> vm.tick(end + 300));
        assertThat(vm.timeline().windowEndProperty().get())
                .as("a 100-ms tick lays no lane out")
                .isEqualTo(end);

        robot.interact(() -> vm.tick(end + 1_000)); // 1/120 of the default 2-minute window
        assertThat(vm.timeline().windowEndProperty().get()).isEqualTo(end + 1_000);
    }

    @Test
    void aMarkerIsSelectedEvenWhenTheWindowSlidesBetweenPressAndRelease(FxRobot robot) {
        // the supervisor's recovery: a marker alone at its time (two refusals share one instant)
        var marker = vm.timeline().lanes().stream()
                .flatMap(l -> l.markers().stream())
                .filter(m -> m.kind() == TimelineMarker.Kind.RECOVERY)
                .findFirst()
                .orElseThrow();
        long end = vm.timeline().windowEndProperty().get();
        robot.moveTo("#marker-" + marker.seq());
        robot.press(MouseButton.PRIMARY);
        robot.interact(() -> vm.tick(end + 5_000)); // following: the window slides under the pointer
        robot.release(MouseButton.PRIMARY);

        assertThat(vm.timeline().windowEndProperty().get()).isEqualTo(end + 5_000);
        assertThat(vm.timeline().selectedProperty().get()).isEqualTo(marker);
    }

    @Test
    void eachDatabaseKeepsItsOwnZoom(FxRobot robot) throws Exception {
        Path other = fx.dir().resolve("other.db");
        try (Engine e = Engine.open(other)) {
            e.actors().add("operator");
        }
        robot.interact(() -> vm.timeline().zoomOut()); // this database: 5 minutes
        long here = vm.timeline().spanProperty().get();

        robot.interact(() -> vm.attach(other));
        assertThat(vm.timeline().spanProperty().get())
                .as("a database never seen opens at the default")
                .isEqualTo(TimelineViewModel.DEFAULT_WINDOW);
        robot.interact(() -> vm.timeline().zoomIn());

        robot.interact(() -> vm.attach(fx.file()));
        assertThat(vm.timeline().spanProperty().get()).isEqualTo(here).isEqualTo(300_000L);
        robot.interact(() -> vm.attach(other));
        assertThat(vm.timeline().spanProperty().get()).isEqualTo(60_000L);
    }
}
