package dev.sovereign.console.feature.leases;

import dev.sovereign.console.fx.CountdownGauge;
import dev.sovereign.console.fx.TickingText;
import dev.sovereign.console.fx.Ui;
import dev.sovereign.console.fx.Ui.Tone;
import dev.sovereign.console.ledger.Formats;
import dev.sovereign.engine.admin.LeaseRow;
import dev.sovereign.engine.admin.LeaseState;
import dev.sovereign.console.fx.ClockedCells;
import java.util.Locale;
import java.util.function.Function;
import javafx.beans.value.ObservableValue;
import javafx.scene.Parent;
import javafx.scene.control.Label;
import javafx.scene.control.TableCell;
import javafx.scene.control.TableColumn;
import javafx.scene.control.TableView;
import javafx.scene.layout.VBox;
import javafx.scene.text.Font;
import javafx.util.Callback;

/**
 * The leases table: one row per actor, with a live countdown bar against the real TTL.
 *
 * <p>Built for 10,000 rows and ten ticks a second: rows have one fixed height (the table never
 * measures rows it does not show); every column's value is the row's own {@link LeaseItem#rowProperty()}
 * (no binding is made per cell update); and what changes with the clock is painted (see
 * {@link dev.sovereign.console.fx.PaintedRegion}) by ONE clock listener that visits only the cells on
 * screen ({@link ClockedCells}). A tick therefore never lays the table out; a lease change lays out the rows on screen once.
 */
public final class LeasesView {
    private final LeasesViewModel vm;
    private final Formats formats;

    public LeasesView(LeasesViewModel vm, Formats formats) {
        this.vm = vm;
        this.formats = formats;
    }

    public Parent create() {
        TableView<LeaseItem> table = Ui.table("leases-table",
                "No actors yet. Add one with 'sovereign actor add NAME'; its lease shows here as soon as a"
                        + " process acquires it.");
        table.setItems(vm.rows());
        table.setFixedCellSize(44);
        ClockedCells<LeaseItem> clocked = new ClockedCells<>(table, vm.ledger().nowProperty());
        TableColumn<LeaseItem, String> actor = Ui.column("Actor", 120, LeaseItem::actor);
        actor.getStyleClass().add("text-bold");
        table.getColumns().add(actor);
        table.getColumns().add(clocked.column("State", 90, ROW, StateCell::new));
        table.getColumns().add(rowColumn("Holder (pid, host)", 220, c -> new HolderCell()));
        TableColumn<LeaseItem, LeaseRow> token = rowColumn("Token", 70,
                c -> new TextCell(r -> r.isFree() ? "\u2014" : Long.toString(r.token())));
        token.getStyleClass().add("token");
        table.getColumns().add(token);
        table.getColumns().add(rowColumn("Acquired", 90,
                c -> new TextCell(r -> r.isFree() ? "" : formats.time(r.acquiredAt()))));
        table.getColumns().add(clocked.column("Last renewal", 195, ROW, cells -> new RenewalCell(cells, formats)));
        table.getColumns().add(clocked.column("Expires in", 240, ROW, CountdownCell::new));
        return Ui.page("leases", "Leases",
                "Which process hosts each actor, with which fencing token, and how long until its lease expires.",
                vm.summaryProperty(), table);
    }

    /** Every column's value is the row itself: the same observable per item, no allocation per update. */
    private static final Callback<TableColumn.CellDataFeatures<LeaseItem, LeaseRow>, ObservableValue<LeaseRow>> ROW =
            f -> f.getValue().rowProperty();

    private static TableColumn<LeaseItem, LeaseRow> rowColumn(String title, double width,
            Callback<TableColumn<LeaseItem, LeaseRow>, TableCell<LeaseItem, LeaseRow>> cells) {
        TableColumn<LeaseItem, LeaseRow> c = new TableColumn<>(title);
        c.setPrefWidth(width);
        c.setCellValueFactory(ROW);
        c.setCellFactory(cells);
        return c;
    }

