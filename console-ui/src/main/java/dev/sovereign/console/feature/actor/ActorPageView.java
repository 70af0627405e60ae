package dev.sovereign.console.feature.actor;

import dev.sovereign.console.feature.runs.RunsViewModel;
import dev.sovereign.console.fx.JournalTable;
import dev.sovereign.console.fx.Ui;
import dev.sovereign.console.ledger.Formats;
import dev.sovereign.console.ledger.Links;
import dev.sovereign.engine.admin.AssignmentRow;
import dev.sovereign.engine.admin.JournalEntry;
import java.util.Locale;
import javafx.beans.binding.Bindings;
import javafx.collections.ObservableList;
import javafx.geometry.Insets;
import javafx.scene.Node;
import javafx.scene.Parent;
import javafx.scene.control.Label;
import javafx.scene.control.Tab;
import javafx.scene.control.TabPane;
import javafx.scene.control.TableColumn;
import javafx.scene.control.TableRow;
import javafx.scene.control.TableView;
import javafx.scene.layout.Priority;
import javafx.scene.layout.VBox;

/**
 * One actor's page: who holds it now; its holds over time and its runs side by side; its journal rows and
 * refused writes below, oldest first. Every process, run and actor named links to its own page.
 */
public final class ActorPageView {
    private final ActorPageViewModel vm;
    private final Links links;
    private final Node backForward;

    public ActorPageView(ActorPageViewModel vm, Links links, Node backForward) {
        this.vm = vm;
        this.links = links;
        this.backForward = backForward;
    }

    /** A tab titled with how many rows it has: {@code Runs (2)}. */
    private static Tab tab(String title, ObservableList<?> rows, Node content) {
        Tab t = new Tab();
        t.setId("actor-tab-" + title.toLowerCase(Locale.ROOT).replace(' ', '-'));
        t.textProperty().bind(Bindings.createStringBinding(() -> title + " (" + rows.size() + ")", rows));
        t.setContent(content);
        return t;
    }

    public Parent create() {
        Formats formats = vm.formats();
        TableView<ActorPageViewModel.Hold> holds =
                Ui.table("actor-holds-table", "No hold in the journal rows read: nobody acquired this actor's lease.");
        holds.setItems(vm.holds());
        TableColumn<ActorPageViewModel.Hold, String> token = Ui.column("Token", 70, h -> Long.toString(h.token()));
        token.getStyleClass().add("token");
        holds.getColumns().add(token);
        TableColumn<ActorPageViewModel.Hold, String> holder =
                Ui.column("Holder", 150, h -> h.holder().name());
        Ui.linkCells(
                holder,
                "actor-hold-holder-",
                h -> Long.toString(h.token()),
                h -> links.openProcess(h.holder().identity()));
        holds.getColumns().add(holder);
        holds.getColumns().add(Ui.column("How", 80, ActorPageViewModel.Hold::began));
        holds.getColumns().add(Ui.column("From", 80, h -> formats.time(h.from())));
        holds.getColumns().add(Ui.column("To", 80, h -> h.to() == null ? "\u2014" : formats.time(h.to())));
        holds.getColumns().add(Ui.column("Ended", 200, ActorPageViewModel.Hold::ended));
        holds.setRowFactory(t -> {
            TableRow<ActorPageViewModel.Hold> row = new TableRow<>();
            row.itemProperty().addListener((obs, o, h) -> row.setId(h == null ? null : "actor-hold-" + h.token()));
            return row;
        });

        TableView<AssignmentRow> runs = Ui.table("actor-runs-table", "No run of this actor in the snapshot.");
        runs.setItems(vm.runs());
        TableColumn<AssignmentRow, String> id = Ui.column("Assignment", 120, AssignmentRow::id);
        id.getStyleClass().add("mono");
        Ui.linkCells(id, "actor-run-", AssignmentRow::id, a -> links.openAssignment(a.id()));
        runs.getColumns().add(id);
        runs.getColumns()
                .add(Ui.column(
                        "State",
                        90,
                        a -> a.state().toLowerCase(Locale.ROOT)
                                + (RunsViewModel.workerLostChip(a).isEmpty()
                                        ? ""
                                        : " \u00b7 " + RunsViewModel.workerLostChip(a))));
        runs.getColumns().add(Ui.column("Token", 65, a -> Formats.token(a.currentAttemptToken())));
        runs.getColumns().add(Ui.column("Receipt", 130, RunsViewModel::receiptText));
        runs.getColumns().add(Ui.column("Updated", 80, a -> formats.time(a.updatedAt())));

        VBox upper = new VBox(6, Ui.sectionTitle("Holds over time"), holds);
        VBox.setVgrow(holds, Priority.ALWAYS);
        upper.setPrefHeight(210);
        upper.setMinHeight(150);

        TableView<JournalEntry> journal = JournalTable.create(
                "actor-journal", vm.journal(), formats, links, "No journal row names this actor yet.");
        TableView<JournalEntry> refused = JournalTable.create(
                "actor-rejections",
                vm.rejections(),
                formats,
                links,
                "No refused write names this actor among the rows read.");
        Label runsSummary = new Label();
        runsSummary.setId("actor-runs-summary");
        runsSummary.getStyleClass().add("text-muted");
        runsSummary.textProperty().bind(vm.runsSummaryProperty());
        VBox runsBox = new VBox(6, runsSummary, runs);
        VBox.setVgrow(runs, Priority.ALWAYS);
        runsBox.setPadding(new Insets(6, 0, 0, 0));
        Tab journalTab = tab("Journal", vm.journal(), journal);
        Tab runsTab = tab("Runs", vm.runs(), runsBox);
        Tab refusedTab = tab("Refused writes", vm.rejections(), refused);
        TabPane tabs = new TabPane(journalTab, runsTab, refusedTab);
        tabs.setId("actor-tabs");
        tabs.setTabClosingPolicy(TabPane.TabClosingPolicy.UNAVAILABLE);
        Label journalSummary = new Label();
        journalSummary.setId("actor-journal-summary");
        journalSummary.getStyleClass().add("text-muted");
        journalSummary.textProperty().bind(vm.journalSummaryProperty());
        VBox lower = new VBox(6, journalSummary, tabs);
        VBox.setVgrow(tabs, Priority.ALWAYS);
        VBox body = new VBox(12, upper, lower);
        VBox.setVgrow(lower, Priority.ALWAYS);
        return Ui.linkedPage(
                "actor",
                vm.titleProperty(),
                "Who held this actor's lease, with which token, from when to when and how each hold ended; its runs;"
                        + " every journal row that names it.",
                vm.nowProperty(),
                backForward,
                body);
    }
}
