package dev.sovereign.console.fx;

import atlantafx.base.theme.Styles;
import dev.sovereign.console.actions.ActionStatus;
import dev.sovereign.console.ledger.Links;
import java.util.function.Consumer;
import java.util.function.DoubleSupplier;
import java.util.function.Function;
import javafx.beans.Observable;
import javafx.beans.binding.Bindings;
import javafx.beans.property.SimpleStringProperty;
import javafx.beans.value.ObservableBooleanValue;
import javafx.beans.value.ObservableValue;
import javafx.geometry.Insets;
import javafx.geometry.Pos;
import javafx.scene.Node;
import javafx.scene.control.Button;
import javafx.scene.control.Hyperlink;
import javafx.scene.control.Label;
import javafx.scene.control.ProgressIndicator;
import javafx.scene.control.SplitPane;
import javafx.scene.control.TableCell;
import javafx.scene.control.TableColumn;
import javafx.scene.control.TableView;
import javafx.scene.control.Tooltip;
import javafx.scene.control.skin.VirtualFlow;
import javafx.scene.input.MouseEvent;
import javafx.scene.layout.HBox;
import javafx.scene.layout.Priority;
import javafx.scene.layout.Region;
import javafx.scene.layout.VBox;

/** Small building blocks shared by the views, so every page looks alike. */
public final class Ui {
    /** The badge tones, mapped to looked-up colours in console.css. */
    public enum Tone {
        GOOD("good"),
        WARN("warn"),
        BAD("bad"),
        INFO("info"),
        QUIET("quiet");

        private final String styleClass;

        Tone(String styleClass) {
            this.styleClass = styleClass;
        }

        public String styleClass() {
            return styleClass;
        }
    }

    private Ui() {}

    /** A page: title, one-line description, a live summary line, then the body (which grows). */
    public static VBox page(String id, String title, String description, ObservableValue<String> summary, Node body) {
        Label t = new Label(title);
        t.getStyleClass().add(Styles.TITLE_2);
        Label d = new Label(description);
        d.getStyleClass().add("page-description");
        d.setWrapText(true);
        d.setMinHeight(Region.USE_PREF_SIZE);
        Label s = new Label();
        s.setId(id + "-summary");
        s.getStyleClass().add("page-summary");
        if (summary != null) {
            s.textProperty().bind(summary);
        }
        VBox header = new VBox(t, d, s);
        header.getStyleClass().add("page-header");
        // Changes inside the body (ten a second on a live page) stop at the boundary: the header and
        // the window around it are not laid out again for them.
        LayoutBoundary boundary = new LayoutBoundary(body);
        VBox bodyBox = new VBox(boundary);
        bodyBox.getStyleClass().add("page-body");
        VBox.setVgrow(boundary, Priority.ALWAYS);
        VBox.setVgrow(bodyBox, Priority.ALWAYS);
        VBox page = new VBox(header, bodyBox);
        page.setId(id + "-page");
        page.getStyleClass().add("page");
        return page;
    }

    public static Label badge(String text, Tone tone) {
        Label l = new Label(text);
        l.getStyleClass().addAll("badge", tone.styleClass());
        l.setMinWidth(Region.USE_PREF_SIZE);
        return l;
    }

    /** Sets a badge's text and tone in place (cells reuse their badge). */
    public static void retone(Label badge, String text, Tone tone) {
        badge.setText(text);
        if (badge.getStyleClass().contains(tone.styleClass())) {
            // Unchanged: touching the style classes would make JavaFX re-apply CSS to the badge.
            boolean others = false;
            for (Tone t : Tone.values()) {
                others |= t != tone && badge.getStyleClass().contains(t.styleClass());
            }
            if (!others) {
                return;
            }
        }
        for (Tone t : Tone.values()) {
            badge.getStyleClass().remove(t.styleClass());
        }
        badge.getStyleClass().add(tone.styleClass());
    }

    /** A column whose text is a function of the row. */
    public static <T> TableColumn<T, String> column(String title, double width, Function<T, String> text) {
        TableColumn<T, String> c = new TableColumn<>(title);
        c.setPrefWidth(width);
        c.setCellValueFactory(f -> new SimpleStringProperty(f.getValue() == null ? "" : text.apply(f.getValue())));
        c.setComparator(SortedRows.NATURAL);
        c.getProperties().put(ColumnFit.TEXT, text);
        return c;
    }

    /** A column bound to an observable of the row (updates without a table refresh). */
    public static <T> TableColumn<T, String> liveColumn(
            String title, double width, Function<T, ObservableValue<String>> text) {
        TableColumn<T, String> c = new TableColumn<>(title);
        c.setPrefWidth(width);
        c.setCellValueFactory(f -> text.apply(f.getValue()));
        return c;
    }

