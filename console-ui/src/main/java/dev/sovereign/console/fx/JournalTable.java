package dev.sovereign.console.fx;

import dev.sovereign.console.ledger.Formats;
import dev.sovereign.console.ledger.Links;
import dev.sovereign.engine.admin.JournalEntry;
import java.util.function.BooleanSupplier;
import javafx.collections.ListChangeListener;
import javafx.collections.ObservableList;
import javafx.scene.control.TableCell;
import javafx.scene.control.TableColumn;
import javafx.scene.control.TableRow;
import javafx.scene.control.TableView;
import javafx.scene.text.Text;

/**
 * Journal rows as a table, in the order given (the actor's and the process's pages: oldest first, like a
 * run's history): time, seq, kind, what it is about and who wrote it — both links — and the sentence, wrapped.
 */
public final class JournalTable {
    private JournalTable() {}

    public static TableView<JournalEntry> create(
            String id, ObservableList<JournalEntry> rows, Formats formats, Links links, String placeholder) {
        return create(id, rows, formats, links, placeholder, () -> true);
    }

    /**
     * As {@link #create(String, ObservableList, Formats, Links, String)}, scrolling to the newest row as rows arrive
     * only while {@code follow} says so (the Journal page: not while the operator reads older rows).
     */
    public static TableView<JournalEntry> create(
            String id,
            ObservableList<JournalEntry> rows,
            Formats formats,
            Links links,
            String placeholder,
            BooleanSupplier follow) {
        TableView<JournalEntry> t = Ui.table(id, placeholder);
        t.setItems(rows);
        // fixed minimums: the sentence wraps in what is left (the kind is in the sentence; refusals are red)
        TableColumn<JournalEntry, String> time = Ui.column("Time", 125, e -> formats.preciseTime(e.at()));
        time.setMinWidth(125);
        t.getColumns().add(time);
        TableColumn<JournalEntry, String> seq = Ui.column("Seq", 75, e -> "#" + e.seq());
        seq.getStyleClass().add("mono");
        seq.setMinWidth(75);
        t.getColumns().add(seq);
        TableColumn<JournalEntry, String> about = Ui.column(
                "About", 140, e -> "actor".equals(e.resourceType()) ? e.resourceId() : Formats.shortId(e.resourceId()));
        Ui.linkCells(about, id + "-about-", e -> Long.toString(e.seq()), e -> open(links, e));
        about.setMinWidth(150);
        t.getColumns().add(about);
        TableColumn<JournalEntry, String> process = Ui.column(
                "Process",
                130,
                e -> e.process() == null ? "\u2014" : e.process().name());
        Ui.linkCells(process, id + "-process-", e -> Long.toString(e.seq()), e -> {
            if (e.process() != null) {
                links.openProcess(e.process().identity());
            }
        });
        process.setMinWidth(130);
        t.getColumns().add(process);
        TableColumn<JournalEntry, String> sentence =
                Ui.column("What happened", 380, e -> formats.humanize(e.sentence()));
        sentence.setCellFactory(c -> new WrappingCell());
        // it wraps: as narrow as its header allows, the rest of the width is its own (nothing else squeezes)
        sentence.getProperties().remove(ColumnFit.TEXT);
        sentence.setMinWidth(220);
        t.getColumns().add(sentence);
        t.setRowFactory(tv -> {
            TableRow<JournalEntry> row = new TableRow<>();
            row.itemProperty().addListener((obs, o, e) -> {
                row.setId(e == null ? null : id + "-row-" + e.seq());
                row.getStyleClass().remove("rejected-row");
                if (e != null && e.isRejection()) {
                    row.getStyleClass().add("rejected-row");
                }
            });
            return row;
        });
        // the newest row (the last) in view as rows arrive
        rows.addListener((ListChangeListener<JournalEntry>) c -> {
            if (!rows.isEmpty() && follow.getAsBoolean()) {
                t.scrollTo(rows.size() - 1);
            }
        });
        return t;
    }

    /** Opens what a row is about: its assignment (an attempt's run), actor, process or message. */
    private static void open(Links links, JournalEntry e) {
        switch (e.resourceType()) {
            case "assignment" -> links.openAssignment(e.resourceId());
            case "actor" -> links.openActor(e.resourceId());
            case "process" -> links.openProcess(e.resourceId());
            case "message" -> links.openMessage(e.resourceId());
            case "attempt" -> links.openAttempt(e.resourceId());
            default -> {
                if (e.actor() != null) {
                    links.openActor(e.actor());
                }
            }
        }
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
