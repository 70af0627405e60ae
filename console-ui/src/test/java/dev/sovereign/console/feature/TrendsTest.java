package dev.sovereign.console.feature;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sovereign.console.feature.trends.TrendsView;
import dev.sovereign.console.feature.trends.TrendsViewModel;
import dev.sovereign.console.feature.trends.TrendsViewModel.Bucket;
import dev.sovereign.console.feature.trends.TrendsViewModel.Range;
import dev.sovereign.console.shell.Page;
import dev.sovereign.console.shell.ShellViewModel;
import dev.sovereign.console.testing.ConsoleFixture;
import dev.sovereign.console.testing.Scenario;
import dev.sovereign.console.testing.ViewHarness;
import dev.sovereign.engine.admin.JournalEntry;
import dev.sovereign.engine.base.Refusal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import javafx.geometry.Bounds;
import javafx.geometry.Point2D;
import javafx.scene.Node;
import javafx.scene.chart.Axis;
import javafx.scene.chart.LineChart;
import javafx.scene.chart.NumberAxis;
import javafx.scene.input.MouseButton;
import javafx.scene.text.Text;
import javafx.stage.Stage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;
import org.testfx.util.WaitForAsyncUtils;

/**
 * Issue 17, item 9 and issue 31, item 19: counts over a chosen time range from the journal the console holds, zoom,
 * whole numbers on the count axes, round times on the time axis, and a click on a point opens exactly the journal
 * rows it counted.
 */
@ExtendWith(ApplicationExtension.class)
class TrendsTest {
    @RegisterExtension
    final ConsoleFixture fx = new ConsoleFixture();

    private ShellViewModel vm;

    @Start
    void start(Stage stage) {
        Scenario.build(fx);
        vm = fx.attachedShell();
        vm.pageProperty().set(Page.TRENDS);
        ViewHarness.show(stage, new TrendsView(vm.trends(), vm.formats(), vm.navigation()).create());
    }

    private long count(Set<String> kinds, long from, long to) {
        return vm.ledger().events().stream()
                .filter(e -> kinds.contains(e.kind()) && e.at() >= from && e.at() < to)
                .count();
    }

    @Test
    void eachMinuteOfTheHourCountsGrantsTakeoversRefusalsAndLostRunsAsTheJournalHasThem(FxRobot robot) {
        List<Bucket> minutes = vm.trends().bucketsProperty().get();
        assertThat(vm.trends().rangeProperty().get()).isEqualTo(Range.LAST_HOUR);
        assertThat(minutes).hasSize(60);
        assertThat(minutes.get(0).end() - minutes.get(0).start()).isEqualTo(60_000);
        assertThat(minutes.get(59).start())
                .isLessThanOrEqualTo(vm.ledger().now())
                .isGreaterThan(vm.ledger().now() - 60_000);

        long grants = count(Set.of("LEASE_ACQUIRED", "LEASE_TAKEN_OVER"), 0, Long.MAX_VALUE);
        long takeovers = count(Set.of("LEASE_TAKEN_OVER"), 0, Long.MAX_VALUE);
        assertThat(grants).isGreaterThan(3);
        assertThat(minutes.stream().mapToInt(Bucket::grants).sum()).isEqualTo((int) grants);
        assertThat(minutes.stream().mapToInt(Bucket::takeovers).sum()).isEqualTo((int) takeovers);
        assertThat(minutes.stream().mapToInt(Bucket::recovered).sum()).isEqualTo(1);
        assertThat(minutes.stream().mapToInt(Bucket::rejectionsTotal).sum()).isEqualTo(3);
        assertThat(minutes.stream()
                        .flatMap(m -> m.rejections().keySet().stream())
                        .distinct())
                .containsExactlyInAnyOrder("actor_lease_lost", "actor_lease_held");
        // the quiet minutes before the scenario are zeros, not gaps
        assertThat(minutes.get(0).grants()).isZero();

        @SuppressWarnings("unchecked")
        LineChart<Number, Number> chart = robot.lookup("#trends-grants").queryAs(LineChart.class);
        assertThat(chart.getData()).extracting(s -> s.getName()).containsExactly("grants", "takeovers");
        assertThat(chart.getData().get(0).getData()).hasSize(60);
        assertThat(chart.getData().get(0).getData().stream()
                        .mapToLong(d -> d.getYValue().longValue())
                        .sum())
                .isEqualTo(grants);
        assertThat(robot.lookup("#trends-rejections").queryAs(LineChart.class).getData())
                .hasSize(2);
    }

