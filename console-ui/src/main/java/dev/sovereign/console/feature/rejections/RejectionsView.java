package dev.sovereign.console.feature.rejections;

import dev.sovereign.console.fx.ColumnFit;
import dev.sovereign.console.fx.FilterBar;
import dev.sovereign.console.fx.LinkedSentence;
import dev.sovereign.console.fx.SortedRows;
import dev.sovereign.console.fx.Ui;
import dev.sovereign.console.fx.Ui.Tone;
import dev.sovereign.console.ledger.Links;
import dev.sovereign.engine.admin.JournalEntry;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import javafx.beans.property.ReadOnlyObjectWrapper;
import javafx.geometry.Orientation;
import javafx.scene.Parent;
import javafx.scene.control.Hyperlink;
import javafx.scene.control.Label;
import javafx.scene.control.ScrollPane;
import javafx.scene.control.SplitPane;
import javafx.scene.control.TableCell;
import javafx.scene.control.TableColumn;
import javafx.scene.control.TableRow;
import javafx.scene.control.TableView;
import javafx.scene.layout.HBox;
import javafx.scene.layout.Priority;
import javafx.scene.layout.Region;
import javafx.scene.layout.VBox;
import javafx.scene.text.Text;

/** The rejection feed: newest first, each with its plain-language sentence; details below. */
public final class RejectionsView {
    private final RejectionsViewModel vm;

    private final Links links;

    public RejectionsView(RejectionsViewModel vm) {
        this(vm, Links.NONE);
    }

    /** {@code links} opens the assignment, actor or process a refusal names (its detail pane's links). */
    public RejectionsView(RejectionsViewModel vm, Links links) {
        this.vm = vm;
        this.links = links;
    }

    public Parent create() {
        TableView<JournalEntry> table = Ui.table(
                "rejections-table",
                "No refused writes yet. When a process presents a stale token (its lease was taken over, its claim"
                        + " expired), the refusal appears here at once.");
        SortedRows.install(table, vm.rows());
        // a repeated refusal's count moves without a new row (decision 0019): draw the sentences again
        vm.repeatsVersionProperty().addListener((obs, old, v) -> table.refresh());
        TableColumn<JournalEntry, JournalEntry> time = new TableColumn<>("Time");
        time.setPrefWidth(112);
        time.setMinWidth(112);
        time.setCellValueFactory(f -> new ReadOnlyObjectWrapper<>(f.getValue()));
        time.setCellFactory(c -> new TableCell<>() {
            @Override
            protected void updateItem(JournalEntry e, boolean empty) {
                super.updateItem(e, empty);
                setText(empty || e == null ? null : vm.time(e));
            }
        });
        time.setComparator(Comparator.comparingLong(JournalEntry::seq)); // journal order, across days too
        table.getColumns().add(time);
        TableColumn<JournalEntry, String> category = Ui.column("Category", 160, JournalEntry::category);
        category.setCellFactory(c -> new TableCell<>() {
            private final Label badge = Ui.badge("", Tone.BAD);

            @Override
            protected void updateItem(String s, boolean empty) {
                super.updateItem(s, empty);
                if (empty || s == null) {
                    setGraphic(null);
                } else {
                    badge.setText(s);
                    setGraphic(badge);
                }
            }
        });
        category.setMinWidth(180);
        table.getColumns().add(category);
        // the sentence is what an operator reads: third, where a 1024-px window still shows it whole, wrapped to its
        // width (never measured to one long line, which pushed it past the table's edge at 1440x900, issue 31)
        // an incident of several refusals (one late write, decision 0320) names its parts on a second line
        TableColumn<JournalEntry, String> sentence = Ui.column("What happened", 460, vm::rowText);
        sentence.setCellFactory(c -> new WrappingCell());
        ColumnFit.measureBy(sentence, e -> "");
        sentence.setMinWidth(300);
        table.getColumns().add(sentence);
        TableColumn<JournalEntry, String> resource = Ui.column("Resource", 115, RejectionsViewModel::resource);
        Ui.linkCells(resource, "rejection-resource-", e -> Long.toString(e.seq()), e -> {
            if ("assignment".equals(e.resourceType())) {
                links.openAssignment(e.resourceId());
            } else if (e.actor() != null || "actor".equals(e.resourceType())) {
                links.openActor(e.actor() != null ? e.actor() : e.resourceId());
            }
        });
        table.getColumns().add(resource);
        TableColumn<JournalEntry, String> process = Ui.column(
                "Process",
                105,
                e -> e.process() == null ? "\u2014" : e.process().name());
        Ui.linkCells(process, "rejection-process-", e -> Long.toString(e.seq()), e -> {
            if (e.process() != null) {
                links.openProcess(e.process().identity());
            }
        });
        table.getColumns().add(process);
        TableColumn<JournalEntry, String> tokens = Ui.column("Presented vs current", 165, RejectionsViewModel::tokens);
        tokens.getStyleClass().add("token");
        tokens.setMinWidth(190);
        table.getColumns().add(tokens);
        table.setRowFactory(t -> {
            TableRow<JournalEntry> row = new TableRow<>();
            row.itemProperty().addListener((obs, o, e) -> row.setId(e == null ? null : "rejection-" + e.seq()));
            return row;
        });
        table.getSelectionModel().selectedItemProperty().addListener((obs, o, e) -> {
            if (e != null) {
                vm.selectedProperty().set(e);
            }
        });
        vm.selectedProperty().addListener((obs, o, e) -> {
            if (e != null && table.getSelectionModel().getSelectedItem() != e) {
                table.getSelectionModel().select(e);
            }
        });

        LinkedSentence detail = new LinkedSentence("rejection-detail").links(links);
        detail.textProperty().bind(vm.detailProperty());
        detail.setMinHeight(Region.USE_PREF_SIZE);
        // the actor a refusal names comes from its own row, never guessed from the words
        Runnable actors = () -> {
            JournalEntry e = vm.selectedProperty().get();
            detail.setActors(e == null ? List.of() : Collections.singletonList(e.actor()));
        };
        vm.selectedProperty().addListener((obs, o, n) -> actors.run());
        actors.run();
        Label hint = new Label("Select a rejection to read it in full, with every refusal of its incident.");
        hint.getStyleClass().add("text-muted");
        hint.visibleProperty().bind(vm.detailProperty().isEmpty());
        hint.managedProperty().bind(hint.visibleProperty());
        // the links first: an incident's parts make a long text, and what to open stays in sight above it
        VBox detailPane = new VBox(6, hint, linkBar(), detail);
        detailPane.getStyleClass().add("detail-pane");
        // a long refusal scrolls inside its half of the split, never drawn across the divider (issue 31)
        ScrollPane detailScroll = new ScrollPane(detailPane);
        detailScroll.setId("rejection-detail-scroll");
        detailScroll.setFitToWidth(true);
        detailScroll.getStyleClass().add("edge-to-edge");
        detailScroll.setMinHeight(60);

        VBox upper = new VBox(
                8, FilterBar.create("rejections-filter-", vm.filterChoices(), vm.categoryFilterProperty()), table);
        VBox.setVgrow(table, Priority.ALWAYS);
        SplitPane split = new SplitPane(upper, detailScroll);
        split.setOrientation(Orientation.VERTICAL);
        split.setDividerPositions(0.72);
        return Ui.page(
                "rejections",
                "Rejections",
                "Every write refused because it presented a stale or contested token, as it happens.",
                vm.summaryProperty(),
                split);
    }

