package dev.sovereign.console.feature.runs;

import atlantafx.base.theme.Styles;
import dev.sovereign.console.fx.ColumnFit;
import dev.sovereign.console.fx.FilterBar;
import dev.sovereign.console.fx.LinkedSentence;
import dev.sovereign.console.fx.SortedRows;
import dev.sovereign.console.fx.Ui;
import dev.sovereign.console.fx.Ui.Tone;
import dev.sovereign.console.ledger.Formats;
import dev.sovereign.console.ledger.Links;
import dev.sovereign.engine.admin.AssignmentRow;
import dev.sovereign.engine.admin.AttemptRow;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import javafx.beans.binding.Bindings;
import javafx.beans.binding.IntegerBinding;
import javafx.beans.property.SimpleObjectProperty;
import javafx.collections.ListChangeListener;
import javafx.geometry.Orientation;
import javafx.geometry.Pos;
import javafx.scene.Parent;
import javafx.scene.control.Button;
import javafx.scene.control.ContextMenu;
import javafx.scene.control.Label;
import javafx.scene.control.MenuItem;
import javafx.scene.control.ScrollPane;
import javafx.scene.control.SelectionMode;
import javafx.scene.control.SplitPane;
import javafx.scene.control.TableCell;
import javafx.scene.control.TableColumn;
import javafx.scene.control.TableRow;
import javafx.scene.control.TableView;
import javafx.scene.control.Tooltip;
import javafx.scene.layout.HBox;
import javafx.scene.layout.Priority;
import javafx.scene.layout.Region;
import javafx.scene.layout.VBox;

/**
 * Assignments (worker-lost ones flagged), the selected one's attempts, and its receipt; retry or
 * acknowledge the selected failed run (buttons, context menu, Ctrl+R / Ctrl+K).
 */
public final class RunsView {
    private final RunsViewModel vm;
    private final Formats formats;

    private final Links links;
    /** Open the selected run's receipt file, its output folder: in the action bar, always in sight (issue 31). */
    private final Button openReceipt = Ui.button("run-open-receipt", "Open receipt file");

    private final Button openOutput = Ui.button("run-open-output", "Open output folder");

    public RunsView(RunsViewModel vm, Formats formats) {
        this(vm, formats, Links.NONE);
    }

    /** {@code links} opens a run's actor, an attempt's process, and the run a retry points to. */
    public RunsView(RunsViewModel vm, Formats formats, Links links) {
        this.vm = vm;
        this.formats = formats;
        this.links = links;
    }

