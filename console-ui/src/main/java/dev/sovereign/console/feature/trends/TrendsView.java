package dev.sovereign.console.feature.trends;

import atlantafx.base.theme.Styles;
import dev.sovereign.console.feature.trends.TrendsViewModel.Bucket;
import dev.sovereign.console.feature.trends.TrendsViewModel.Range;
import dev.sovereign.console.feature.trends.TrendsViewModel.Series;
import dev.sovereign.console.feature.trends.TrendsViewModel.Window;
import dev.sovereign.console.fx.TimeAxis;
import dev.sovereign.console.fx.Ui;
import dev.sovereign.console.ledger.Formats;
import dev.sovereign.console.ledger.Links;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.ToLongFunction;
import javafx.beans.binding.Bindings;
import javafx.geometry.Point2D;
import javafx.geometry.Pos;
import javafx.scene.Cursor;
import javafx.scene.Node;
import javafx.scene.Parent;
import javafx.scene.chart.LineChart;
import javafx.scene.chart.NumberAxis;
import javafx.scene.chart.XYChart;
import javafx.scene.control.Button;
import javafx.scene.control.Label;
import javafx.scene.control.ScrollPane;
import javafx.scene.control.ToggleButton;
import javafx.scene.control.ToggleGroup;
import javafx.scene.control.Tooltip;
import javafx.scene.input.MouseButton;
import javafx.scene.input.MouseEvent;
import javafx.scene.layout.FlowPane;
import javafx.scene.layout.GridPane;
import javafx.scene.layout.HBox;
import javafx.scene.layout.Priority;
import javafx.scene.layout.Region;
import javafx.scene.layout.StackPane;
import javafx.scene.layout.VBox;
import javafx.scene.shape.Rectangle;
import javafx.util.StringConverter;

/**
 * Four small charts over a time range (JavaFX charts, no animation): a range to choose, zoom by buttons or by dragging
 * across a chart, whole numbers on the count axes, round times on the time axis, and a click on a point — or on a
 * chart at a time — opens the Journal page filtered to the rows behind it (issue 31, item 19).
 */
public final class TrendsView {
    /** A press and release closer than this many pixels is a click, not a drag. */
    static final double CLICK_SLOP = 4;

    private final TrendsViewModel vm;
    private final Formats formats;
    private final Links links;

    public TrendsView(TrendsViewModel vm, Formats formats) {
        this(vm, formats, Links.NONE);
    }

    /** {@code links} opens the journal rows behind a point. */
    public TrendsView(TrendsViewModel vm, Formats formats, Links links) {
        this.vm = vm;
        this.formats = formats;
        this.links = links;
    }

    /** One chart and what a click on it at a time (not on a point) opens. */
    private record Chart(LineChart<Number, Number> chart, Series series, String title, boolean fromZero) {}