    /**
     * What an action is doing and how it ended, shown beside its buttons: a small spinner while it
     * runs, then its sentence, coloured by outcome, until closed or replaced. Never a dialog.
     * Ids: {@code <id>-progress}, {@code <id>-message}.
     */
    public static HBox actionFeedback(String id, ActionStatus status) {
        return actionFeedback(id, status, Links.NONE);
    }

    /** As above; the ids the sentence names ("Retried asg_… as asg_…") open through {@code links}. */
    public static HBox actionFeedback(String id, ActionStatus status, Links links) {
        ProgressIndicator spin = new ProgressIndicator();
        spin.setId(id + "-progress");
        spin.setPrefSize(16, 16);
        spin.setMaxSize(16, 16);
        spin.visibleProperty().bind(status.busyProperty());
        spin.managedProperty().bind(spin.visibleProperty());
        LinkedSentence message = new LinkedSentence(id + "-message").links(links);
        message.getStyleClass().add("action-message");
        message.setMinHeight(Region.USE_PREF_SIZE);
        message.textProperty().bind(status.messageProperty());
        Button close = new Button("\u00d7");
        close.setId(id + "-dismiss");
        close.getStyleClass().addAll(Styles.FLAT, Styles.SMALL, "action-dismiss");
        close.setFocusTraversable(false);
        close.setOnAction(e -> status.clear());
        Runnable tone = () -> {
            message.getStyleClass().removeAll("done", "refused", "failed", "working");
            switch (status.tone()) {
                case DONE -> message.getStyleClass().add("done");
                case REFUSED -> message.getStyleClass().add("refused");
                case FAILED -> message.getStyleClass().add("failed");
                case WORKING -> message.getStyleClass().add("working");
                case NONE -> {}
            }
            close.setVisible(status.tone() != ActionStatus.Tone.NONE && status.tone() != ActionStatus.Tone.WORKING);
        };
        status.toneProperty().addListener((obs, o, t) -> tone.run());
        tone.run();
        message.setMinWidth(0);
        HBox box = new HBox(8, spin, message, close);
        box.setMinWidth(0);
        box.setId(id);
        box.setAlignment(Pos.CENTER_LEFT);
        HBox.setHgrow(message, Priority.SOMETIMES);
        return box;
    }

    /** A button that keeps its whole text however narrow the row gets. */
    public static Button button(String id, String text) {
        Button b = new Button(text);
        b.setId(id);
        b.setMinWidth(Region.USE_PREF_SIZE);
        return b;
    }

    /** A table in the house style. */
    /**
     * The height of a {@link Styles#DENSE} table showing {@code rows} whole rows: its header (34 px), the rows
     * (2em each, 28 px at the console's font) and room for a horizontal scroll bar.
     */
    public static double denseTableHeight(int rows) {
        return 34 + rows * 28 + 16;
    }

    /**
     * Sizes a vertical split's lower item to its preferred height but at most {@code share} of the split (never
     * under its minimum, unless the upper item's minimum needs the room), again whenever the split's size changes: a window made taller gives its height to
     * the upper item (a page's main table), not to a detail box that does not fill it. Once the operator drags
     * the divider, their position is kept as the split pane keeps it.
     */
    public static void keepLowerShare(SplitPane split, Region lower, double share, Observable... contentChanges) {
        keepLowerShare(split, lower, share, () -> Double.MAX_VALUE, contentChanges);
    }

    /**
     * As above, but the lower item may have more than {@code share} when the upper one needs less than the rest:
     * {@code upperNeeds} is the height that shows all of the upper item (a table's few rows whole).
     */
    public static void keepLowerShare(
            SplitPane split, Region lower, double share, DoubleSupplier upperNeeds, Observable... contentChanges) {
        boolean[] dragged = {false};
        split.addEventFilter(MouseEvent.MOUSE_DRAGGED, e -> {
            for (Node n = e.getTarget() instanceof Node t ? t : null; n != null && n != split; n = n.getParent()) {
                if (n.getStyleClass().contains("split-pane-divider")) {
                    dragged[0] = true;
                    return;
                }
            }
        });
        Runnable place = () -> {
            double h = split.getHeight() - split.snappedTopInset() - split.snappedBottomInset();
            if (h <= 0 || dragged[0] || split.getDividers().isEmpty()) {
                return;
            }
            double w = split.getWidth() - split.snappedLeftInset() - split.snappedRightInset();
            double cap = Math.max(h * share, h - upperNeeds.getAsDouble() - 8);
            double want = Math.min(lower.prefHeight(w), Math.max(lower.minHeight(w), cap));
            // never below the upper item's least height (a form that wrapped to a second row in a narrow window)
            want = Math.max(0, Math.min(want, h - split.getItems().get(0).minHeight(w) - 8));
            double position = Math.max(0, Math.min(1, 1 - want / h));
            if (Math.abs(position - split.getDividerPositions()[0]) * h >= 1) { // a move under a pixel lays out nothing
                split.setDividerPositions(position);
            }
        };
        split.heightProperty().addListener(o -> place.run());
        split.widthProperty().addListener(o -> place.run());
        for (Observable o : contentChanges) {
            o.addListener(x -> place.run()); // the lower item's preferred height follows what it shows
        }
    }