    public Parent create() {
        Label attention = new Label();
        attention.setWrapText(true);
        attention.textProperty().bind(vm.attentionProperty());
        Button review = new Button("Review");
        review.setId("runs-review");
        review.getStyleClass().addAll(Styles.SMALL, Styles.DANGER);
        review.setMinWidth(Region.USE_PREF_SIZE);
        review.setOnAction(e -> vm.selectFirstNeedingOperator());
        attention.setMinWidth(0);
        attention.setMinHeight(Region.USE_PREF_SIZE); // wraps, never "… then ..."
        attention.setMaxWidth(Double.MAX_VALUE);
        HBox.setHgrow(attention, Priority.ALWAYS);
        Button retryAll = new Button("Retry all");
        retryAll.setId("runs-retry-all");
        retryAll.getStyleClass().add(Styles.SMALL);
        retryAll.setMinWidth(Region.USE_PREF_SIZE);
        retryAll.setTooltip(new Tooltip("Retry every run that waits for an operator (asks first, saying how many)"));
        retryAll.disableProperty().bind(vm.canBulkProperty().not());
        retryAll.setOnAction(e -> vm.askRetryAllWorkerLost());
        Button acknowledgeAll = new Button("Acknowledge all");
        acknowledgeAll.setId("runs-acknowledge-all");
        acknowledgeAll.getStyleClass().add(Styles.SMALL);
        acknowledgeAll.setMinWidth(Region.USE_PREF_SIZE);
        acknowledgeAll.setTooltip(new Tooltip("Acknowledge every run that waits for an operator (asks first)"));
        acknowledgeAll.disableProperty().bind(vm.canBulkProperty().not());
        acknowledgeAll.setOnAction(e -> vm.askAcknowledgeAllWorkerLost());
        HBox attentionBox = new HBox(10, attention, review, retryAll, acknowledgeAll);
        attentionBox.setAlignment(Pos.CENTER_LEFT);
        attentionBox.setId("runs-attention");
        attentionBox.getStyleClass().add("attention");
        attentionBox.visibleProperty().bind(vm.attentionProperty().isNotEmpty());
        attentionBox.managedProperty().bind(attentionBox.visibleProperty());

        TableView<AssignmentRow> assignments = assignmentsTable();
        TableView<AttemptRow> attempts = attemptsTable();
        LinkedSentence detail = new LinkedSentence("run-detail").links(links);
        detail.textProperty().bind(vm.detailProperty());
        detail.setMinHeight(Region.USE_PREF_SIZE);
        Label hint = new Label("Select an assignment to see its attempts and receipt; without a selection every"
                + " recent attempt is listed.");
        hint.getStyleClass().add(Styles.TEXT_MUTED);
        hint.setWrapText(true);
        hint.visibleProperty().bind(vm.detailProperty().isEmpty());
        hint.managedProperty().bind(hint.visibleProperty());
        Label historyTitle = new Label("History (journal, oldest first)");
        historyTitle.getStyleClass().add(Styles.TEXT_BOLD);
        LinkedSentence history = new LinkedSentence("run-history").links(links);
        history.getStyleClass().add("mono");
        history.textProperty().bind(vm.historyProperty());
        // the run's actor, from its own row, links where the sentences name it
        Runnable actors = () -> {
            AssignmentRow a = vm.selectedProperty().get();
            List<String> names = a == null ? List.of() : List.of(a.actor());
            detail.setActors(names);
            history.setActors(names);
        };
        vm.selectedProperty().addListener((obs, o, n) -> actors.run());
        actors.run();
        history.setMinHeight(Region.USE_PREF_SIZE);
        historyTitle.visibleProperty().bind(vm.historyProperty().isNotEmpty());
        historyTitle.managedProperty().bind(historyTitle.visibleProperty());
        history.visibleProperty().bind(historyTitle.visibleProperty());
        history.managedProperty().bind(historyTitle.visibleProperty());
        VBox detailPane = new VBox(6, hint, detail, filesBox(), historyTitle, history);
        detailPane.getStyleClass().add("detail-pane");
        // the receipt and a long history scroll; the attempts keep their rows
        ScrollPane detailScroll = new ScrollPane(detailPane);
        detailScroll.setId("run-detail-scroll");
        detailScroll.setFitToWidth(true);
        // as tall as the receipt and history it holds, up to 200 px (then it scrolls): no empty box below them
        detailScroll
                .prefViewportHeightProperty()
                .bind(Bindings.createDoubleBinding(
                        () -> Math.min(200, detailPane.getHeight()), detailPane.heightProperty()));
        detailScroll.setMinHeight(56);
        detailScroll.getStyleClass().add("edge-to-edge");
        // the selected run's actions head its attempts and receipt: above the table they cost the table two rows
        HBox lowerBar = actionBar();
        Label attemptsTitle = title("Attempts");
        attemptsTitle.setMinWidth(Region.USE_PREF_SIZE); // a long outcome beside the buttons wraps; the title stays
        lowerBar.getChildren().add(0, attemptsTitle);
        lowerBar.setAlignment(Pos.CENTER_LEFT);
        VBox lower = new VBox(6, lowerBar, attempts, detailScroll);
        // a run has a few attempts: three rows, one at the least; the receipt scrolls in what is left
        attempts.prefHeightProperty()
                .bind(Bindings.createDoubleBinding(
                        () -> Ui.denseTableHeight(
                                Math.max(1, Math.min(3, vm.attempts().size()))),
                        vm.attempts()));
        attempts.setMinHeight(Ui.denseTableHeight(1));
        VBox.setVgrow(detailScroll, Priority.ALWAYS);

        // the state filter on its own row: beside the actions it made the page wider than a 1024-px window
        VBox upper = new VBox(
                8,
                confirmBar(),
                FilterBar.create("runs-filter-", vm.filterChoices(), vm.stateFilterProperty()),
                assignments);
        VBox.setVgrow(assignments, Priority.ALWAYS);
        assignments.setMinHeight(Ui.denseTableHeight(3));
        SplitPane split = new SplitPane(upper, lower);
        split.setOrientation(Orientation.VERTICAL);
        // the assignments are what the page is for: the window's height goes to them, the attempts and receipt
        // below keep about a third at most (issue 31: three rows at 1440x900, none at 1024x700 before)
        // (more when the runs are few: their rows whole, the rest to the receipt)
        Ui.keepLowerShare(
                split,
                lower,
                0.33,
                () -> upper.prefHeight(-1)
                        - assignments.prefHeight(-1)
                        + Ui.denseTableHeight(Math.max(3, assignments.getItems().size())),
                detailPane.heightProperty(),
                vm.attempts(),
                vm.assignments());
        // the lower part grew for a receipt: the selected run stays in sight above it
        assignments.heightProperty().addListener(o -> Ui.keepSelectedInSight(assignments));
        VBox body = new VBox(10, attentionBox, split);
        VBox.setVgrow(split, Priority.ALWAYS);
        return Ui.page(
                "runs",
                "Runs",
                "Assignments and their execution attempts. Only the current attempt's token can write a terminal"
                        + " state; a run whose worker died is recovered as failed / worker_lost.",
                vm.summaryProperty(),
                body);
    }

