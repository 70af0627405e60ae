package dev.sovereign.console.feature.timeline;

import atlantafx.base.theme.Styles;
import dev.sovereign.console.fx.LinkedSentence;
import dev.sovereign.console.fx.Ui;
import dev.sovereign.console.ledger.Links;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import javafx.beans.binding.Bindings;
import javafx.collections.ListChangeListener;
import javafx.geometry.Pos;
import javafx.scene.Node;
import javafx.scene.Parent;
import javafx.scene.control.Button;
import javafx.scene.control.Hyperlink;
import javafx.scene.control.Label;
import javafx.scene.control.ScrollPane;
import javafx.scene.control.ToggleButton;
import javafx.scene.control.Tooltip;
import javafx.scene.layout.FlowPane;
import javafx.scene.layout.HBox;
import javafx.scene.layout.Pane;
import javafx.scene.layout.Priority;
import javafx.scene.layout.Region;
import javafx.scene.layout.VBox;
import javafx.scene.shape.Rectangle;
import javafx.util.Duration;

/**
 * One lane per actor, drawn as a pane of styled shapes (so every segment and marker is a node with an
 * id, a tooltip and a click handler, and colours come from the theme). Positions are recomputed on
 * each clock tick from the view model's window; the shapes are rebuilt only when the lanes change.
 */
public final class TimelineView {
    static final double LABEL_WIDTH = 130;
    /** Lane geometry: holder bars on top, the marker row below them. */
    static final double LANE_HEIGHT = 60;

    static final double BAR_TOP = 6;
    static final double BAR_HEIGHT = 28;
    static final double MARKER_ROW = 47;
    private static final List<Long> TICK_STEPS = List.of(
            1_000L,
            2_000L,
            5_000L,
            10_000L,
            15_000L,
            30_000L,
            60_000L,
            120_000L,
            300_000L,
            600_000L,
            900_000L,
            1_800_000L,
            3_600_000L);

    private final TimelineViewModel vm;
    /**
     * One tooltip for every segment and marker, its text set when the pointer enters one: a tooltip
     * is a popup window, and making one per node made a new lane cost milliseconds to draw.
     */
    private final Tooltip tooltip = new Tooltip();

    private final List<LanePane> lanePanes = new ArrayList<>();
    /** The row drawn for each actor's lane, reused while the lane is unchanged. */
    private final Map<String, HBox> rowsByActor = new HashMap<>();

    private final Links links;

    public TimelineView(TimelineViewModel vm) {
        this(vm, Links.NONE);
    }

    /** {@code links} opens a lane's actor, and the actor, process and run of the selected marker. */
    public TimelineView(TimelineViewModel vm, Links links) {
        this.vm = vm;
        this.links = links;
        tooltip.setShowDelay(Duration.millis(150));
        tooltip.setWrapText(true);
        tooltip.setMaxWidth(480);
    }

    /** Links to what the selected marker is about: its actor, its process, its run. */
    private HBox markerLinks() {
        Hyperlink actor = new Hyperlink();
        actor.setId("timeline-link-actor");
        Hyperlink process = new Hyperlink();
        process.setId("timeline-link-process");
        Hyperlink run = new Hyperlink();
        run.setId("timeline-link-run");
        HBox bar = new HBox(12, actor, process, run);
        Runnable show = () -> {
            TimelineMarker m = vm.selectedProperty().get();
            bar.setVisible(m != null);
            bar.setManaged(m != null);
            if (m == null) {
                return;
            }
            actor.setText("Open actor " + m.actor());
            actor.setOnAction(e -> links.openActor(m.actor()));
            var who = m.event().process();
            process.setVisible(who != null);
            process.setManaged(who != null);
            if (who != null) {
                process.setText("Open process " + who.displayName());
                process.setOnAction(e -> links.openProcess(who.identity()));
            }
            String type = m.event().resourceType();
            boolean hasRun = "assignment".equals(type) || "attempt".equals(type);
            run.setVisible(hasRun);
            run.setManaged(hasRun);
            if (hasRun) {
                run.setText("Open " + type + " " + m.event().resourceId());
                run.setOnAction(e -> {
                    if ("assignment".equals(type)) {
                        links.openAssignment(m.event().resourceId());
                    } else {
                        links.openAttempt(m.event().resourceId());
                    }
                });
            }
        };
        vm.selectedProperty().addListener((obs, o, n) -> show.run());
        show.run();
        return bar;
    }