    static Tone tone(LeaseState s) {
        return switch (s) {
            case LIVE -> Tone.GOOD;
            case EXPIRING -> Tone.WARN;
            case EXPIRED -> Tone.BAD;
            case FREE -> Tone.QUIET;
        };
    }

    private static Font smaller(Font f) {
        return Font.font(f.getFamily(), f.getSize() * 0.85);
    }

    /** Plain text from the row; changes only when the row does. */
    private static final class TextCell extends TableCell<LeaseItem, LeaseRow> {
        private final Function<LeaseRow, String> text;

        TextCell(Function<LeaseRow, String> text) {
            this.text = text;
        }

        @Override
        protected void updateItem(LeaseRow r, boolean empty) {
            super.updateItem(r, empty);
            setText(empty || r == null ? null : text.apply(r));
        }
    }

    /** The holder's label on top; its identity, PID and host (display only) below, muted. */
    private static final class HolderCell extends TableCell<LeaseItem, LeaseRow> {
        private final Label name = new Label();
        private final Label where = new Label();
        private final VBox box = new VBox(1, name, where);
        private final Label none = new Label("\u2014");

        HolderCell() {
            where.getStyleClass().addAll("countdown-text", "mono");
        }

        @Override
        protected void updateItem(LeaseRow r, boolean empty) {
            super.updateItem(r, empty);
            if (empty || r == null) {
                setGraphic(null);
                return;
            }
            if (r.isFree()) {
                setGraphic(none);
                return;
            }
            name.setText(r.holder().name());
            where.setText(r.holder().shortId() + (r.holder().pid() == null ? "" : " \u00b7 pid " + r.holder().pid())
                    + (r.holder().host() == null ? "" : " \u00b7 " + r.holder().host()));
            setGraphic(box);
        }
    }

    /** The state badge; restyled only when the state changes (expiring, expired: rare events). */
    private static final class StateCell extends ClockedCells.Cell<LeaseItem, LeaseRow> {
        private final Label badge = Ui.badge("", Tone.QUIET);
        private LeaseState shown;
        private String actor;

        StateCell(ClockedCells<LeaseItem> cells) {
            super(cells);
        }

        @Override
        protected void show(LeaseRow r, long now) {
            LeaseState s = r.stateAt(now);
            if (s != shown) {
                shown = s;
                Ui.retone(badge, s.name().toLowerCase(Locale.ROOT), tone(s));
            }
            if (!r.actor().equals(actor)) {
                actor = r.actor();
                badge.setId("state-" + actor);
            }
            setGraphic(badge);
        }
    }

    /** When the lease was last renewed and how long ago, painted. */
    private static final class RenewalCell extends ClockedCells.Cell<LeaseItem, LeaseRow> {
        private final TickingText text = new TickingText();
        private final Formats formats;

        RenewalCell(ClockedCells<LeaseItem> cells, Formats formats) {
            super(cells);
            this.formats = formats;
            text.getStyleClass().add("plain");
            text.setFont(getFont());
            fontProperty().addListener((o, a, f) -> text.setFont(f));
        }

        @Override
        protected void show(LeaseRow r, long now) {
            text.setId("renewal-" + r.actor());
            text.setText(LeaseItem.lastRenewalAt(r, now, formats));
            setGraphic(text);
        }
    }

    /** A bar draining with the TTL and the time left in words, painted; nothing for a free actor. */
    private static final class CountdownCell extends ClockedCells.Cell<LeaseItem, LeaseRow> {
        private final CountdownGauge gauge = new CountdownGauge();

        CountdownCell(ClockedCells<LeaseItem> cells) {
            super(cells);
            gauge.setFont(smaller(getFont()));
            fontProperty().addListener((o, a, f) -> gauge.setFont(smaller(f)));
        }

        @Override
        protected void show(LeaseRow r, long now) {
            if (r.isFree()) {
                setGraphic(null);
                return;
            }
            gauge.setId("countdown-" + r.actor());
            gauge.show(r.fractionRemainingAt(now), LeaseItem.countdownAt(r, now), tone(r.stateAt(now)));
            setGraphic(gauge);
        }
    }
}