    /** Links to what the selected refusal is about: its assignment or actor, and the refused process. */
    private HBox linkBar() {
        Hyperlink resource = new Hyperlink();
        resource.setId("rejection-link-resource");
        Hyperlink process = new Hyperlink();
        process.setId("rejection-link-process");
        HBox bar = new HBox(12, resource, process);
        Runnable show = () -> {
            JournalEntry e = vm.selectedProperty().get();
            bar.setVisible(e != null);
            bar.setManaged(e != null);
            if (e == null) {
                return;
            }
            // an incident's run, when one of its refusals is about one (a late write's terminal write): the thing to
            // open; otherwise what the refusal itself is about
            JournalEntry about = vm.incident(e).parts().stream()
                    .filter(p -> "assignment".equals(p.resourceType()))
                    .findFirst()
                    .orElse(e);
            boolean assignment = "assignment".equals(about.resourceType());
            resource.setText("Open " + about.resourceType() + " " + about.resourceId());
            resource.setOnAction(a -> {
                if (assignment) {
                    links.openAssignment(about.resourceId());
                } else {
                    links.openActor(about.actor() != null ? about.actor() : about.resourceId());
                }
            });
            process.setVisible(e.process() != null);
            process.setManaged(e.process() != null);
            if (e.process() != null) {
                process.setText("Open process " + e.process().displayName());
                process.setOnAction(a -> links.openProcess(e.process().identity()));
            }
        };
        vm.selectedProperty().addListener((obs, o, n) -> show.run());
        show.run();
        return bar;
    }

    /** A cell whose text wraps to the column width, so the sentence reads in full. */
    static final class WrappingCell extends TableCell<JournalEntry, String> {
        private final Text text = new Text();

        WrappingCell() {
            text.wrappingWidthProperty().bind(widthProperty().subtract(16));
            setMinHeight(USE_PREF_SIZE);
            text.getStyleClass().add("cell-text");
            text.fillProperty().bind(textFillProperty());
        }

        @Override
        protected void updateItem(String s, boolean empty) {
            super.updateItem(s, empty);
            if (empty || s == null) {
                setGraphic(null);
            } else {
                text.setText(s);
                setGraphic(text);
            }
        }
    }
}