    /** Scrolls {@code table} the least that shows its selected row whole (nothing when none is selected). */
    public static void keepSelectedInSight(TableView<?> table) {
        int i = table.getSelectionModel().getSelectedIndex();
        if (i >= 0 && table.lookup(".virtual-flow") instanceof VirtualFlow<?> flow) {
            flow.scrollTo(i);
        }
    }

    public static <T> TableView<T> table(String id, String placeholder) {
        TableView<T> t = new TableView<>();
        t.setId(id);
        t.getStyleClass().add(Styles.STRIPED);
        t.setColumnResizePolicy(TableView.CONSTRAINED_RESIZE_POLICY_FLEX_LAST_COLUMN);
        Label p = new Label(placeholder);
        p.getStyleClass().add(Styles.TEXT_MUTED);
        p.setWrapText(true);
        p.setPadding(new Insets(24));
        t.setPlaceholder(p);
        ColumnFit.install(t);
        return t;
    }

    /**
     * Shows a text column's cells as links that open what they name (an actor's or a process's page, a run);
     * each link's id is {@code idPrefix} + {@code key} of its row, for tests. An empty text shows nothing.
     */
    public static <T> void linkCells(
            TableColumn<T, String> column, String idPrefix, Function<T, String> key, Consumer<T> open) {
        column.setCellFactory(c -> new TableCell<>() {
            private final Hyperlink link = new Hyperlink();

            {
                link.getStyleClass().add("table-link");
                link.setPadding(Insets.EMPTY);
                link.setFocusTraversable(false);
                link.setOnAction(e -> {
                    T row = row();
                    link.setVisited(false);
                    if (row != null) {
                        // the link takes the click: select its row as a click on the row would
                        getTableView().getSelectionModel().clearAndSelect(getIndex());
                        open.accept(row);
                    }
                });
            }

            private T row() {
                int i = getIndex();
                return getTableView() == null
                                || i < 0
                                || i >= getTableView().getItems().size()
                        ? null
                        : getTableView().getItems().get(i);
            }

            @Override
            protected void updateItem(String text, boolean empty) {
                super.updateItem(text, empty);
                T row = empty ? null : row();
                if (row == null || text == null || text.isEmpty() || text.equals("\u2014")) {
                    setGraphic(null);
                    setText(empty ? null : text);
                    return;
                }
                setText(null);
                link.setText(text);
                link.setId(idPrefix + key.apply(row));
                setGraphic(link);
            }
        });
    }

    /**
     * Back and Forward buttons (the View menu's, Alt+Left / Alt+Right) for the header of a page reached by a
     * link; ids {@code <id>-back}, {@code <id>-forward}.
     */
    public static HBox backForward(
            String id,
            Runnable back,
            Runnable forward,
            ObservableBooleanValue canBack,
            ObservableBooleanValue canForward) {
        Button b = button(id + "-back", "\u2190 Back");
        b.getStyleClass().addAll(Styles.SMALL, Styles.FLAT);
        b.setTooltip(new Tooltip("Back to the page shown before (Alt+Left)"));
        b.setOnAction(e -> back.run());
        b.disableProperty().bind(Bindings.not(canBack));
        Button f = button(id + "-forward", "Forward \u2192");
        f.getStyleClass().addAll(Styles.SMALL, Styles.FLAT);
        f.setTooltip(new Tooltip("Forward again (Alt+Right)"));
        f.setOnAction(e -> forward.run());
        f.disableProperty().bind(Bindings.not(canForward));
        HBox box = new HBox(4, b, f);
        box.setAlignment(Pos.CENTER_LEFT);
        return box;
    }

    /** A page reached by a link: {@link #page} whose title follows {@code title}, with Back and Forward above it. */
    public static VBox linkedPage(
            String id,
            ObservableValue<String> title,
            String description,
            ObservableValue<String> summary,
            Node backForward,
            Node body) {
        VBox page = page(id, "", description, summary, body);
        VBox header = (VBox) page.getChildren().get(0);
        Label s = (Label) header.getChildren().get(2);
        s.setWrapText(true); // a sentence about one actor or process, long at 1024 px
        s.setMinHeight(Region.USE_PREF_SIZE);
        Label t = (Label) header.getChildren().get(0);
        t.setId(id + "-title");
        t.textProperty().bind(title);
        header.getChildren().add(0, backForward);
        if (summary == null) {
            header.getChildren().get(header.getChildren().size() - 1).setManaged(false);
        }
        return page;
    }

    /** A small bold title over a table. */
    public static Label sectionTitle(String text) {
        Label l = new Label(text);
        l.getStyleClass().add(Styles.TITLE_4);
        return l;
    }
}
