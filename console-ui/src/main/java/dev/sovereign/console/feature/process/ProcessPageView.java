package dev.sovereign.console.feature.process;

import dev.sovereign.console.feature.processes.StopProcessBar;
import dev.sovereign.console.fx.JournalTable;
import dev.sovereign.console.fx.Ui;
import dev.sovereign.console.ledger.Formats;
import dev.sovereign.console.ledger.Links;
import dev.sovereign.engine.admin.AttemptRow;
import dev.sovereign.engine.admin.JournalEntry;
import dev.sovereign.engine.admin.LeaseRow;
import java.util.Locale;
import javafx.geometry.Pos;
import javafx.scene.Node;
import javafx.scene.Parent;
import javafx.scene.control.Label;
import javafx.scene.control.TableColumn;
import javafx.scene.control.TableView;
import javafx.scene.layout.HBox;
import javafx.scene.layout.Priority;
import javafx.scene.layout.Region;
import javafx.scene.layout.VBox;

/**
 * One process's page: what it is and its state; "Stop process…"; the leases it holds now and the attempts it
 * ran side by side; the journal rows that name it, oldest first. Actors, runs and processes named link on.
 */
public final class ProcessPageView {
    private final ProcessPageViewModel vm;
    private final Links links;
    private final Node backForward;

    public ProcessPageView(ProcessPageViewModel vm, Links links, Node backForward) {
        this.vm = vm;
        this.links = links;
        this.backForward = backForward;
    }

    public Parent create() {
        Formats formats = vm.formats();
        Label facts = new Label();
        facts.setId("process-facts");
        facts.setWrapText(true);
        facts.setMinHeight(Region.USE_PREF_SIZE);
        facts.textProperty().bind(vm.factsProperty());

        TableView<LeaseRow> leases = Ui.table("process-leases-table", "It holds no lease now.");
        leases.setItems(vm.leases());
        TableColumn<LeaseRow, String> actor = Ui.column("Actor", 110, LeaseRow::actor);
        Ui.linkCells(actor, "process-lease-actor-", LeaseRow::actor, l -> links.openActor(l.actor()));
        leases.getColumns().add(actor);
        TableColumn<LeaseRow, String> token = Ui.column("Token", 70, l -> Long.toString(l.token()));
        token.getStyleClass().add("token");
        leases.getColumns().add(token);
        leases.getColumns().add(Ui.column("Expires", 80, l -> formats.time(l.expiresAt())));

        TableView<AttemptRow> attempts = Ui.table("process-attempts-table", "No attempt of it in the snapshot.");
        attempts.setItems(vm.attempts());
        TableColumn<AttemptRow, String> assignment = Ui.column("Assignment", 120, AttemptRow::assignmentId);
        assignment.getStyleClass().add("mono");
        Ui.linkCells(assignment, "process-attempt-", AttemptRow::id, a -> links.openAssignment(a.assignmentId()));
        attempts.getColumns().add(assignment);
        TableColumn<AttemptRow, String> attActor = Ui.column("Actor", 90, AttemptRow::actor);
        Ui.linkCells(attActor, "process-attempt-actor-", AttemptRow::id, a -> links.openActor(a.actor()));
        attempts.getColumns().add(attActor);
        attempts.getColumns()
                .add(Ui.column(
                        "State", 110, a -> a.state().toLowerCase(Locale.ROOT) + (a.current() ? " (current)" : "")));
        TableColumn<AttemptRow, String> attToken = Ui.column("Token", 65, a -> Long.toString(a.token()));
        attToken.getStyleClass().add("token");
        attempts.getColumns().add(attToken);
        attempts.getColumns().add(Ui.column("Started", 80, a -> formats.time(a.startedAt())));
        attempts.getColumns().add(Ui.column("Ended", 80, a -> a.endedAt() == null ? "" : formats.time(a.endedAt())));

        VBox left = new VBox(6, Ui.sectionTitle("Leases it holds now"), leases);
        VBox right = new VBox(6, Ui.sectionTitle("Attempts it ran"), attempts);
        VBox.setVgrow(leases, Priority.ALWAYS);
        VBox.setVgrow(attempts, Priority.ALWAYS);
        HBox.setHgrow(left, Priority.ALWAYS);
        HBox.setHgrow(right, Priority.ALWAYS);
        left.setPrefWidth(330);
        left.setMinWidth(300);
        right.setPrefWidth(700);
        HBox upper = new HBox(14, left, right);
        upper.setPrefHeight(190);
        upper.setMinHeight(140);

        TableView<JournalEntry> journal = JournalTable.create(
                "process-journal", vm.journal(), formats, links, "No journal row names this process yet.");
        Label journalSummary = new Label();
        journalSummary.setId("process-journal-summary");
        journalSummary.getStyleClass().add("text-muted");
        journalSummary.textProperty().bind(vm.journalSummaryProperty());
        VBox lower = new VBox(6, new HBox(8, Ui.sectionTitle("Journal"), journalSummary), journal);
        VBox.setVgrow(journal, Priority.ALWAYS);
        ((HBox) lower.getChildren().get(0)).setAlignment(Pos.BASELINE_LEFT);

        VBox body = new VBox(
                10,
                facts,
                StopProcessBar.button("process", vm.stop()),
                StopProcessBar.question("process", vm.stop()),
                upper,
                lower);
        VBox.setVgrow(lower, Priority.ALWAYS);
        return Ui.linkedPage(
                "process",
                vm.titleProperty(),
                "A registered process: what it is, what it holds now, what it ran, and every journal row naming it.",
                null,
                backForward,
                body);
    }
}