    /**
     * The selected run's files on disk (issue 31, item 20): the receipt file's path and content, the output folder's
     * path and entries, a button to open each with the desktop, and, when one cannot be opened from here, why in one
     * line. Hidden while the run has no receipt.
     */
    private VBox filesBox() {
        openReceipt.setOnAction(e -> vm.files().openReceipt());
        openOutput.setOnAction(e -> vm.files().openOutput());
        RunFilesViewModel f = vm.files();
        Label title = new Label("On disk");
        title.getStyleClass().add(Styles.TEXT_BOLD);
        Label receiptPath = pathLabel("run-receipt-path");
        Label receiptText = new Label();
        receiptText.setId("run-receipt-text");
        receiptText.getStyleClass().addAll("mono", Styles.TEXT_SMALL);
        receiptText.setWrapText(true);
        receiptText.setMinHeight(Region.USE_PREF_SIZE);
        receiptText.setMinWidth(0);
        Label outputPath = pathLabel("run-output-path");
        Label entries = new Label();
        entries.setId("run-output-entries");
        entries.getStyleClass().add(Styles.TEXT_SMALL);
        entries.setWrapText(true);
        entries.setMinHeight(Region.USE_PREF_SIZE);
        entries.setMinWidth(0);
        Label why = new Label();
        why.setId("run-files-why");
        why.getStyleClass().addAll(Styles.TEXT_SMALL, Styles.TEXT_MUTED);
        why.setWrapText(true);
        why.setMinHeight(Region.USE_PREF_SIZE);
        why.setMinWidth(0);
        Label problem = new Label();
        problem.setId("run-files-problem");
        problem.getStyleClass().addAll(Styles.TEXT_SMALL, Styles.DANGER);
        problem.setWrapText(true);
        problem.setMinHeight(Region.USE_PREF_SIZE);
        problem.setMinWidth(0);
        problem.textProperty().bind(f.problemProperty());
        problem.visibleProperty().bind(f.problemProperty().isNotEmpty());
        problem.managedProperty().bind(problem.visibleProperty());
        // the buttons are in the action bar above, always in sight; why they are off heads this box
        HBox receiptRow = new HBox(8, caption("Receipt file"), receiptPath);
        receiptRow.setAlignment(Pos.BASELINE_LEFT);
        HBox outputRow = new HBox(8, caption("Output folder"), outputPath);
        outputRow.setAlignment(Pos.BASELINE_LEFT);
        VBox box = new VBox(4, title, why, problem, receiptRow, outputRow, entries, receiptText);
        box.setId("run-files");
        Runnable fill = () -> {
            RunFilesViewModel.Files x = f.filesProperty().get();
            box.setVisible(x != null);
            box.setManaged(x != null);
            openReceipt.setVisible(x != null);
            openReceipt.setManaged(x != null);
            openOutput.setVisible(x != null);
            openOutput.setManaged(x != null);
            if (x == null) {
                return;
            }
            receiptPath.setText(String.valueOf(x.receiptFile()));
            outputPath.setText(String.valueOf(x.outputDir()));
            receiptText.setText(x.receiptHere() ? readable(x.receiptText()) : "");
            receiptText.setVisible(x.receiptHere());
            receiptText.setManaged(x.receiptHere());
            entries.setText(
                    !x.outputHere()
                            ? ""
                            : x.outputEntries().isEmpty()
                                    ? "The output folder is empty."
                                    : "Holds " + String.join(" \u00b7 ", x.outputEntries())
                                            + (x.moreEntries() > 0 ? " \u00b7 and " + x.moreEntries() + " more" : ""));
            entries.setVisible(x.outputHere());
            entries.setManaged(x.outputHere());
            String noReceipt = f.whyNotOpenReceipt();
            String noOutput = f.whyNotOpenOutput();
            openReceipt.setDisable(noReceipt != null);
            openOutput.setDisable(noOutput != null);
            String reason = noReceipt == null
                    ? noOutput
                    : noOutput == null || noOutput.equals(noReceipt) ? noReceipt : noReceipt + " " + noOutput;
            why.setText(reason == null ? "" : reason);
            why.setVisible(reason != null);
            why.setManaged(reason != null);
        };
        f.filesProperty().addListener((obs, o, n) -> fill.run());
        f.openerProperty().addListener((obs, o, n) -> fill.run());
        fill.run();
        return box;
    }