    @Test
    void aNewRefusalShowsInTheCurrentBucketAtTheNextRecount(FxRobot robot) {
        List<Bucket> before = vm.trends().bucketsProperty().get();
        int was = before.get(before.size() - 1).rejectionsTotal();
        try {
            fx.engine("worker 7199").leases().acquire("operator", Duration.ofSeconds(5));
        } catch (Refusal expected) {
            // held by worker B: journalled as refused
        }
        robot.interact(vm::pollNow);
        robot.interact(() -> vm.tick(fx.clock.millis() + 1_500));

        List<Bucket> after = vm.trends().bucketsProperty().get();
        assertThat(after.get(after.size() - 1).rejectionsTotal()).isEqualTo(was + 1);
    }

    @Test
    void idleTicksRedrawNothingAndARecountThatChangedNoCountRedrawsNothingEither(FxRobot robot) {
        @SuppressWarnings("unchecked")
        LineChart<Number, Number> chart = robot.lookup("#trends-grants").queryAs(LineChart.class);
        Object drawn = chart.getData().get(0);
        List<Bucket> counted = vm.trends().bucketsProperty().get();
        long start = vm.ledger().now();
        // eight seconds of ticks, ten a second, within the same minute: past one recount (every 5 s), nothing moved
        for (int i = 1; i <= 80; i++) {
            long at = start + i * 100L;
            robot.interact(() -> vm.tick(at));
        }
        assertThat(vm.trends().bucketsProperty().get()).isSameAs(counted);
        assertThat(chart.getData().get(0)).as("the chart's series, not rebuilt").isSameAs(drawn);
    }

    @Test
    void aRangeSetsTheWindowAndItsBucketAndZoomNarrowsOrWidensIt(FxRobot robot) {
        long now = vm.ledger().now();
        robot.clickOn("#trends-range-last-15-min");
        TrendsViewModel.Window w = vm.trends().windowProperty().get();
        assertThat(vm.trends().rangeProperty().get()).isEqualTo(Range.LAST_15_MIN);
        assertThat(w.bucket()).isEqualTo(10_000);
        assertThat(w.following()).isTrue();
        assertThat(w.to() - w.from()).isEqualTo(15 * 60_000);
        assertThat(w.to()).isGreaterThanOrEqualTo(now).isLessThan(now + 10_000);
        assertThat(vm.trends().bucketsProperty().get()).hasSize(90);
        long grants = count(Set.of("LEASE_ACQUIRED", "LEASE_TAKEN_OVER"), w.from(), w.to());
        assertThat(vm.trends().bucketsProperty().get().stream()
                        .mapToInt(Bucket::grants)
                        .sum())
                .isEqualTo((int) grants)
                .isPositive();

        robot.clickOn("#trends-range-last-24-hours");
        assertThat(vm.trends().windowProperty().get().bucket()).isEqualTo(20 * 60_000);
        robot.clickOn("#trends-range-last-6-hours");
        assertThat(vm.trends().windowProperty().get().bucket()).isEqualTo(5 * 60_000);
        robot.clickOn("#trends-range-all");
        TrendsViewModel.Window all = vm.trends().windowProperty().get();
        long oldest = vm.ledger().events().get(0).at();
        assertThat(all.from()).isLessThanOrEqualTo(oldest);
        assertThat(all.following()).isTrue();

        robot.clickOn("#trends-range-last-hour");
        robot.clickOn("#trends-zoom-in");
        TrendsViewModel.Window half = vm.trends().windowProperty().get();
        assertThat(vm.trends().rangeProperty().get()).isNull();
        assertThat(half.following()).isTrue();
        assertThat(half.to() - half.from()).isEqualTo(30 * 60_000);
        robot.clickOn("#trends-zoom-out");
        assertThat(vm.trends().windowProperty().get().to()
                        - vm.trends().windowProperty().get().from())
                .isEqualTo(60 * 60_000);
    }

