package dev.sovereign.console.feature.journal;

import atlantafx.base.theme.Styles;
import dev.sovereign.console.fx.ColumnFit;
import dev.sovereign.console.fx.JournalTable;
import dev.sovereign.console.fx.Ui;
import dev.sovereign.console.ledger.Formats;
import dev.sovereign.console.ledger.Links;
import dev.sovereign.engine.admin.JournalEntry;
import java.util.List;
import javafx.application.Platform;
import javafx.beans.value.ObservableBooleanValue;
import javafx.collections.ListChangeListener;
import javafx.geometry.Orientation;
import javafx.geometry.Pos;
import javafx.scene.Node;
import javafx.scene.Parent;
import javafx.scene.control.Button;
import javafx.scene.control.ComboBox;
import javafx.scene.control.Label;
import javafx.scene.control.ScrollBar;
import javafx.scene.control.TableColumn;
import javafx.scene.control.TableView;
import javafx.scene.control.TextField;
import javafx.scene.control.ToggleButton;
import javafx.scene.control.Tooltip;
import javafx.scene.control.skin.VirtualFlow;
import javafx.scene.input.KeyEvent;
import javafx.scene.input.MouseEvent;
import javafx.scene.input.ScrollEvent;
import javafx.scene.layout.FlowPane;
import javafx.scene.layout.HBox;
import javafx.scene.layout.Priority;
import javafx.scene.layout.Region;
import javafx.scene.layout.VBox;

/**
 * The Journal page: filters (kind, actor, process, from, to), Pause, Follow newest, Load older and Export, then
 * every journal row, oldest at the top, the newest at the bottom, each told with its sentence. The table follows
 * the newest row until the operator scrolls up (a wheel, the scroll bar, the keys) or pauses; scrolling back to
 * the bottom or Follow newest follows again. Thin: the {@link JournalViewModel} decides.
 */
public final class JournalView {
    private final JournalViewModel vm;
    private final Formats formats;
    private final Links links;
    private final Runnable export;
    private final ObservableBooleanValue exporting;

    /**
     * @param export    asks where and exports the whole journal as CSV (File → Export journal as CSV…)
     * @param exporting whether an export runs (the button waits)
     */
    public JournalView(
            JournalViewModel vm, Formats formats, Links links, Runnable export, ObservableBooleanValue exporting) {
        this.vm = vm;
        this.formats = formats;
        this.links = links;
        this.export = export;
        this.exporting = exporting;
    }

    public Parent create() {
        TableView<JournalEntry> table = JournalTable.create(
                "journal-table",
                vm.rows(),
                formats,
                links,
                "No journal rows to show. Every grant, renewal, takeover, release, run step, message and refused"
                        + " write is journalled; they appear here as they are written.",
                () -> vm.followingProperty().get());
        narrowerColumns(table);
        followScrolling(table);
        // following: the newest row whole at the bottom, also after the rows, the page's size or its showing changed
        // (a row's height is known only once laid out: the flow scrolls the least that shows it whole, after layout)
        Runnable follow = () -> Platform.runLater(() -> {
            if (vm.followingProperty().get() && !vm.rows().isEmpty()) {
                int last = vm.rows().size() - 1;
                table.scrollTo(last);
                table.layout();
                if (table.lookup(".virtual-flow") instanceof VirtualFlow<?> flow) {
                    flow.scrollTo(last);
                }
            }
        });
        vm.followingProperty().addListener((obs, o, f) -> follow.run());
        vm.rows().addListener((ListChangeListener<JournalEntry>) c -> follow.run());
        table.heightProperty().addListener((obs, o, h) -> follow.run());
        table.widthProperty().addListener((obs, o, w) -> follow.run());
        table.sceneProperty().addListener((obs, o, sc) -> follow.run());

        Label problem = new Label();
        problem.setId("journal-time-problem");
        problem.getStyleClass().addAll(Styles.TEXT_SMALL, Styles.DANGER);
        problem.setWrapText(true);
        problem.textProperty().bind(vm.timeProblemProperty());
        problem.visibleProperty().bind(problem.textProperty().isNotEmpty());
        problem.managedProperty().bind(problem.visibleProperty());

        FlowPane bar = filters();
        bar.getChildren().addAll(controls());
        VBox body = new VBox(8, bar, problem, table);
        VBox.setVgrow(table, Priority.ALWAYS);
        return Ui.page(
                "journal",
                "Journal",
                "Every event of the fence journal as it is written, newest at the bottom. Filter by kind, actor,"
                        + " process or time; older rows load on request.",
                vm.summaryProperty(),
                body);
    }