    private static Label caption(String text) {
        Label l = new Label(text);
        l.getStyleClass().add(Styles.TEXT_MUTED);
        l.setMinWidth(Region.USE_PREF_SIZE);
        return l;
    }

    /** A path: wraps anywhere rather than being cut (an ellipsis would hide the file's own name at its end). */
    private static Label pathLabel(String id) {
        Label l = new Label();
        l.setId(id);
        l.getStyleClass().add("mono");
        l.setWrapText(true);
        l.setMinWidth(0);
        l.setMinHeight(Region.USE_PREF_SIZE);
        l.setMaxWidth(Double.MAX_VALUE);
        HBox.setHgrow(l, Priority.ALWAYS);
        return l;
    }

    /**
     * A receipt file as written ({@code {"receipt":7,"assignment":...}} on one line), one field a line; any other
     * text as it is.
     */
    static String readable(String json) {
        String t = json.strip();
        if (!t.startsWith("{") || !t.endsWith("}") || t.indexOf('\n') >= 0) {
            return t;
        }
        StringBuilder sb = new StringBuilder();
        boolean inString = false;
        int depth = 0;
        for (int i = 0; i < t.length(); i++) {
            char c = t.charAt(i);
            if (inString) {
                sb.append(c);
                if (c == '\\') {
                    if (i + 1 < t.length()) {
                        sb.append(t.charAt(++i));
                    }
                } else if (c == '"') {
                    inString = false;
                }
                continue;
            }
            switch (c) {
                case '"' -> {
                    inString = true;
                    sb.append(c);
                }
                case '{', '[' -> {
                    depth++;
                    sb.append(c);
                    if (depth == 1) {
                        sb.append("\n  ");
                    }
                }
                case '}', ']' -> {
                    if (depth == 1) {
                        sb.append('\n');
                    }
                    depth--;
                    sb.append(c);
                }
                case ',' -> sb.append(depth == 1 ? ",\n  " : ",");
                case ':' -> sb.append(depth == 1 ? ": " : ":");
                default -> sb.append(c);
            }
        }
        return sb.toString();
    }