    public Parent create() {
        VBox lanesBox = new VBox();
        lanesBox.setId("timeline-lanes");
        lanesBox.getStyleClass().add("timeline-lanes");
        AxisPane axis = new AxisPane();
        HBox axisRow = new HBox(spacer(), axis);
        HBox.setHgrow(axis, Priority.ALWAYS);
        vm.lanes().addListener((ListChangeListener<TimelineLane>) c -> rebuild(lanesBox));
        rebuild(lanesBox);
        vm.windowEndProperty().addListener((obs, o, n) -> relayout(axis));
        vm.spanProperty().addListener((obs, o, n) -> relayout(axis));
        vm.selectedProperty().addListener((obs, o, n) -> lanePanes.forEach(LanePane::markSelection));

        Label empty = new Label("No actors yet: lanes appear as soon as the database has actors.");
        empty.getStyleClass().add(Styles.TEXT_MUTED);
        empty.visibleProperty().bind(Bindings.isEmpty(vm.lanes()));
        empty.managedProperty().bind(empty.visibleProperty());

        ScrollPane scroll = new ScrollPane(new VBox(lanesBox, axisRow, empty));
        scroll.setFitToWidth(true);
        VBox.setVgrow(scroll, Priority.ALWAYS);

        // its ids link; it changes when another marker is selected, never per tick (decision 0415)
        LinkedSentence detail = new LinkedSentence("timeline-detail").links(() -> links);
        detail.setMinHeight(Region.USE_PREF_SIZE);
        detail.textProperty().bind(vm.detailProperty());
        Runnable actors = () -> {
            TimelineMarker m = vm.selectedProperty().get();
            detail.setActors(m == null ? List.of() : Collections.singletonList(m.actor()));
        };
        vm.selectedProperty().addListener((obs, o, n) -> actors.run());
        actors.run();
        Label hint = new Label("Click a marker for details. Red dots are refused writes, amber bars takeovers,"
                + " blue diamonds recoveries; white ticks are journalled renewals.");
        hint.getStyleClass().add(Styles.TEXT_MUTED);
        hint.setWrapText(true);
        hint.visibleProperty().bind(vm.detailProperty().isEmpty());
        hint.managedProperty().bind(hint.visibleProperty());
        VBox detailPane = new VBox(6, hint, detail, markerLinks());
        detailPane.getStyleClass().add("detail-pane");

        VBox body = new VBox(10, toolbar(), scroll, detailPane);
        return Ui.page(
                "timeline",
                "Timeline",
                "Who held each actor when, with the token of each hold.",
                Bindings.createStringBinding(
                        () -> vm.windowTextProperty().get()
                                + (vm.notDrawnProperty().get().isEmpty()
                                        ? ""
                                        : ". " + vm.notDrawnProperty().get()),
                        vm.windowTextProperty(),
                        vm.notDrawnProperty()),
                body);
    }

