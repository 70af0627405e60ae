package dev.sovereign.console.feature.lab;

import atlantafx.base.theme.Styles;
import dev.sovereign.console.fx.ColumnFit;
import dev.sovereign.console.fx.SortedRows;
import dev.sovereign.console.fx.Ui;
import dev.sovereign.console.fx.Ui.Tone;
import java.time.Duration;
import java.util.function.Function;
import javafx.beans.binding.Bindings;
import javafx.beans.property.SimpleObjectProperty;
import javafx.collections.ListChangeListener;
import javafx.geometry.Insets;
import javafx.geometry.Pos;
import javafx.scene.Node;
import javafx.scene.control.Button;
import javafx.scene.control.ChoiceBox;
import javafx.scene.control.Label;
import javafx.scene.control.TableCell;
import javafx.scene.control.TableColumn;
import javafx.scene.control.TableView;
import javafx.scene.control.TextArea;
import javafx.scene.control.TextField;
import javafx.scene.control.Tooltip;
import javafx.scene.layout.FlowPane;
import javafx.scene.layout.HBox;
import javafx.scene.layout.Priority;
import javafx.scene.layout.Region;
import javafx.scene.layout.VBox;
import javafx.util.StringConverter;

/**
 * The Lab page's "Worker processes" section: the form that starts a worker (actor, TTL, clock) and
 * gives its actor a job, and the table of workers with what the OS and the ledger say of each and
 * their controls ({@link LabWorkerControlsCell}). Thin: binds to {@link LabViewModel}.
 */
final class LabWorkersSection {
    private final LabViewModel vm;

    LabWorkersSection(LabViewModel vm) {
        this.vm = vm;
    }

    Node create() {
        Node form = createForm(LabView.sectionTitle("Worker processes"));
        TableView<LabWorkerItem> table = createTable();
        HBox.setHgrow(table, Priority.ALWAYS);
        HBox tableAndOutput = new HBox(8, table, createOutput(table));
        VBox.setVgrow(tableAndOutput, Priority.ALWAYS);
        VBox section = new VBox(8, form, tableAndOutput);
        section.setPadding(new Insets(0, 0, 8, 0));
        section.setId("lab-workers-section");
        return section;
    }

    /** The form, headed by the section's title on its first row: a row of its own cost the table a row. */
    private Node createForm(Label title) {
        TextField actor = new TextField();
        actor.setId("lab-actor");
        actor.setPrefColumnCount(7);
        actor.textProperty().bindBidirectional(vm.actorProperty());
        ChoiceBox<Duration> ttl = new ChoiceBox<>();
        ttl.setId("lab-ttl");
        ttl.getItems().setAll(LabViewModel.TTL_CHOICES);
        ttl.setConverter(choices(LabSentences::ttlChoice));
        ttl.valueProperty().bindBidirectional(vm.ttlProperty());
        ChoiceBox<Duration> clock = new ChoiceBox<>();
        clock.setId("lab-clock");
        clock.getItems().setAll(Duration.ZERO, Duration.ofSeconds(5), Duration.ofSeconds(30), Duration.ofSeconds(-5));
        clock.setConverter(choices(LabSentences::clockChoice));
        clock.valueProperty().bindBidirectional(vm.clockOffsetProperty());
        Button start = new Button("Start worker");
        start.setId("lab-start-worker");
        start.getStyleClass().add(Styles.ACCENT);
        start.setOnAction(e -> vm.startWorker());
        start.disableProperty().bind(vm.labTargetProperty().isNull());
        Button job = new Button("Give it a " + LabViewModel.JOB_LENGTH.toSeconds() + " s job");
        job.setId("lab-give-job");
        job.setTooltip(new Tooltip("Assigns a scripted job to the actor: the worker hosting it runs it. Pause that"
                + " worker mid-job to see its late write refused."));
        job.setOnAction(e -> vm.giveJob());
        job.disableProperty().bind(vm.labTargetProperty().isNull());
        Button clear = new Button("Clear ended");
        clear.setId("lab-clear-ended");
        clear.getStyleClass().add(Styles.FLAT);
        clear.setOnAction(e -> vm.clearEnded());
        Label actorLabel = new Label("Actor");
        // a narrow window wraps the form to a second row instead of squeezing its buttons to "Start wo…"
        FlowPane form = new FlowPane(8, 6, title, actorLabel, actor, ttl, clock, start, job, clear);
        FlowPane.setMargin(title, new Insets(0, 4, 0, 0));
        form.setAlignment(Pos.CENTER_LEFT);
        // its least height is both rows when it wraps: the split above the scenarios then leaves the table its room
        form.setMinHeight(Region.USE_PREF_SIZE);
        for (Node n : form.getChildren()) {
            if (n instanceof Region r) {
                r.setMinWidth(Region.USE_PREF_SIZE);
            }
        }
        return form;
    }