    /** A bulk action's question, in the page (never a modal dialog): how many, and what it does. */
    private HBox confirmBar() {
        Label question = new Label();
        question.setId("runs-bulk-question");
        question.setWrapText(true);
        question.setMinWidth(0);
        question.setMinHeight(Region.USE_PREF_SIZE);
        question.textProperty()
                .bind(Bindings.createStringBinding(
                        () -> vm.pendingBulkProperty().get() == null
                                ? ""
                                : vm.pendingBulkProperty().get().question(),
                        vm.pendingBulkProperty()));
        Button confirm = Ui.button("runs-bulk-confirm", "");
        confirm.getStyleClass().add(Styles.DANGER);
        confirm.textProperty()
                .bind(Bindings.createStringBinding(
                        () -> vm.pendingBulkProperty().get() == null
                                ? ""
                                : vm.pendingBulkProperty().get().confirmText(),
                        vm.pendingBulkProperty()));
        confirm.setOnAction(e -> vm.confirmBulk());
        Button cancel = Ui.button("runs-bulk-cancel", "Cancel");
        cancel.setOnAction(e -> vm.cancelBulk());
        HBox.setHgrow(question, Priority.ALWAYS);
        question.setMaxWidth(Double.MAX_VALUE);
        HBox bar = new HBox(10, question, confirm, cancel);
        bar.setId("runs-bulk-confirm-bar");
        bar.setAlignment(Pos.CENTER_LEFT);
        bar.getStyleClass().add("attention");
        bar.visibleProperty().bind(vm.pendingBulkProperty().isNotNull());
        bar.managedProperty().bind(bar.visibleProperty());
        return bar;
    }

    /**
     * Retry and acknowledge the selected run — or, with several selected, all of them after a
     * confirmation; the outcome in one sentence beside them.
     */
    private HBox actionBar() {
        IntegerBinding many = Bindings.size(vm.selection());
        Button retry = Ui.button("run-retry", "Retry");
        retry.getStyleClass().add(Styles.ACCENT);
        retry.setTooltip(new Tooltip("Create a new assignment that retries the selected failed run (Ctrl+R);"
                + " with several selected, each of them that can be retried"));
        retry.textProperty()
                .bind(Bindings.createStringBinding(
                        () -> many.get() > 1 ? "Retry " + many.get() + "\u2026" : "Retry", many));
        retry.disableProperty()
                .bind(Bindings.createBooleanBinding(
                        () -> many.get() > 1
                                ? !vm.canBulkProperty().get()
                                        || vm.selection().stream().noneMatch(RunsViewModel::isRetryable)
                                : !vm.canRetryProperty().get(),
                        many,
                        vm.canBulkProperty(),
                        vm.canRetryProperty()));
        retry.setOnAction(e -> {
            if (vm.selection().size() > 1) {
                vm.askRetrySelected();
            } else {
                vm.retrySelected();
            }
        });
        Button acknowledge = Ui.button("run-acknowledge", "Acknowledge");
        acknowledge.setTooltip(new Tooltip("Mark the selected failed run as seen, without retrying it (Ctrl+K);"
                + " with several selected, each of them that can be acknowledged"));
        acknowledge
                .textProperty()
                .bind(Bindings.createStringBinding(
                        () -> many.get() > 1 ? "Acknowledge " + many.get() + "\u2026" : "Acknowledge", many));
        acknowledge
                .disableProperty()
                .bind(Bindings.createBooleanBinding(
                        () -> many.get() > 1
                                ? !vm.canBulkProperty().get()
                                        || vm.selection().stream().noneMatch(RunsViewModel::isAcknowledgeable)
                                : !vm.canAcknowledgeProperty().get(),
                        many,
                        vm.canBulkProperty(),
                        vm.canAcknowledgeProperty()));
        acknowledge.setOnAction(e -> {
            if (vm.selection().size() > 1) {
                vm.askAcknowledgeSelected();
            } else {
                vm.acknowledgeSelected();
            }
        });
        HBox bar = new HBox(
                8, retry, acknowledge, Ui.actionFeedback("runs-action", vm.status(), links), openReceipt, openOutput);
        bar.getStyleClass().add("action-bar");
        HBox.setHgrow(bar.getChildren().get(2), Priority.ALWAYS);
        openReceipt.setTooltip(new Tooltip("Opens the selected run's receipt file with the desktop"));
        openOutput.setTooltip(new Tooltip("Opens the folder of the selected run's output with the desktop"));
        return bar;
    }