    private FlowPane toolbar() {
        Button zoomIn = new Button("Zoom in");
        zoomIn.setId("timeline-zoom-in");
        zoomIn.setOnAction(e -> vm.zoomIn());
        Button zoomOut = new Button("Zoom out");
        zoomOut.setId("timeline-zoom-out");
        zoomOut.setOnAction(e -> vm.zoomOut());
        Label span = new Label();
        span.setId("timeline-span");
        span.textProperty().bind(vm.spanTextProperty());
        span.setMinWidth(Region.USE_PREF_SIZE); // "2 min 00 s" whole
        span.setAlignment(Pos.CENTER);
        Button back = new Button("\u25c0 Earlier");
        back.setId("timeline-back");
        back.setOnAction(e -> vm.panBack());
        ToggleButton follow = new ToggleButton("Follow now");
        follow.setId("timeline-follow");
        follow.selectedProperty().bindBidirectional(vm.followingProperty());
        follow.getStyleClass().add(Styles.ACCENT);
        Button forward = new Button("Later \u25b6");
        forward.setId("timeline-forward");
        forward.setOnAction(e -> vm.panForward());
        forward.disableProperty().bind(vm.followingProperty());
        Button fit = new Button("Fit to data");
        fit.setId("timeline-fit");
        fit.setTooltip(new Tooltip("From the oldest event or lease there is to see, to now"));
        fit.setOnAction(e -> vm.fitToData());
        Button scenario = new Button("Last scenario");
        scenario.setId("timeline-last-scenario");
        Tooltip which = new Tooltip();
        which.textProperty()
                .bind(Bindings.createStringBinding(
                        () -> vm.lastScenarioProperty().get().isEmpty()
                                ? "No lab scenario in the journal yet"
                                : "Zoom to the newest lab scenario, "
                                        + vm.lastScenarioProperty().get() + ": from its first event to its last",
                        vm.lastScenarioProperty()));
        scenario.setTooltip(which);
        scenario.setOnAction(e -> vm.zoomToLastScenario());
        scenario.disableProperty().bind(vm.lastScenarioProperty().isEmpty());
        for (Button b : new Button[] {zoomIn, zoomOut, back, forward, fit, scenario}) {
            b.setMinWidth(Region.USE_PREF_SIZE);
        }
        follow.setMinWidth(Region.USE_PREF_SIZE);
        HBox zoom = new HBox(8, zoomOut, span, zoomIn, fit, scenario);
        zoom.setAlignment(Pos.CENTER_LEFT);
        zoom.setMinWidth(Region.USE_PREF_SIZE);
        HBox move = new HBox(8, back, follow, forward);
        move.setAlignment(Pos.CENTER_LEFT);
        move.setMinWidth(Region.USE_PREF_SIZE);
        // the moves wrap under the zooms in a 1024-px window instead of pushing the page wider (issue 31, item 3)
        FlowPane bar = new FlowPane(16, 6, zoom, move);
        bar.setAlignment(Pos.CENTER_LEFT);
        return bar;
    }

    private static Region spacer() {
        Region r = new Region();
        r.setMinWidth(LABEL_WIDTH);
        r.setPrefWidth(LABEL_WIDTH);
        return r;
    }

    /** Redraws only the lanes that changed: a renewal on one actor rebuilds one row, not all of them. */
    private void rebuild(VBox lanesBox) {
        lanePanes.clear();
        List<Node> rows = new ArrayList<>();
        Map<String, HBox> keep = new HashMap<>();
        for (TimelineLane lane : vm.lanes()) {
            HBox old = rowsByActor.get(lane.actor());
            if (old != null && ((LanePane) old.getChildren().get(1)).lane.equals(lane)) {
                lanePanes.add((LanePane) old.getChildren().get(1));
                keep.put(lane.actor(), old);
                rows.add(old);
                continue;
            }
            Hyperlink name = new Hyperlink(lane.actor());
            name.setId("timeline-lane-link-" + lane.actor());
            name.getStyleClass().addAll("lane-label", "table-link");
            name.setFocusTraversable(false);
            String actor = lane.actor();
            name.setOnAction(e -> {
                name.setVisited(false);
                links.openActor(actor);
            });
            name.setMinWidth(LABEL_WIDTH);
            name.setPrefWidth(LABEL_WIDTH);
            name.setMaxHeight(Double.MAX_VALUE);
            LanePane pane = new LanePane(lane);
            lanePanes.add(pane);
            HBox row = new HBox(name, pane);
            row.setId("lane-" + lane.actor());
            row.getStyleClass().add("timeline-lane");
            HBox.setHgrow(pane, Priority.ALWAYS);
            keep.put(lane.actor(), row);
            rows.add(row);
        }
        rowsByActor.clear();
        rowsByActor.putAll(keep);
        List<Node> children = lanesBox.getChildren();
        if (inPlace(children, rows)) {
            // Replace only the rows that changed: re-adding a node re-applies CSS to its whole subtree,
            // so a setAll of 50 lanes for one new lane cost a full restyle of all of them.
            for (int i = 0; i < rows.size(); i++) {
                if (children.get(i) != rows.get(i)) {
                    children.set(i, rows.get(i));
                }
            }
        } else if (!children.equals(rows)) {
            lanesBox.getChildren().setAll(rows);
        }
    }