    public Parent create() {
        Chart grants = chart("trends-grants", "Grants and takeovers", Series.GRANTS, true);
        Chart rejections = chart("trends-rejections", "Refused writes, by category", Series.REFUSALS, true);
        Chart lost = chart("trends-worker-lost", "Runs recovered as worker_lost", Series.WORKER_LOST, true);
        Chart journal = chart("trends-journal", "Journal size (events)", Series.JOURNAL, false);
        List<Chart> charts = List.of(grants, rejections, lost, journal);
        GridPane grid = new GridPane();
        grid.setHgap(12);
        grid.setVgap(12);
        grid.add(zoomable(grants), 0, 0);
        grid.add(zoomable(rejections), 1, 0);
        grid.add(zoomable(lost), 0, 1);
        grid.add(zoomable(journal), 1, 1);
        for (Node c : grid.getChildren()) {
            GridPane.setHgrow(c, Priority.ALWAYS);
            GridPane.setVgrow(c, Priority.ALWAYS);
        }
        Label coverage = new Label();
        coverage.setId("trends-coverage");
        coverage.setWrapText(true);
        coverage.textProperty().bind(vm.coverageProperty());
        coverage.visibleProperty().bind(vm.coverageProperty().isNotEmpty());
        coverage.managedProperty().bind(coverage.visibleProperty());
        coverage.setMinHeight(Region.USE_PREF_SIZE);
        // the charts share the window's width; one shorter than their least height scrolls (issue 31)
        ScrollPane scroll = new ScrollPane(grid);
        scroll.setId("trends-scroll");
        scroll.setFitToWidth(true);
        scroll.setFitToHeight(true);
        scroll.getStyleClass().add("edge-to-edge");
        VBox body = new VBox(8, toolbar(), coverage, scroll);
        VBox.setVgrow(scroll, Priority.ALWAYS);
        Runnable fill = () -> {
            List<Bucket> b = vm.bucketsProperty().get();
            Window w = vm.windowProperty().get();
            if (w == null) {
                return;
            }
            String per = " per " + per(w.bucket());
            grants.chart().setTitle(grants.title() + per);
            rejections.chart().setTitle(rejections.title() + per);
            lost.chart().setTitle(lost.title() + per);
            grants.chart()
                    .getData()
                    .setAll(
                            series("grants", Series.GRANTS, null, b, Bucket::grants),
                            series("takeovers", Series.TAKEOVERS, null, b, Bucket::takeovers));
            Set<String> categories = new TreeSet<>();
            b.forEach(x -> categories.addAll(x.rejections().keySet()));
            List<XYChart.Series<Number, Number>> byCategory = new ArrayList<>();
            for (String k : categories) {
                byCategory.add(
                        series(k, Series.REFUSALS, k, b, x -> x.rejections().getOrDefault(k, 0)));
            }
            if (byCategory.isEmpty()) {
                byCategory.add(series("refused writes", Series.REFUSALS, null, b, x -> 0));
            }
            rejections.chart().getData().setAll(byCategory);
            lost.chart()
                    .getData()
                    .setAll(List.of(series("worker_lost", Series.WORKER_LOST, null, b, Bucket::recovered)));
            journal.chart().getData().setAll(List.of(journalSeries(b)));
            for (Chart c : charts) {
                TimeAxis x = (TimeAxis) c.chart().getXAxis();
                x.setLowerBound(w.from());
                x.setUpperBound(w.to());
                integerAxis((NumberAxis) c.chart().getYAxis(), c.chart().getData(), c.fromZero());
            }
        };
        vm.bucketsProperty().addListener((obs, o, n) -> fill.run());
        vm.windowProperty().addListener((obs, o, n) -> fill.run());
        fill.run();
        return Ui.page(
                "trends",
                "Trends",
                "What changed over time, a point per interval: grants, takeovers, refusals, lost runs. Drag across a"
                        + " chart to zoom in; click a point for the journal rows it counts.",
                null,
                body);
    }