    @Test
    void aDragAcrossAChartZoomsEveryChartToItsSpan(FxRobot robot) {
        robot.clickOn("#trends-range-last-15-min");
        @SuppressWarnings("unchecked")
        LineChart<Number, Number> chart = robot.lookup("#trends-grants").queryAs(LineChart.class);
        Axis<Number> x = chart.getXAxis();
        TrendsViewModel.Window w = vm.trends().windowProperty().get();
        long a = w.from() + (w.to() - w.from()) / 2;
        long b = w.from() + 3 * (w.to() - w.from()) / 4;
        Point2D[] at = new Point2D[2];
        robot.interact(() -> {
            double y = chart.getYAxis()
                    .localToScreen(0, chart.getYAxis().getHeight() / 2)
                    .getY();
            at[0] = new Point2D(x.localToScreen(x.getDisplayPosition(a), 0).getX(), y);
            at[1] = new Point2D(x.localToScreen(x.getDisplayPosition(b), 0).getX(), y);
        });
        robot.moveTo(at[0]).press(MouseButton.PRIMARY).moveTo(at[1]).release(MouseButton.PRIMARY);
        WaitForAsyncUtils.waitForFxEvents();

        TrendsViewModel.Window zoomed = vm.trends().windowProperty().get();
        assertThat(vm.trends().rangeProperty().get()).isNull();
        assertThat(zoomed.following()).isFalse();
        // what was dragged across, to the precision of a pixel and a bucket
        assertThat(zoomed.from()).isBetween(a - 20_000, a + 1_000);
        assertThat(zoomed.to()).isBetween(b - 1_000, b + 20_000);
        assertThat(zoomed.bucket()).isLessThan(w.bucket());
        for (String id : List.of("#trends-rejections", "#trends-worker-lost", "#trends-journal")) {
            Axis<?> other = robot.lookup(id).queryAs(LineChart.class).getXAxis();
            assertThat(((javafx.scene.chart.ValueAxis<?>) other).getLowerBound())
                    .isEqualTo(zoomed.from());
        }
        assertThat(robot.lookup("#trends-window").queryLabeled().getText()).contains("fixed");
    }

    @Test
    void countAxesShowWholeNumbersOnlyAndTimeLabelsAreRoundTimesThatDoNotCollide(FxRobot robot) {
        for (String range : List.of("#trends-range-last-hour", "#trends-range-last-15-min", "#trends-range-all")) {
            robot.clickOn(range);
            WaitForAsyncUtils.waitForFxEvents();
            List<String> wrong = new ArrayList<>();
            robot.interact(() -> {
                for (String id : List.of("#trends-grants", "#trends-rejections", "#trends-worker-lost")) {
                    NumberAxis y = (NumberAxis)
                            robot.lookup(id).queryAs(LineChart.class).getYAxis();
                    y.layout();
                    for (Axis.TickMark<Number> t : y.getTickMarks()) {
                        double v = t.getValue().doubleValue();
                        if (v != Math.rint(v)) {
                            wrong.add(range + " " + id + ": count tick at " + v);
                        }
                    }
                    for (Text t : labels(y)) {
                        if (t.getText().contains(".")) {
                            wrong.add(range + " " + id + ": count label " + t.getText());
                        }
                    }
                    if (labels(y).size() < 2) {
                        wrong.add(range + " " + id + ": " + labels(y).size() + " count labels");
                    }
                    Axis<Number> x = robot.lookup(id).queryAs(LineChart.class).getXAxis();
                    for (Axis.TickMark<Number> t : x.getTickMarks()) {
                        if (t.getValue().longValue() % 1_000 != 0) {
                            wrong.add(range + " " + id + ": label at " + t.getValue() + " is no round time");
                        }
                    }
                    List<Text> shown = labels(x);
                    if (shown.size() < 2) {
                        wrong.add(range + " " + id + ": " + shown.size() + " time labels");
                    }
                    double lastRight = Double.NEGATIVE_INFINITY;
                    for (Text t : shown) {
                        if (!t.getText().matches("\\d\\d:\\d\\d(:\\d\\d)?|[A-Z][a-z]{2} \\d{1,2} \\d\\d:\\d\\d")) {
                            wrong.add(range + " " + id + ": time label \"" + t.getText() + "\"");
                        }
                        Bounds bb = t.getBoundsInParent();
                        if (bb.getMinX() < lastRight + 4) {
                            wrong.add(range + " " + id + ": \"" + t.getText() + "\" collides with the label before");
                        }
                        lastRight = bb.getMaxX();
                    }
                    if (x.getTickLabelRotation() != 0) {
                        wrong.add(range + " " + id + ": time labels rotated");
                    }
                }
            });
            assertThat(wrong).isEmpty();
        }
    }