    private ContextMenu rowMenu() {
        MenuItem retry = new MenuItem("Retry");
        retry.setOnAction(e -> vm.retrySelected());
        retry.disableProperty().bind(vm.canRetryProperty().not());
        MenuItem acknowledge = new MenuItem("Acknowledge");
        acknowledge.setOnAction(e -> vm.acknowledgeSelected());
        acknowledge.disableProperty().bind(vm.canAcknowledgeProperty().not());
        return new ContextMenu(retry, acknowledge);
    }

    private TableView<AssignmentRow> assignmentsTable() {
        TableView<AssignmentRow> t = Ui.table("assignments-table", RunsViewModel.NO_ASSIGNMENTS);
        t.getStyleClass().add(Styles.DENSE); // a list of many runs: as many of them as the window holds
        if (t.getPlaceholder() instanceof Label empty) {
            empty.setId("assignments-empty");
            empty.textProperty().bind(vm.emptyTextProperty()); // a search or a filter says so (issue 31)
        }
        SortedRows.install(t, vm.assignments());
        TableColumn<AssignmentRow, String> id = Ui.column("Assignment", 120, AssignmentRow::id);
        id.getStyleClass().add("mono");
        t.getColumns().add(id);
        TableColumn<AssignmentRow, String> actor = Ui.column("Actor", 90, AssignmentRow::actor);
        Ui.linkCells(actor, "run-actor-", AssignmentRow::id, a -> links.openActor(a.actor()));
        t.getColumns().add(actor);
        t.getColumns().add(stateColumn());
        t.getColumns().add(Ui.column("Token", 75, a -> Formats.token(a.currentAttemptToken())));
        t.getColumns().add(Ui.column("Tries", 60, a -> Integer.toString(a.attempts())));
        t.getColumns().add(Ui.column("Receipt", 160, RunsViewModel::receiptText));
        t.getColumns().add(Ui.column("Provider", 170, AssignmentRow::providerSpec));
        t.getColumns().add(Ui.column("Updated", 85, a -> formats.time(a.updatedAt())));
        TableColumn<AssignmentRow, String> retry = Ui.column(
                "Retry",
                130,
                a -> a.retriedBy() != null
                        ? "retried as " + a.retriedBy()
                        : a.retryOf() != null ? "retries " + a.retryOf() : "");
        Ui.linkCells(
                retry,
                "run-retry-link-",
                AssignmentRow::id,
                a -> links.openAssignment(a.retriedBy() != null ? a.retriedBy() : a.retryOf()));
        t.getColumns().add(retry);
        t.setContextMenu(rowMenu());
        t.setRowFactory(tv -> new TableRow<>() {
            @Override
            protected void updateItem(AssignmentRow a, boolean empty) {
                super.updateItem(a, empty);
                getStyleClass().remove("worker-lost");
                setId(empty || a == null ? null : "assignment-" + a.id());
                if (!empty && a != null && a.needsOperator()) {
                    getStyleClass().add("worker-lost");
                }
            }
        });
        t.getSelectionModel().setSelectionMode(SelectionMode.MULTIPLE);
        t.getSelectionModel().getSelectedItems().addListener((ListChangeListener<AssignmentRow>) c -> vm.selection()
                .setAll(t.getSelectionModel().getSelectedItems().stream()
                        .filter(Objects::nonNull)
                        .toList()));
        t.getSelectionModel().selectedItemProperty().addListener((obs, o, a) -> {
            if (a != null || vm.selectedProperty().get() != null) {
                vm.selectedProperty().set(a);
            }
        });
        vm.selectedProperty().addListener((obs, o, a) -> {
            if (a != null && t.getSelectionModel().getSelectedItem() != a) {
                // chosen by the model (a retry just made, a link from another page): select it and bring it into
                // view, so the row the operator is told about is the one they see (a click needs neither)
                t.getSelectionModel().clearAndSelect(t.getItems().indexOf(a));
                t.scrollTo(a);
            }
        });
        return t;
    }