    /** The range buttons, zoom in and out, and what the charts show. */
    private Node toolbar() {
        ToggleGroup group = new ToggleGroup();
        HBox ranges = new HBox();
        ranges.setId("trends-ranges");
        for (Range r : Range.values()) {
            ToggleButton b = new ToggleButton(r.label());
            b.setId("trends-range-" + r.name().toLowerCase(Locale.ROOT).replace('_', '-'));
            b.setToggleGroup(group);
            b.setUserData(r);
            b.setMinWidth(Region.USE_PREF_SIZE);
            b.setTooltip(new Tooltip(
                    r == Range.ALL
                            ? "Everything the console holds, to now"
                            : "The last " + r.label() + ", following now"));
            b.setOnAction(e -> {
                vm.choose(r);
                b.setSelected(true); // a range stays chosen when clicked again
            });
            ranges.getChildren().add(b);
        }
        ranges.getChildren().get(0).getStyleClass().add(Styles.LEFT_PILL);
        for (int i = 1; i < ranges.getChildren().size() - 1; i++) {
            ranges.getChildren().get(i).getStyleClass().add(Styles.CENTER_PILL);
        }
        ranges.getChildren()
                .get(ranges.getChildren().size() - 1)
                .getStyleClass()
                .add(Styles.RIGHT_PILL);
        Runnable select = () -> group.getToggles()
                .forEach(
                        t -> t.setSelected(t.getUserData() == vm.rangeProperty().get()));
        vm.rangeProperty().addListener((obs, o, n) -> select.run());
        select.run();
        Button in = Ui.button("trends-zoom-in", "Zoom in");
        in.setOnAction(e -> vm.zoomIn());
        in.setTooltip(new Tooltip("Half the time, about its middle (or drag across a chart)"));
        in.disableProperty().bind(Bindings.createBooleanBinding(() -> !vm.canZoomIn(), vm.windowProperty()));
        Button out = Ui.button("trends-zoom-out", "Zoom out");
        out.setOnAction(e -> vm.zoomOut());
        out.setTooltip(new Tooltip("Twice the time, about its middle"));
        Label shown = new Label();
        shown.setId("trends-window");
        shown.setWrapText(true);
        shown.setMinHeight(Region.USE_PREF_SIZE);
        shown.textProperty()
                .bind(Bindings.createStringBinding(
                        () -> describe(vm.windowProperty().get()), vm.windowProperty()));
        Label rangeLabel = new Label("Range");
        rangeLabel.setMinWidth(Region.USE_PREF_SIZE);
        HBox zoom = new HBox(8, in, out);
        HBox left = new HBox(8, rangeLabel, ranges);
        left.setAlignment(Pos.CENTER_LEFT);
        FlowPane bar = new FlowPane(14, 6, left, zoom, shown);
        bar.setId("trends-toolbar");
        bar.setAlignment(Pos.CENTER_LEFT);
        return bar;
    }

    /** {@code 14:02 to 15:02, a point a minute, following now}. */
    private String describe(Window w) {
        if (w == null) {
            return "";
        }
        String from = w.bucket() < 60_000
                ? formats.time(w.from())
                : formats.time(w.from()).substring(0, 5);
        String to = w.bucket() < 60_000
                ? formats.time(w.to())
                : formats.time(w.to()).substring(0, 5);
        return from + " to " + to + ", a point " + (w.bucket() == 60_000 ? "a minute" : "every " + per(w.bucket()))
                + (w.following() ? ", following now" : ", fixed (choose a range to follow now)");
    }

    /** {@code 10 s}, {@code minute}, {@code 5 min}, {@code hour}, {@code 3 h}. */
    static String per(long bucket) {
        if (bucket == 60_000) {
            return "minute";
        }
        if (bucket == 3_600_000) {
            return "hour";
        }
        if (bucket < 60_000) {
            return bucket / 1_000 + " s";
        }
        if (bucket < 3_600_000) {
            return bucket / 60_000 + " min";
        }
        return bucket / 3_600_000 + " h";
    }

    /**
     * A counted series: a point at each bucket's middle; a point that counted something is a dot that opens its
     * rows on a click.
     */
    private XYChart.Series<Number, Number> series(
            String name, Series kind, String category, List<Bucket> buckets, ToLongFunction<Bucket> value) {
        XYChart.Series<Number, Number> s = new XYChart.Series<>();
        s.setName(name);
        List<XYChart.Data<Number, Number>> points = new ArrayList<>(buckets.size());
        for (int i = 0; i < buckets.size(); i++) {
            Bucket b = buckets.get(i);
            long n = value.applyAsLong(b);
            XYChart.Data<Number, Number> d = new XYChart.Data<>(middle(b), n);
            if (n > 0) {
                d.setNode(dot(
                        "trends-point-" + name + "-" + i,
                        formats.time(b.start()) + " to " + formats.time(b.end()) + ": " + n + " " + name
                                + ". Click for these journal rows.",
                        () -> links.openJournal(vm.rowsBehind(b, kind, category))));
            }
            points.add(d);
        }
        s.getData().setAll(points);
        return s;
    }

