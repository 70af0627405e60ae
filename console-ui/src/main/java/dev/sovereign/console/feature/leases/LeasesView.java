package dev.sovereign.console.feature.leases;

import dev.sovereign.console.fx.ClockedCells;
import dev.sovereign.console.fx.CountdownGauge;
import dev.sovereign.console.fx.SortedRows;
import dev.sovereign.console.fx.Ui;
import dev.sovereign.console.fx.Ui.Tone;
import dev.sovereign.console.ledger.Formats;
import dev.sovereign.console.ledger.Links;
import dev.sovereign.engine.admin.LeaseRow;
import dev.sovereign.engine.admin.LeaseState;
import dev.sovereign.engine.admin.ProcessRef;
import java.util.Comparator;
import java.util.Locale;
import java.util.function.Function;
import javafx.beans.value.ObservableValue;
import javafx.geometry.Insets;
import javafx.scene.Parent;
import javafx.scene.control.Hyperlink;
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
 * <p>Built for 10,000 rows, ten ticks a second and every lease renewed every second. Rows have one
 * fixed height (the table never measures rows it does not show). A {@code TableCell} whose value
 * changes asks the table for a layout pass (it then re-binds and re-styles every visible row), so
 * each column's value changes only when what it shows does: holder, token and acquisition time
 * are their own properties (a renewal changes none of them), and the columns that follow the clock
 * (state, last renewal, countdown) have the item itself as their constant value and are painted
 * (see {@link dev.sovereign.console.fx.PaintedRegion}) by {@link ClockedCells} on each tick and after
 * each snapshot, visiting only the cells on screen. A tick or a round of renewals therefore lays
 * nothing out; a takeover lays out the rows on screen once.
 */
public final class LeasesView {
    private final LeasesViewModel vm;
    private final Formats formats;

    private final Links links;

    public LeasesView(LeasesViewModel vm, Formats formats) {
        this(vm, formats, Links.NONE);
    }

    /** {@code links} opens an actor's page (the actor's name) and the holder's page (its label). */
    public LeasesView(LeasesViewModel vm, Formats formats, Links links) {
        this.vm = vm;
        this.formats = formats;
        this.links = links;
    }

    public Parent create() {
        TableView<LeaseItem> table = Ui.table(
                "leases-table",
                "No actors yet. Add one with 'sovereign actor add NAME'; its lease shows here as soon as a"
                        + " process acquires it.");
        // sortable by any column; rows updated in place move only when a sorted column's order changed
        SortedRows.install(table, vm.rows(), vm.revisionProperty());
        table.setFixedCellSize(44);
        ClockedCells<LeaseItem> clocked =
                new ClockedCells<>(table, vm.ledger().nowProperty()).refreshOn(vm.revisionProperty());
        TableColumn<LeaseItem, String> actor = Ui.column("Actor", 120, LeaseItem::actor);
        actor.getStyleClass().add("text-bold");
        Ui.linkCells(actor, "lease-actor-", LeaseItem::actor, i -> links.openActor(i.actor()));
        table.getColumns().add(actor);
        TableColumn<LeaseItem, LeaseItem> state = clocked.column("State", 90, SELF, StateCell::new);
        state.setComparator(
                Comparator.comparing(i -> i.row().stateAt(vm.ledger().now())));
        table.getColumns().add(state);
        TableColumn<LeaseItem, ProcessRef> holder = LeasesView.<ProcessRef>column(
                "Holder (pid, host)", 220, f -> f.getValue().holderProperty(), c -> new HolderCell(links));
        holder.setMinWidth(250); // label over "proc_… · pid · host": never cut
        holder.setComparator(Comparator.nullsLast(Comparator.comparing(ProcessRef::name, SortedRows.NATURAL)));
        table.getColumns().add(holder);
        TableColumn<LeaseItem, Number> token = LeasesView.<Number>column(
                "Token",
                70,
                f -> f.getValue().tokenProperty(),
                c -> new TextCell<>(t -> t.longValue() == 0 ? "\u2014" : Long.toString(t.longValue())));
        token.getStyleClass().add("token");
        table.getColumns().add(token);
        // the page's key column right after the token, so a narrow window shows it without scrolling (issue 31)
        TableColumn<LeaseItem, LeaseItem> expires = clocked.column("Expires in", 240, SELF, CountdownCell::new);
        expires.setId("leases-column-expires");
        // soonest first; free actors (nothing to expire) last
        expires.setComparator(Comparator.comparingLong(
                i -> i.row().isFree() ? Long.MAX_VALUE : i.row().expiresAt()));
        table.getColumns().add(expires);
        table.getColumns()
                .add(LeasesView.<Number>column(
                        "Acquired",
                        90,
                        f -> f.getValue().acquiredAtProperty(),
                        c -> new TextCell<>(t -> t.longValue() == 0 ? "" : formats.time(t.longValue()))));
        TableColumn<LeaseItem, LeaseItem> renewal = clocked.textColumn(
                "Last renewal",
                195,
                "renewal-",
                LeaseItem::actor,
                (item, now) -> LeaseItem.lastRenewalAt(item.row(), now, formats));
        renewal.setComparator(Comparator.comparing(
                i -> i.row().isFree() ? Long.MIN_VALUE : i.row().renewedAt()));
        table.getColumns().add(renewal);
        return Ui.page(
                "leases",
                "Leases",
                "Which process hosts each actor, with which fencing token, and how long until its lease expires.",
                vm.summaryProperty(),
                table);
    }