    /** Whether {@code next} can replace {@code current} slot by slot: same length, no kept row moves. */
    static boolean inPlace(List<Node> current, List<Node> next) {
        if (current.size() != next.size()) {
            return false;
        }
        Set<Node> present = Collections.newSetFromMap(new IdentityHashMap<>());
        present.addAll(current);
        for (int i = 0; i < next.size(); i++) {
            if (next.get(i) != current.get(i) && present.contains(next.get(i))) {
                return false;
            }
        }
        return true;
    }

    private void relayout(AxisPane axis) {
        lanePanes.forEach(Pane::requestLayout);
        axis.requestLayout();
    }

    private double x(long t, double width) {
        return (t - vm.windowStart()) * width / vm.spanProperty().get();
    }

    /** One actor's lane: segments, expired tails, renewal ticks and markers, placed by time. */
    final class LanePane extends Pane {
        private final TimelineLane lane;
        private final List<Label> segments = new ArrayList<>();
        private final List<Region> tails = new ArrayList<>();
        private final List<List<Region>> ticks = new ArrayList<>();
        private final List<Region> markers = new ArrayList<>();
        private final Region nowLine = new Region();

        LanePane(TimelineLane lane) {
            this.lane = lane;
            setMinHeight(LANE_HEIGHT);
            setPrefHeight(LANE_HEIGHT);
            Rectangle clip = new Rectangle();
            clip.widthProperty().bind(widthProperty());
            clip.heightProperty().bind(heightProperty());
            setClip(clip);
            for (HolderSegment s : lane.segments()) {
                Label seg = new Label(TimelineViewModel.label(s));
                seg.setId("segment-" + lane.actor() + "-" + s.token());
                seg.getStyleClass().addAll("segment", "holder-" + s.colour());
                seg.setMinWidth(0);
                seg.setOnMouseEntered(
                        e -> tooltip.setText(vm.describe(s, vm.ledger().now())));
                Tooltip.install(seg, tooltip);
                segments.add(seg);
                Region tail = new Region();
                tail.getStyleClass().add("segment-expired");
                tail.setId("expired-" + lane.actor() + "-" + s.token());
                tails.add(tail);
                List<Region> t = new ArrayList<>();
                for (int i = 0; i < s.renewals().size(); i++) {
                    Region tick = new Region();
                    tick.getStyleClass().add("renewal-tick");
                    tick.setMouseTransparent(true);
                    t.add(tick);
                }
                ticks.add(t);
                getChildren().add(seg);
                getChildren().add(tail);
                getChildren().addAll(t);
            }
            nowLine.getStyleClass().add("now-line");
            nowLine.setMouseTransparent(true);
            getChildren().add(nowLine);
            for (TimelineMarker m : lane.markers()) {
                Region r = new Region();
                r.setId("marker-" + m.seq());
                r.getStyleClass().addAll("marker", m.kind().name().toLowerCase(Locale.ROOT));
                r.setOnMouseEntered(e -> tooltip.setText(m.event().sentence()));
                Tooltip.install(r, tooltip);
                // on press, not click: while following, the window may slide between press and release,
                // and a click needs both on the same node
                r.setOnMousePressed(e -> vm.selectedProperty().set(m));
                markers.add(r);
            }
            getChildren().addAll(markers);
            markSelection();
        }

        void markSelection() {
            TimelineMarker sel = vm.selectedProperty().get();
            for (int i = 0; i < markers.size(); i++) {
                boolean on = sel != null && sel.seq() == lane.markers().get(i).seq();
                markers.get(i).getStyleClass().remove("selected");
                if (on) {
                    markers.get(i).getStyleClass().add("selected");
                }
            }
        }