    /** The journal's size at each bucket's end; a dot where it grew opens the rows it grew by. */
    private XYChart.Series<Number, Number> journalSeries(List<Bucket> buckets) {
        XYChart.Series<Number, Number> s = new XYChart.Series<>();
        s.setName("events");
        List<XYChart.Data<Number, Number>> points = new ArrayList<>();
        long before = -1;
        for (int i = 0; i < buckets.size(); i++) {
            Bucket b = buckets.get(i);
            if (b.journalSize() < 0) {
                before = -1;
                continue;
            }
            XYChart.Data<Number, Number> d = new XYChart.Data<>(middle(b), b.journalSize());
            if (before >= 0 && b.journalSize() > before) {
                long grew = b.journalSize() - before;
                d.setNode(dot(
                        "trends-point-events-" + i,
                        formats.time(b.start()) + " to " + formats.time(b.end()) + ": "
                                + String.format(Locale.ROOT, "%,d", grew) + " new events. Click for these journal"
                                + " rows.",
                        () -> links.openJournal(vm.rowsBehind(b, Series.JOURNAL, null))));
            }
            before = b.journalSize();
            points.add(d);
        }
        s.getData().setAll(points);
        return s;
    }

    private static long middle(Bucket b) {
        return b.start() + (b.end() - b.start()) / 2;
    }

    private static Node dot(String id, String says, Runnable open) {
        Region dot = new Region();
        dot.setId(id);
        dot.getStyleClass().add("trends-point");
        dot.setCursor(Cursor.HAND);
        Tooltip.install(dot, new Tooltip(says));
        // on press: the chart behind must not start a zoom from it
        dot.addEventHandler(MouseEvent.MOUSE_PRESSED, MouseEvent::consume);
        dot.addEventHandler(MouseEvent.MOUSE_RELEASED, MouseEvent::consume);
        dot.addEventHandler(MouseEvent.MOUSE_CLICKED, e -> {
            if (e.getButton() == MouseButton.PRIMARY) {
                e.consume();
                open.run();
            }
        });
        return dot;
    }

    /**
     * Whole numbers only: the bounds and the step are integers (1, 2, 5, 10, 20, ...), so a chart counting 0 to 2
     * never labels 0.25 (issue 31, item 19).
     */
    static void integerAxis(NumberAxis y, List<XYChart.Series<Number, Number>> data, boolean fromZero) {
        long min = Long.MAX_VALUE;
        long max = Long.MIN_VALUE;
        for (XYChart.Series<Number, Number> s : data) {
            for (XYChart.Data<Number, Number> d : s.getData()) {
                long v = d.getYValue().longValue();
                min = Math.min(min, v);
                max = Math.max(max, v);
            }
        }
        if (min > max) {
            min = 0;
            max = 0;
        }
        if (fromZero) {
            min = 0;
        }
        long step = niceStep(Math.max(1, (max - min + 3) / 4));
        long lower = Math.floorDiv(min, step) * step;
        long upper = Math.max(lower + step, -Math.floorDiv(-max, step) * step);
        y.setLowerBound(lower);
        y.setUpperBound(upper);
        y.setTickUnit(step);
    }

    /** The least of 1, 2, 5, 10, 20, 50, ... that is at least {@code atLeast}. */
    static long niceStep(long atLeast) {
        long p = 1;
        while (true) {
            for (long m : new long[] {1, 2, 5}) {
                if (m * p >= atLeast) {
                    return m * p;
                }
            }
            p *= 10;
        }
    }