    /** The value of the clocked columns: the item itself, which never changes. */
    private static final Callback<TableColumn.CellDataFeatures<LeaseItem, LeaseItem>, ObservableValue<LeaseItem>> SELF =
            f -> f.getValue().selfProperty();

    private static <T> TableColumn<LeaseItem, T> column(
            String title,
            double width,
            Callback<TableColumn.CellDataFeatures<LeaseItem, T>, ObservableValue<T>> value,
            Callback<TableColumn<LeaseItem, T>, TableCell<LeaseItem, T>> cells) {
        TableColumn<LeaseItem, T> c = new TableColumn<>(title);
        c.setPrefWidth(width);
        c.setCellValueFactory(value);
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

    /** Plain text from the cell's value. */
    private static final class TextCell<T> extends TableCell<LeaseItem, T> {
        private final Function<T, String> text;

        TextCell(Function<T, String> text) {
            this.text = text;
        }

        @Override
        protected void updateItem(T value, boolean empty) {
            super.updateItem(value, empty);
            setText(empty || value == null ? null : text.apply(value));
        }
    }

    /** The holder's label on top; its identity, PID and host (display only) below, muted; a dash when free. */
    private static final class HolderCell extends TableCell<LeaseItem, ProcessRef> {
        private final Hyperlink name = new Hyperlink();
        private final Label where = new Label();
        private final VBox box = new VBox(1, name, where);
        private final Label none = new Label("\u2014");

        private ProcessRef shown;

        HolderCell(Links links) {
            where.getStyleClass().addAll("countdown-text", "mono");
            name.getStyleClass().add("table-link");
            name.setPadding(Insets.EMPTY);
            name.setFocusTraversable(false);
            name.setOnAction(e -> {
                name.setVisited(false);
                if (getTableView() != null && getIndex() >= 0) {
                    getTableView().getSelectionModel().clearAndSelect(getIndex());
                }
                if (shown != null) {
                    links.openProcess(shown.identity());
                }
            });
        }

        @Override
        protected void updateItem(ProcessRef holder, boolean empty) {
            super.updateItem(holder, empty);
            if (empty) {
                setGraphic(null);
                return;
            }
            if (holder == null) {
                setGraphic(none);
                return;
            }
            shown = holder;
            name.setText(holder.name());
            name.setId("lease-holder-" + holder.identity());
            where.setText(holder.shortId()
                    + (holder.pid() == null ? "" : " \u00b7 pid " + holder.pid())
                    + (holder.host() == null ? "" : " \u00b7 " + holder.host()));
            setGraphic(box);
        }
    }

    /** The state badge; restyled only when the state changes (expiring, expired: rare events). */
    private static final class StateCell extends ClockedCells.Cell<LeaseItem, LeaseItem> {
        private final Label badge = Ui.badge("", Tone.QUIET);
        private LeaseState shown;
        private String actor;

        StateCell(ClockedCells<LeaseItem> cells) {
            super(cells);
        }

        @Override
        protected void show(LeaseItem item, long now) {
            LeaseState s = item.row().stateAt(now);
            if (s != shown) {
                shown = s;
                Ui.retone(badge, s.name().toLowerCase(Locale.ROOT), tone(s));
            }
            if (!item.actor().equals(actor)) {
                actor = item.actor();
                badge.setId("state-" + actor);
            }
            setGraphic(badge);
        }
    }

    /** A bar draining with the TTL and the time left in words, painted; nothing for a free actor. */
    private static final class CountdownCell extends ClockedCells.Cell<LeaseItem, LeaseItem> {
        private final CountdownGauge gauge = new CountdownGauge();

        CountdownCell(ClockedCells<LeaseItem> cells) {
            super(cells);
            gauge.setFont(smaller(getFont()));
            fontProperty().addListener((o, a, f) -> gauge.setFont(smaller(f)));
        }

        @Override
        protected void show(LeaseItem item, long now) {
            LeaseRow r = item.row();
            if (r.isFree()) {
                setGraphic(null);
                return;
            }
            gauge.setId("countdown-" + item.actor());
            gauge.show(r.fractionRemainingAt(now), LeaseItem.countdownAt(r, now), tone(r.stateAt(now)));
            setGraphic(gauge);
        }
    }
}