    /**
     * The selected worker's newest lines, beside the table (issue 31, item 20: not only the last one): shown while
     * a row is selected, following what it prints; × (or another database) hides it.
     */
    private Node createOutput(TableView<LabWorkerItem> table) {
        Label title = new Label();
        title.setId("lab-output-title");
        title.getStyleClass().add(Styles.TEXT_MUTED);
        title.setMinWidth(0);
        title.setWrapText(true);
        title.setMinHeight(Region.USE_PREF_SIZE);
        title.setTooltip(new Tooltip(LabSentences.OUTPUT_NOTE));
        HBox.setHgrow(title, Priority.ALWAYS);
        Button close = new Button("\u00d7");
        close.setId("lab-output-close");
        close.getStyleClass().addAll(Styles.FLAT, Styles.SMALL);
        close.setTooltip(new Tooltip("Hide the output"));
        close.setOnAction(e -> table.getSelectionModel().clearSelection());
        close.setMinWidth(Region.USE_PREF_SIZE);
        HBox top = new HBox(6, title, close);
        top.setAlignment(Pos.CENTER_LEFT);
        // a read-only text: a worker's long lines (a lease's end to the millisecond) wrap, never end in "…"
        TextArea lines = new TextArea();
        lines.setId("lab-output");
        lines.setEditable(false);
        lines.setWrapText(true);
        lines.getStyleClass().add("mono");
        lines.setMinHeight(40);
        lines.setPrefRowCount(6);
        VBox.setVgrow(lines, Priority.ALWAYS);
        VBox pane = new VBox(4, top, lines);
        pane.setId("lab-output-pane");
        pane.setPrefWidth(340);
        pane.setMinWidth(260);
        pane.setMaxWidth(420);
        LabWorkerItem[] shown = new LabWorkerItem[1];
        Runnable fill = () -> {
            lines.setText(shown[0] == null ? "" : String.join("\n", shown[0].recentLines()));
            lines.positionCaret(lines.getLength());
            lines.setScrollTop(Double.MAX_VALUE); // the newest line in sight
        };
        ListChangeListener<String> follow = c -> fill.run();
        table.getSelectionModel().selectedItemProperty().addListener((obs, o, w) -> {
            if (o != null) {
                o.recentLines().removeListener(follow);
            }
            shown[0] = w;
            title.setText(w == null ? "" : LabSentences.outputTitle(w.label()));
            if (w != null) {
                w.recentLines().addListener(follow);
            }
            fill.run();
        });
        pane.visibleProperty()
                .bind(table.getSelectionModel().selectedItemProperty().isNotNull());
        pane.managedProperty().bind(pane.visibleProperty());
        return pane;
    }

    /** A dense row of the worker table: its small control buttons make it taller than a text row's 28 px. */
    private static final double ROW = 34;