    private Chart chart(String id, String title, Series series, boolean fromZero) {
        TimeAxis x = new TimeAxis(formats::zone);
        NumberAxis y = new NumberAxis();
        y.setAnimated(false);
        y.setAutoRanging(false);
        y.setMinorTickVisible(false);
        y.setTickLabelFormatter(new StringConverter<>() {
            @Override
            public String toString(Number n) {
                return String.format(Locale.ROOT, "%,d", n.longValue());
            }

            @Override
            public Number fromString(String s) {
                return Long.parseLong(s.replace(",", ""));
            }
        });
        LineChart<Number, Number> c = new LineChart<>(x, y);
        c.setId(id);
        c.setTitle(title);
        c.setAnimated(false);
        c.setCreateSymbols(false); // only the points that counted something get a dot (see series)
        c.setMinHeight(180);
        c.setMinWidth(220); // two side by side in a 1024-px window; the legend wraps
        c.setPrefHeight(240);
        return new Chart(c, series, title, fromZero);
    }

    /**
     * The chart in a pane that draws the band being dragged: a drag across the plot zooms every chart to its span,
     * a click on the plot (not on a dot) opens the chart's rows in the bucket under it.
     */
    private Node zoomable(Chart c) {
        Rectangle band = new Rectangle();
        band.setManaged(false);
        band.setMouseTransparent(true);
        band.setVisible(false);
        band.getStyleClass().add("trends-zoom-band");
        StackPane pane = new StackPane(c.chart(), band);
        pane.setId(c.chart().getId() + "-pane");
        pane.setAlignment(Pos.TOP_LEFT);
        TimeAxis x = (TimeAxis) c.chart().getXAxis();
        NumberAxis y = (NumberAxis) c.chart().getYAxis();
        double[] pressed = new double[1];
        boolean[] dragging = new boolean[1];
        c.chart().addEventHandler(MouseEvent.MOUSE_PRESSED, e -> {
            dragging[0] = e.getButton() == MouseButton.PRIMARY && inPlot(x, y, e);
            pressed[0] = e.getSceneX();
        });
        c.chart().addEventHandler(MouseEvent.MOUSE_DRAGGED, e -> {
            if (!dragging[0]) {
                return;
            }
            Point2D a = pane.sceneToLocal(pressed[0], 0);
            Point2D b = pane.sceneToLocal(clampToAxis(x, e.getSceneX()), 0);
            Point2D top = pane.sceneToLocal(y.localToScene(0, 0));
            band.setX(Math.min(a.getX(), b.getX()));
            band.setWidth(Math.abs(b.getX() - a.getX()));
            band.setY(top.getY());
            band.setHeight(y.getHeight());
            band.setVisible(Math.abs(b.getX() - a.getX()) >= CLICK_SLOP);
        });
        c.chart().addEventHandler(MouseEvent.MOUSE_RELEASED, e -> {
            band.setVisible(false);
            if (!dragging[0]) {
                return;
            }
            dragging[0] = false;
            double from = timeAt(x, pressed[0]);
            double to = timeAt(x, clampToAxis(x, e.getSceneX()));
            if (Math.abs(e.getSceneX() - pressed[0]) >= CLICK_SLOP) {
                vm.zoomTo((long) from, (long) to);
            } else {
                Bucket b = vm.bucketAt((long) to);
                if (b != null) {
                    links.openJournal(vm.rowsBehind(b, c.series(), null));
                }
            }
        });
        return pane;
    }

    private static boolean inPlot(TimeAxis x, NumberAxis y, MouseEvent e) {
        Point2D px = x.sceneToLocal(e.getSceneX(), e.getSceneY());
        Point2D py = y.sceneToLocal(e.getSceneX(), e.getSceneY());
        return px.getX() >= 0 && px.getX() <= x.getWidth() && py.getY() >= 0 && py.getY() <= y.getHeight();
    }

    private static double clampToAxis(TimeAxis x, double sceneX) {
        double left = x.localToScene(0, 0).getX();
        double right = x.localToScene(x.getWidth(), 0).getX();
        return Math.max(left, Math.min(right, sceneX));
    }

    private static double timeAt(TimeAxis x, double sceneX) {
        return x.getValueForDisplay(x.sceneToLocal(sceneX, 0).getX()).doubleValue();
    }
}
