package dev.sovereign.console.feature.supervisor;

import atlantafx.base.theme.Styles;
import dev.sovereign.console.actions.OperatorDesk;
import dev.sovereign.console.fx.LinkedSentence;
import dev.sovereign.console.fx.Ui;
import dev.sovereign.console.ledger.Links;
import dev.sovereign.engine.admin.SupervisorTickRow;
import java.time.Duration;
import javafx.beans.binding.Bindings;
import javafx.beans.value.ObservableStringValue;
import javafx.collections.ListChangeListener;
import javafx.geometry.Pos;
import javafx.scene.Node;
import javafx.scene.Parent;
import javafx.scene.control.Button;
import javafx.scene.control.ComboBox;
import javafx.scene.control.Hyperlink;
import javafx.scene.control.Label;
import javafx.scene.control.ScrollPane;
import javafx.scene.control.ToggleButton;
import javafx.scene.control.Tooltip;
import javafx.scene.layout.ColumnConstraints;
import javafx.scene.layout.FlowPane;
import javafx.scene.layout.GridPane;
import javafx.scene.layout.HBox;
import javafx.scene.layout.Priority;
import javafx.scene.layout.Region;
import javafx.scene.layout.VBox;
import javafx.util.StringConverter;

/**
 * The last supervisor tick: what it found and what it did, in words; run a tick now (F6), or let this
 * console's supervisor tick by itself (Shift+F6) at a chosen interval.
 */
public final class SupervisorView {
    private final SupervisorViewModel vm;

    private Links links = Links.NONE;

    /** {@code links} opens the processes and runs the report names. */
    public SupervisorView(SupervisorViewModel vm, Links links) {
        this(vm);
        this.links = links;
    }

    public SupervisorView(SupervisorViewModel vm) {
        this.vm = vm;
    }

    public Parent create() {
        FlowPane tiles = new FlowPane(12, 12);
        tiles.setId("supervisor-tiles");
        // the processes and runs it names link (short ids too); rebuilt when a tick's words change only
        LinkedSentence report = new LinkedSentence("supervisor-report").links(() -> links);
        report.getStyleClass().add("report");
        report.setMinHeight(Region.USE_PREF_SIZE);
        report.textProperty()
                .bind(Bindings.createStringBinding(
                        () -> String.join(
                                "\n",
                                vm.reportLines().stream()
                                        .map(l -> "\u2022  " + l)
                                        .toList()),
                        vm.reportProperty()));
        FlowPane named = new FlowPane(12, 4);
        named.setId("supervisor-report-links");
        Runnable fill = () -> named.getChildren()
                .setAll(vm.reportLinks().stream()
                        .map(l -> {
                            Hyperlink h =
                                    new Hyperlink("Open " + (l.process() ? "process " : "assignment ") + l.text());
                            h.setId("supervisor-link-" + l.id());
                            h.setOnAction(e -> {
                                if (l.process()) {
                                    links.openProcess(l.id());
                                } else {
                                    links.openAssignment(l.id());
                                }
                            });
                            return (Node) h;
                        })
                        .toList());
        vm.reportLinks().addListener((ListChangeListener<SupervisorViewModel.ReportLink>) c -> fill.run());
        fill.run();
        VBox reportPane = new VBox(6, sectionTitle("Report"), report, named);
        reportPane.getStyleClass().add("detail-pane");
        VBox body = new VBox(14, controls(), tiles, reportPane, storagePane(vm.storage()));
        vm.lastTickProperty().addListener((obs, o, t) -> show(t, tiles, reportPane));
        show(vm.lastTickProperty().get(), tiles, reportPane);
        ScrollPane scroll = new ScrollPane(body);
        scroll.setFitToWidth(true);
        return Ui.page(
                "supervisor",
                "Supervisor",
                "Each tick reports expired leases and stale processes, sweeps expired claims and recovers"
                        + " abandoned attempts as worker_lost. It never creates work.",
                vm.headlineProperty(),
                scroll);
    }