    private TableView<LabWorkerItem> createTable() {
        TableView<LabWorkerItem> table =
                Ui.table("lab-workers", "No worker processes yet: start one, or two for the same actor.");
        SortedRows.install(table, vm.workers());
        if (table.getPlaceholder() instanceof Label empty) {
            empty.setPadding(new Insets(8)); // one line in a 1024-px window, whole in the table's least height
        }
        // dense, and up to three whole rows at the least, over a scroll bar: the scenarios below have the rest
        // (issue 31: two rows at 1320x820, one at 1024x700 before); with no worker, its header and the one-line
        // sentence
        table.getStyleClass().add(Styles.DENSE);
        table.minHeightProperty()
                .bind(Bindings.createDoubleBinding(
                        () -> vm.workers().isEmpty()
                                ? 80
                                : Ui.denseTableHeight(0)
                                        + Math.min(3, vm.workers().size()) * ROW
                                        + 2,
                        vm.workers()));
        TableColumn<LabWorkerItem, String> name =
                Ui.column("Worker", 170, w -> w.label() + (w.isFaultInjected() ? "  (fence off)" : ""));
        name.setMinWidth(220); // "worker A (gc-pause)" and its "(fence off)" whole
        name.getStyleClass().add("text-bold");
        table.getColumns().add(name);
        TableColumn<LabWorkerItem, String> pid = Ui.column("PID", 84, w -> Long.toString(w.pid()));
        ColumnFit.measureBy(pid, w -> "99999999"); // room for any PID a Linux machine gives (up to 4194304)
        table.getColumns().add(pid);
        table.getColumns().add(stateColumn());
        TableColumn<LabWorkerItem, String> says = Ui.liveColumn("Ledger says", 250, LabWorkerItem::ledgerProperty);
        says.setMinWidth(200);
        // as wide as what it says now ("waits: worker B (gc-pause-1) holds token 3" was cut at 250 px): the text
        // changes in a row already there, so each change fits the columns again (issue 31)
        ColumnFit.measureBy(says, w -> w.ledgerProperty().get());
        javafx.beans.InvalidationListener refit = o -> ColumnFit.refit(table);
        for (LabWorkerItem w : vm.workers()) {
            w.ledgerProperty().addListener(refit);
        }
        vm.workers().addListener((javafx.collections.ListChangeListener<LabWorkerItem>) c -> {
            while (c.next()) {
                for (LabWorkerItem w : c.getRemoved()) {
                    w.ledgerProperty().removeListener(refit);
                }
                for (LabWorkerItem w : c.getAddedSubList()) {
                    w.ledgerProperty().addListener(refit);
                }
            }
        });
        table.getColumns().add(says);
        TableColumn<LabWorkerItem, String> clockColumn = Ui.liveColumn(
                "Clock",
                92,
                w -> Bindings.createStringBinding(
                        () -> LabWorkerItem.offsetText(w.clockOffsetProperty().get()), w.clockOffsetProperty()));
        clockColumn.setMinWidth(92);
        table.getColumns().add(clockColumn);
        table.getColumns().add(actionsColumn());
        TableColumn<LabWorkerItem, String> line =
                Ui.liveColumn("Last line it printed", 360, LabWorkerItem::lastLineProperty);
        line.getStyleClass().add("mono");
        table.getColumns().add(line);
        return table;
    }

    private static TableColumn<LabWorkerItem, LabWorkerItem.State> stateColumn() {
        TableColumn<LabWorkerItem, LabWorkerItem.State> c = new TableColumn<>("Process");
        c.setPrefWidth(96);
        c.setMinWidth(96);
        c.setCellValueFactory(f -> f.getValue().stateProperty());
        c.setCellFactory(col -> new TableCell<>() {
            private final Label badge = Ui.badge("", Tone.QUIET);

            @Override
            protected void updateItem(LabWorkerItem.State s, boolean empty) {
                super.updateItem(s, empty);
                if (empty || s == null) {
                    setGraphic(null);
                    return;
                }
                Ui.retone(
                        badge,
                        s.text(),
                        switch (s) {
                            case STARTING -> Tone.INFO;
                            case RUNNING -> Tone.GOOD;
                            case PAUSED -> Tone.WARN;
                            case ENDED -> Tone.QUIET;
                        });
                LabWorkerItem item =
                        getTableRow() == null ? null : getTableRow().getItem();
                badge.setId(item == null ? null : "lab-state-" + idOf(item));
                setGraphic(badge);
            }
        });
        return c;
    }

    private TableColumn<LabWorkerItem, LabWorkerItem> actionsColumn() {
        TableColumn<LabWorkerItem, LabWorkerItem> c = new TableColumn<>("Controls");
        c.setPrefWidth(262);
        c.setMinWidth(262);
        c.setCellValueFactory(f -> new SimpleObjectProperty<>(f.getValue()));
        c.setCellFactory(col -> new LabWorkerControlsCell(vm));
        return c;
    }

    /** "worker-A": how ids name a worker's row. */
    static String idOf(LabWorkerItem item) {
        return item.label().replaceAll("[^A-Za-z0-9]+", "-").replaceAll("-+$", "");
    }

    /** Shows a choice in words; the choice boxes are not editable. */
    private static StringConverter<Duration> choices(Function<Duration, String> words) {
        return new StringConverter<>() {
            @Override
            public String toString(Duration d) {
                return words.apply(d);
            }

            @Override
            public Duration fromString(String s) {
                throw new UnsupportedOperationException("choices only");
            }
        };
    }
}