    /** The tick labels an axis draws, left to right or bottom to top. */
    private static List<Text> labels(Axis<?> axis) {
        return axis.getChildrenUnmodifiable().stream()
                .filter(n ->
                        n instanceof Text t && t.isVisible() && !t.getText().isEmpty())
                .map(n -> (Text) n)
                .sorted(java.util.Comparator.comparingDouble(
                        t -> t.getBoundsInParent().getMinX()))
                .toList();
    }

    @Test
    void aClickOnAPointOpensTheJournalFilteredToExactlyTheRowsItCounted(FxRobot robot) {
        List<Bucket> minutes = vm.trends().bucketsProperty().get();
        int i = -1;
        for (int k = 0; k < minutes.size(); k++) {
            if (minutes.get(k).grants() > 0) {
                i = k;
            }
        }
        assertThat(i).as("a minute with grants").isNotNegative();
        Bucket b = minutes.get(i);
        Node dot = robot.lookup("#trends-point-grants-" + i).query();
        robot.clickOn(dot);
        WaitForAsyncUtils.waitForFxEvents();

        assertThat(vm.pageProperty().get()).isEqualTo(Page.JOURNAL);
        List<JournalEntry> rows = vm.journal().rows();
        assertThat(rows).hasSize(b.grants());
        assertThat(rows)
                .allSatisfy(e -> assertThat(e.kind()).isIn("LEASE_ACQUIRED", "LEASE_TAKEN_OVER"))
                .allSatisfy(e -> assertThat(e.at()).isBetween(b.start(), b.end() - 1));
        assertThat(vm.journal().kindProperty().get()).isEqualTo("LEASE_ACQUIRED+LEASE_TAKEN_OVER");

        // a refusal of one category: the Journal's rows are that category's refusals of that minute
        robot.interact(() -> vm.navigation().back());
        assertThat(vm.pageProperty().get()).isEqualTo(Page.TRENDS);
        int r = -1;
        String category = null;
        for (int k = 0; k < minutes.size() && r < 0; k++) {
            if (!minutes.get(k).rejections().isEmpty()) {
                r = k;
                category = minutes.get(k).rejections().keySet().iterator().next();
            }
        }
        Bucket refused = minutes.get(r);
        Node refusedDot = robot.lookup("#trends-point-" + category + "-" + r).query();
        robot.clickOn(refusedDot);
        WaitForAsyncUtils.waitForFxEvents();
        String c = category;
        assertThat(vm.journal().rows())
                .hasSize(refused.rejections().get(category))
                .allSatisfy(e -> assertThat(e.category()).isEqualTo(c))
                .allSatisfy(e -> assertThat(e.at()).isBetween(refused.start(), refused.end() - 1));
    }

    @Test
    void aClickOnAChartAtATimeOpensThatChartsRowsOfThatBucket(FxRobot robot) {
        List<Bucket> minutes = vm.trends().bucketsProperty().get();
        int i = -1;
        for (int k = 0; k < minutes.size(); k++) {
            if (minutes.get(k).recovered() > 0) {
                i = k;
            }
        }
        Bucket b = minutes.get(i);
        @SuppressWarnings("unchecked")
        LineChart<Number, Number> chart = robot.lookup("#trends-worker-lost").queryAs(LineChart.class);
        Point2D[] at = new Point2D[1];
        robot.interact(() -> {
            Axis<Number> x = chart.getXAxis();
            // a little off the bucket's middle: not on its dot, inside its minute
            double px = x.getDisplayPosition(b.start() + (b.end() - b.start()) / 4);
            Bounds plot = chart.getYAxis().localToScreen(chart.getYAxis().getLayoutBounds());
            at[0] = new Point2D(x.localToScreen(px, 0).getX(), plot.getMinY() + 10);
        });
        robot.clickOn(at[0], MouseButton.PRIMARY);
        WaitForAsyncUtils.waitForFxEvents();

        assertThat(vm.pageProperty().get()).isEqualTo(Page.JOURNAL);
        assertThat(vm.journal().rows())
                .hasSize(b.recovered())
                .allSatisfy(e -> assertThat(e.kind()).isEqualTo("ATTEMPT_RECOVERED"));
    }
}