    /** Kind, actor, process, from, to, then the buttons: one row that wraps when the window is narrow. */
    private FlowPane filters() {
        ComboBox<String> kind = new ComboBox<>(vm.kinds());
        kind.setId("journal-kind");
        kind.valueProperty().bindBidirectional(vm.kindProperty());
        kind.setVisibleRowCount(14);
        kind.setMinWidth(Region.USE_PREF_SIZE);
        // a link's kinds (LEASE_ACQUIRED or LEASE_TAKEN_OVER, from a Trends point) widen it: never "LEASE_ACQ…"
        // (measured in the default font; the theme's may be a little larger)
        kind.valueProperty().addListener((obs, o, k) -> kind.setPrefWidth(Math.max(210, textWidth(k) * 1.15 + 64)));
        kind.setPrefWidth(Math.max(210, textWidth(kind.getValue()) * 1.15 + 64));
        kind.setCellFactory(l -> new KindCell());
        kind.setButtonCell(new KindCell());
        TextField actor = field("journal-actor", "any", 120, vm.actorProperty());
        TextField process = field("journal-process", "any", 130, vm.processProperty());
        TextField from = field("journal-from", "10:42", 90, vm.fromProperty());
        TextField to = field("journal-to", "10:45", 90, vm.toProperty());
        actor.setTooltip(new Tooltip("Part of an actor's name; Enter applies it."));
        process.setTooltip(new Tooltip("Part of a process's label or identity (proc_\u2026); Enter applies it."));
        from.setTooltip(new Tooltip("From this time on, in the zone times are shown in: 10:42 or 10:42:07 today,"
                + " or 2026-12-02 10:42. Enter applies it."));
        to.setTooltip(new Tooltip("Up to this time, the whole minute or second typed. Enter applies it."));
        FlowPane bar = new FlowPane(
                14,
                6,
                labelled("Kind", kind),
                labelled("Actor", actor),
                labelled("Process", process),
                labelled("From", from),
                labelled("To", to));
        bar.setId("journal-filters");
        return bar;
    }

    /** Pause, Follow newest, Load older, Export. */
    private List<Node> controls() {
        ToggleButton pause = new ToggleButton("Pause");
        pause.setId("journal-pause");
        pause.selectedProperty().bindBidirectional(vm.pausedProperty());
        pause.textProperty()
                .bind(javafx.beans.binding.Bindings.when(vm.pausedProperty())
                        .then("Resume")
                        .otherwise("Pause"));
        pause.setTooltip(new Tooltip("Paused, new events are counted above the table, not added, until you resume."));
        Button follow = Ui.button("journal-follow", "Follow newest");
        follow.setOnAction(e -> vm.jumpToNewest());
        follow.disableProperty()
                .bind(vm.followingProperty()
                        .and(vm.pausedProperty().not())
                        .and(vm.heldProperty().isEqualTo(0)));
        follow.setTooltip(new Tooltip("Shows the newest events and follows them again (End)."));
        Button older = Ui.button("journal-older", "Load older");
        older.setOnAction(e -> vm.loadOlder());
        older.disableProperty().bind(vm.olderLeftProperty().not().or(vm.loadingProperty()));
        older.setTooltip(new Tooltip("Reads up to " + String.format("%,d", JournalViewModel.OLDER_PAGE)
                + " older rows that match the filters; the table keeps at most "
                + String.format("%,d", JournalViewModel.MAX_ROWS) + "."));
        Button csv = Ui.button("journal-export", "Export journal as CSV\u2026");
        csv.setOnAction(e -> export.run());
        csv.disableProperty().bind(exporting);
        csv.setTooltip(new Tooltip("Writes the whole journal, every row, to a CSV file (File menu, Ctrl+E)."));
        for (Region r : new Region[] {pause, follow, older, csv}) {
            r.setMinWidth(Region.USE_PREF_SIZE);
        }
        HBox buttons = new HBox(8, pause, follow, older);
        buttons.setId("journal-controls");
        return List.of(buttons, csv);
    }

    /** The width {@code key}'s label takes in {@code kind}'s font. */
    private static double textWidth(String key) {
        javafx.scene.text.Text t = new javafx.scene.text.Text(JournalViewModel.kindLabel(key));
        t.setFont(javafx.scene.text.Font.getDefault());
        return t.getLayoutBounds().getWidth();
    }

