package dev.sovereign.console.feature.mailbox;

import dev.sovereign.console.fx.ClockedCells;
import dev.sovereign.console.fx.FilterBar;
import dev.sovereign.console.fx.SortedRows;
import dev.sovereign.console.fx.Ui;
import dev.sovereign.console.fx.Ui.Tone;
import dev.sovereign.console.ledger.Formats;
import dev.sovereign.console.ledger.Links;
import dev.sovereign.engine.admin.MessageRow;
import java.util.Locale;
import javafx.beans.property.SimpleObjectProperty;
import javafx.scene.Parent;
import javafx.scene.control.Label;
import javafx.scene.control.TableCell;
import javafx.scene.control.TableColumn;
import javafx.scene.control.TableView;
import javafx.scene.layout.FlowPane;
import javafx.scene.layout.Priority;
import javafx.scene.layout.VBox;

/** Mailbox messages, filterable by state, with claim holder, token and a claim countdown. */
public final class MailboxView {
    private final MailboxViewModel vm;
    private final Formats formats;

    private final Links links;

    public MailboxView(MailboxViewModel vm, Formats formats) {
        this(vm, formats, Links.NONE);
    }

    /** {@code links} opens the sender's, the recipient's and the claiming process's pages. */
    public MailboxView(MailboxViewModel vm, Formats formats, Links links) {
        this.vm = vm;
        this.formats = formats;
        this.links = links;
    }

    public Parent create() {
        FlowPane filter = FilterBar.create("mailbox-filter-", vm.filterChoices(), vm.stateFilterProperty());

        TableView<MessageRow> table =
                Ui.table("messages-table", "No messages. Send one with 'sovereign send --from A --to B --subject S'.");
        SortedRows.install(table, vm.rows());
        ClockedCells<MessageRow> clocked = new ClockedCells<>(table, vm.ledger().nowProperty());
        // msg_ + a UUID is 40 characters: the first 8 hex digits tell messages apart (the search takes the whole id)
        TableColumn<MessageRow, String> id = Ui.column("Message", 85, m -> Formats.shortId(m.id()));
        id.getStyleClass().add("mono");
        table.getColumns().add(id);
        table.getColumns().add(stateColumn());
        TableColumn<MessageRow, String> from = Ui.column("From", 85, MessageRow::sender);
        Ui.linkCells(from, "message-from-", MessageRow::id, m -> links.openActor(m.sender()));
        table.getColumns().add(from);
        TableColumn<MessageRow, String> to = Ui.column("To", 85, MessageRow::recipient);
        Ui.linkCells(to, "message-to-", MessageRow::id, m -> links.openActor(m.recipient()));
        table.getColumns().add(to);
        table.getColumns().add(Ui.column("Subject", 150, MessageRow::subject));
        TableColumn<MessageRow, String> claimedBy = Ui.column(
                "Claimed by",
                140,
                m -> m.claimProcess() == null ? "\u2014" : m.claimProcess().name());
        Ui.linkCells(claimedBy, "message-claimed-by-", MessageRow::id, m -> {
            if (m.claimProcess() != null) {
                links.openProcess(m.claimProcess().identity());
            }
        });
        table.getColumns().add(claimedBy);
        TableColumn<MessageRow, String> token = Ui.column("Claim token", 112, m -> Formats.token(m.claimToken()));
        token.getStyleClass().add("token");
        token.setMinWidth(112);
        table.getColumns().add(token);
        table.getColumns()
                .add(clocked.textColumn(
                        "Claim expires", 175, "claim-expires-", MessageRow::id, (m, now) -> vm.claimCountdown(m, now)));
        table.getColumns().add(Ui.column("Retries", 75, m -> m.retryCount() + " / " + m.maxRetries()));
        table.getColumns().add(Ui.column("Updated", 80, m -> formats.time(m.updatedAt())));
        VBox body = new VBox(10, filter, table);
        VBox.setVgrow(table, Priority.ALWAYS);
        return Ui.page(
                "mailbox",
                "Mailbox",
                "Messages and their claims. Only the claiming process, presenting the claim's token, can complete"
                        + " or dead-letter a message.",
                vm.summaryProperty(),
                body);
    }

    private static TableColumn<MessageRow, String> stateColumn() {
        TableColumn<MessageRow, String> c = new TableColumn<>("State");
        c.setPrefWidth(90);
        c.setCellValueFactory(f -> new SimpleObjectProperty<>(f.getValue().state()));
        c.setCellFactory(col -> new TableCell<>() {
            private final Label badge = Ui.badge("", Tone.QUIET);

            @Override
            protected void updateItem(String s, boolean empty) {
                super.updateItem(s, empty);
                if (empty || s == null) {
                    setGraphic(null);
                    return;
                }
                Ui.retone(
                        badge,
                        s.toLowerCase(Locale.ROOT),
                        switch (s) {
                            case "NEW" -> Tone.INFO;
                            case "CLAIMED" -> Tone.WARN;
                            case "DONE" -> Tone.GOOD;
                            case "DEAD" -> Tone.BAD;
                            default -> Tone.QUIET;
                        });
                setGraphic(badge);
            }
        });
        return c;
    }
}