    private static TableColumn<AssignmentRow, AssignmentRow> stateColumn() {
        TableColumn<AssignmentRow, AssignmentRow> c = new TableColumn<>("State");
        c.setPrefWidth(175);
        c.setMinWidth(175);
        // two chips ("failed", "worker lost · acknowledged") must fit whole: measured with their padding as spaces
        ColumnFit.measureBy(
                c,
                a -> a.state().toLowerCase(Locale.ROOT)
                        + (a.isWorkerLost() ? "\u2002\u2002\u2002" + RunsViewModel.workerLostChip(a) : ""));
        c.setCellValueFactory(f -> new SimpleObjectProperty<>(f.getValue()));
        c.setCellFactory(col -> new TableCell<>() {
            private final Label state = Ui.badge("", Tone.QUIET);
            private final Label lost = Ui.badge("worker lost", Tone.BAD);
            private final HBox box = new HBox(6, state, lost);

            {
                box.setAlignment(Pos.CENTER_LEFT);
            }

            @Override
            protected void updateItem(AssignmentRow a, boolean empty) {
                super.updateItem(a, empty);
                if (empty || a == null) {
                    setGraphic(null);
                    return;
                }
                // red only while an operator must act: acknowledged or retried runs are settled
                boolean settled = a.isWorkerLost() && !a.needsOperator();
                Ui.retone(
                        state,
                        a.state().toLowerCase(Locale.ROOT),
                        settled
                                ? Tone.QUIET
                                : switch (a.state()) {
                                    case "RUNNING" -> Tone.INFO;
                                    case "COMPLETED" -> Tone.GOOD;
                                    case "BLOCKED" -> Tone.WARN;
                                    case "FAILED" -> Tone.BAD;
                                    default -> Tone.QUIET;
                                });
                state.setId("run-state-" + a.id());
                if (a.isWorkerLost()) {
                    Ui.retone(lost, RunsViewModel.workerLostChip(a), settled ? Tone.QUIET : Tone.BAD);
                }
                lost.setVisible(a.isWorkerLost());
                lost.setManaged(a.isWorkerLost());
                lost.setId("worker-lost-" + a.id());
                setGraphic(box);
            }
        });
        return c;
    }

    private TableView<AttemptRow> attemptsTable() {
        TableView<AttemptRow> t = Ui.table("attempts-table", "No attempts.");
        t.getStyleClass().add(Styles.DENSE);
        SortedRows.install(t, vm.attempts());
        TableColumn<AttemptRow, String> id = Ui.column("Attempt", 110, AttemptRow::id);
        id.getStyleClass().add("mono");
        t.getColumns().add(id);
        t.getColumns().add(Ui.column("Assignment", 110, AttemptRow::assignmentId));
        t.getColumns()
                .add(Ui.column(
                        "State", 140, x -> x.state().toLowerCase(Locale.ROOT) + (x.current() ? " (current)" : "")));
        TableColumn<AttemptRow, String> token = Ui.column("Token", 70, x -> Long.toString(x.token()));
        token.getStyleClass().add("token");
        t.getColumns().add(token);
        t.getColumns().add(Ui.column("Lease token", 110, x -> Long.toString(x.leaseToken())));
        TableColumn<AttemptRow, String> process =
                Ui.column("Process", 200, x -> x.process().displayName());
        Ui.linkCells(
                process,
                "attempt-process-",
                AttemptRow::id,
                x -> links.openProcess(x.process().identity()));
        t.getColumns().add(process);
        t.getColumns().add(Ui.column("Started", 80, x -> formats.time(x.startedAt())));
        t.getColumns().add(Ui.column("Ended", 80, x -> x.endedAt() == null ? "" : formats.time(x.endedAt())));
        return t;
    }

    private static Label title(String text) {
        Label l = new Label(text);
        l.getStyleClass().add(Styles.TITLE_4);
        return l;
    }
}