        @Override
        protected void layoutChildren() {
            double w = getWidth();
            double h = getHeight();
            long now = vm.ledger().now();
            for (int i = 0; i < lane.segments().size(); i++) {
                HolderSegment s = lane.segments().get(i);
                place(segments.get(i), x(s.start(), w), x(s.validUntil(now), w), BAR_TOP, BAR_HEIGHT, w);
                Region tail = tails.get(i);
                if (s.isExpiredAt(now)) {
                    place(tail, x(s.expiresAt(), w), x(now, w), BAR_TOP, BAR_HEIGHT, w);
                } else {
                    tail.setVisible(false);
                }
                List<Region> t = ticks.get(i);
                for (int k = 0; k < t.size(); k++) {
                    double tx = x(s.renewals().get(k), w);
                    t.get(k).setVisible(tx >= 0 && tx <= w);
                    t.get(k).resizeRelocate(tx - 1, BAR_TOP, 2, 6);
                }
            }
            double nx = x(now, w);
            nowLine.setVisible(nx >= 0 && nx <= w);
            nowLine.resizeRelocate(nx - 1, 0, 2, h);
            for (int i = 0; i < markers.size(); i++) {
                TimelineMarker m = lane.markers().get(i);
                double mx = x(m.at(), w);
                Region r = markers.get(i);
                r.setVisible(mx >= -8 && mx <= w + 8);
                switch (m.kind()) {
                    case TAKEOVER -> r.resizeRelocate(mx - 2, 2, 4, h - 4);
                    case RECOVERY -> r.resizeRelocate(mx - 7, MARKER_ROW - 7, 14, 14);
                    case REJECTION -> r.resizeRelocate(mx - 8, MARKER_ROW - 8, 16, 16);
                }
            }
        }

        private void place(Region r, double x0, double x1, double y, double height, double w) {
            double a = Math.max(0, x0);
            double b = Math.min(w, x1);
            if (b <= a) {
                r.setVisible(false);
                return;
            }
            r.setVisible(true);
            r.resizeRelocate(a, y, Math.max(2, b - a), height);
        }
    }

    /**
     * Time labels under the lanes, at a step that gives five to ten ticks across the window. The
     * tick marks and labels are reused from frame to frame: sliding the window only moves them, and a
     * label's text (and size) changes only when a new time scrolls in.
     */
    final class AxisPane extends Pane {
        private final List<Region> marks = new ArrayList<>();
        private final List<Label> labels = new ArrayList<>();

        AxisPane() {
            getStyleClass().add("timeline-axis");
            setMinHeight(24);
            setPrefHeight(24);
            setId("timeline-axis");
        }

        @Override
        protected void layoutChildren() {
            double w = getWidth();
            long span = vm.spanProperty().get();
            long step =
                    TICK_STEPS.stream().filter(s -> span / s <= 8).findFirst().orElse(3_600_000L);
            long start = vm.windowStart();
            int n = 0;
            for (long t = (start / step + 1) * step; t <= vm.windowEndProperty().get(); t += step, n++) {
                if (n == labels.size()) {
                    Region mark = new Region();
                    mark.getStyleClass().add("axis-tick");
                    mark.setManaged(false);
                    Label l = new Label();
                    l.setManaged(false);
                    marks.add(mark);
                    labels.add(l);
                    getChildren().addAll(mark, l);
                }
                double tx = x(t, w);
                Region mark = marks.get(n);
                mark.setVisible(true);
                mark.resizeRelocate(tx, 0, 1, 5);
                Label l = labels.get(n);
                l.setVisible(true);
                String text = vm.formats().time(t);
                if (!text.equals(l.getText()) || l.getWidth() == 0) {
                    l.setText(text);
                    l.applyCss();
                    l.autosize();
                }
                double lw = l.getWidth();
                l.relocate(Math.min(Math.max(0, tx - lw / 2), Math.max(0, w - lw)), 6);
            }
            for (int i = n; i < labels.size(); i++) {
                marks.get(i).setVisible(false);
                labels.get(i).setVisible(false);
            }
        }
    }
}