    private VBox controls() {
        Button tick = Ui.button("supervisor-tick", "Run a tick now");
        tick.getStyleClass().add(Styles.ACCENT);
        tick.setTooltip(new Tooltip("One supervisor tick on this console's process, now (F6)"));
        tick.disableProperty().bind(vm.canActProperty().not());
        tick.setOnAction(e -> vm.tickNow());

        ToggleButton auto = new ToggleButton();
        auto.setId("supervisor-auto");
        auto.setMinWidth(Region.USE_PREF_SIZE);
        auto.setTooltip(new Tooltip("Let this console's supervisor tick by itself (Shift+F6)"));
        auto.disableProperty().bind(vm.canActProperty().not());
        Runnable sync = () -> {
            boolean on = vm.isAutoTicking();
            auto.setSelected(on);
            auto.setText(on ? "Auto-tick: on" : "Auto-tick: off");
        };
        vm.autoTickingProperty().addListener((obs, o, n) -> sync.run());
        auto.setOnAction(e -> {
            sync.run(); // the state changes when the action is done, not when the button is pressed
            vm.toggleAutoTick();
        });
        sync.run();

        ComboBox<Duration> every = new ComboBox<>(vm.intervals());
        every.setId("supervisor-interval");
        every.setMinWidth(Region.USE_PREF_SIZE);
        every.setConverter(new StringConverter<>() {
            @Override
            public String toString(Duration d) {
                return d == null ? "" : "every " + OperatorDesk.seconds(d);
            }

            @Override
            public Duration fromString(String s) {
                return null;
            }
        });
        every.valueProperty().bindBidirectional(vm.intervalProperty());
        every.setOnAction(e -> {
            if (vm.isAutoTicking()) {
                vm.startAutoTick(); // restart at the new interval
            }
        });
        every.disableProperty().bind(vm.canActProperty().not());

        HBox bar = new HBox(8, tick, auto, every, Ui.actionFeedback("supervisor-action", vm.status(), links));
        bar.getStyleClass().add("action-bar");
        HBox.setHgrow(bar.getChildren().get(3), Priority.ALWAYS);
        Label own = new Label();
        own.setId("supervisor-own");
        own.getStyleClass().add(Styles.TEXT_MUTED);
        own.setWrapText(true);
        own.textProperty().bind(vm.ownSupervisorProperty());
        LinkedSentence recovery = new LinkedSentence("supervisor-last-recovery").links(() -> links);
        recovery.setMinHeight(Region.USE_PREF_SIZE);
        recovery.getStyleClass().add("last-recovery");
        recovery.textProperty().bind(vm.lastRecoveryProperty());
        recovery.visibleProperty().bind(vm.lastRecoveryProperty().isNotEmpty());
        recovery.managedProperty().bind(recovery.visibleProperty());
        VBox box = new VBox(6, bar, own, recovery);
        box.setAlignment(Pos.CENTER_LEFT);
        return box;
    }

    /**
     * The ledger's size on disk, rows, oldest event, growth and disk (issue 29 item 4): the numbers of
     * {@code sovereign status}, and the warning when the disk holding the file runs low (decision 0606).
     */
    private static VBox storagePane(LedgerStorageViewModel storage) {
        GridPane grid = new GridPane();
        grid.setHgap(12);
        grid.setVgap(4);
        ColumnConstraints names = new ColumnConstraints();
        names.setMinWidth(Region.USE_PREF_SIZE);
        ColumnConstraints values = new ColumnConstraints();
        values.setHgrow(Priority.ALWAYS);
        values.setFillWidth(true);
        grid.getColumnConstraints().setAll(names, values);
        row(grid, 0, "On disk", "storage-size", storage.sizeProperty());
        row(grid, 1, "Journal", "storage-journal", storage.journalProperty());
        row(grid, 2, "Retention", "storage-retention", storage.retentionProperty());
        row(grid, 3, "Disk", "storage-disk", storage.diskProperty());
        Label warning = wrapped("storage-warning", storage.warningProperty());
        warning.getStyleClass().add(Styles.DANGER);
        warning.visibleProperty().bind(storage.warningProperty().isNotEmpty());
        warning.managedProperty().bind(warning.visibleProperty());
        Label read = wrapped("storage-read-at", storage.readAtProperty());
        read.getStyleClass().add(Styles.TEXT_MUTED);
        VBox pane = new VBox(6, sectionTitle("Ledger"), grid, warning, read);
        pane.setId("supervisor-storage");
        pane.getStyleClass().add("detail-pane");
        pane.visibleProperty().bind(storage.knownProperty());
        pane.managedProperty().bind(pane.visibleProperty());
        return pane;
    }

    private static void row(GridPane grid, int at, String name, String id, ObservableStringValue value) {
        Label n = new Label(name);
        n.getStyleClass().add(Styles.TEXT_MUTED);
        n.setMinWidth(Region.USE_PREF_SIZE);
        grid.addRow(at, n, wrapped(id, value));
    }

    private static Label wrapped(String id, ObservableStringValue text) {
        Label l = new Label();
        l.setId(id);
        l.setWrapText(true);
        l.setMinHeight(Region.USE_PREF_SIZE);
        l.setMaxWidth(Double.MAX_VALUE);
        l.textProperty().bind(text);
        return l;
    }

    private static void show(SupervisorTickRow t, FlowPane tiles, VBox reportPane) {
        tiles.getChildren().clear();
        reportPane.setVisible(t != null);
        if (t == null) {
            return;
        }
        tiles.getChildren()
                .addAll(
                        tile("expired leases", t.expiredLeases()),
                        tile("stale processes", t.staleProcesses()),
                        tile("claims swept", t.sweptClaims()),
                        tile("attempts recovered", t.recovered()),
                        tile("failures", t.failures()));
    }

    private static VBox tile(String what, int n) {
        Label number = new Label(Integer.toString(n));
        number.getStyleClass().add("tile-number");
        if (n > 0 && (what.equals("failures") || what.equals("attempts recovered"))) {
            number.getStyleClass().add(Styles.DANGER);
        }
        Label caption = new Label(what);
        caption.getStyleClass().add(Styles.TEXT_MUTED);
        VBox box = new VBox(number, caption);
        box.setId("tile-" + what.replace(' ', '-'));
        box.getStyleClass().add("tile");
        return box;
    }

    private static Label sectionTitle(String text) {
        Label l = new Label(text);
        l.getStyleClass().add(Styles.TITLE_4);
        return l;
    }
}