    private static TextField field(String id, String prompt, double width, javafx.beans.property.StringProperty p) {
        TextField f = new TextField();
        f.setId(id);
        f.setPromptText(prompt);
        f.setPrefColumnCount(0);
        f.setPrefWidth(width);
        f.setMinWidth(width);
        // applied on Enter or when the field is left: a filter that moved per key press would start over per key
        f.setText(p.get());
        f.setOnAction(e -> p.set(f.getText()));
        f.focusedProperty().addListener((obs, o, focused) -> {
            if (!focused) {
                p.set(f.getText());
            }
        });
        p.addListener((obs, o, n) -> {
            if (!n.equals(f.getText())) {
                f.setText(n);
            }
        });
        // a date and a time (2026-12-02 10:42:07, from a Trends point of another day) widens the field to show it
        f.textProperty().addListener((obs, o, n) -> {
            javafx.scene.text.Text t = new javafx.scene.text.Text(n);
            t.setFont(f.getFont());
            double w = Math.max(width, t.getLayoutBounds().getWidth() + 24);
            f.setPrefWidth(w);
            f.setMinWidth(w);
        });
        return f;
    }

    private static Node labelled(String text, Node control) {
        Label l = new Label(text);
        l.setMinWidth(Region.USE_PREF_SIZE);
        l.setLabelFor(control);
        HBox box = new HBox(6, l, control);
        box.setAlignment(Pos.CENTER_LEFT);
        return box;
    }

    /**
     * The shared journal table's columns, narrowed here so that the sentence keeps more of a 1024-pixel window: the
     * time needs no more than a refusal's, a seq of seven digits and the short ids fit.
     */
    private static void narrowerColumns(TableView<JournalEntry> table) {
        for (TableColumn<JournalEntry, ?> c : table.getColumns()) {
            double w = switch (c.getText()) {
                case "Time" -> 112;
                case "Seq" -> 70;
                case "About" -> 132;
                case "Process" -> 112;
                default -> -1;
            };
            if (w > 0) {
                // the fit remembers a column's own minimum at its first fit (rows already there): this one, not the
                // shared table's, or the columns widen again at the next rows and the sentence runs past the edge
                c.setPrefWidth(w);
                ColumnFit.ownMinimum(c, w);
            }
        }
    }

    /**
     * The operator's scrolling decides whether the table follows: up (wheel, keys, dragging the bar) stops
     * following; reaching the bottom again, or End, follows.
     */
    private void followScrolling(TableView<JournalEntry> table) {
        ScrollBar[] vertical = new ScrollBar[1];
        table.addEventFilter(ScrollEvent.SCROLL, e -> {
            if (e.getDeltaY() > 0) {
                vm.followingProperty().set(false); // up, away from the newest
            }
            // whichever way the wheel or pad went, once the flow moved: following exactly when at the bottom
            Platform.runLater(() -> {
                if (vertical[0] != null && vertical[0].isVisible()) {
                    vm.followingProperty().set(atBottom(vertical[0]));
                }
            });
        });
        table.addEventFilter(KeyEvent.KEY_PRESSED, e -> {
            switch (e.getCode()) {
                case UP, PAGE_UP, HOME -> vm.followingProperty().set(false);
                case END -> vm.jumpToNewest();
                default -> {
                    // other keys do not move the reading position
                }
            }
        });
        table.skinProperty().addListener((obs, o, skin) -> {
            for (Node n : table.lookupAll(".scroll-bar")) {
                if (n instanceof ScrollBar bar && bar.getOrientation() == Orientation.VERTICAL) {
                    vertical[0] = bar;
                    bar.addEventFilter(
                            MouseEvent.MOUSE_PRESSED,
                            e -> vm.followingProperty().set(false));
                    bar.valueProperty().addListener((v, was, now) -> {
                        if (atBottom(bar) && !vm.pausedProperty().get()) {
                            vm.followingProperty().set(true); // back at the bottom
                        }
                    });
                }
            }
        });
    }

    private static boolean atBottom(ScrollBar bar) {
        return bar.getValue() >= bar.getMax() - 1e-9;
    }

    /** The kind filter's items: "Every kind" for {@link JournalViewModel#ALL}. */
    private static final class KindCell extends javafx.scene.control.ListCell<String> {
        @Override
        protected void updateItem(String k, boolean empty) {
            super.updateItem(k, empty);
            setText(empty || k == null ? null : JournalViewModel.kindLabel(k));
        }
    }
}
