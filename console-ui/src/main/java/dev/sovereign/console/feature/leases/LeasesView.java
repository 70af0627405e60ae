package dev.sovereign.console.feature.leases;

import dev.sovereign.console.fx.Ui;
import dev.sovereign.console.fx.Ui.Tone;
import dev.sovereign.console.ledger.Formats;
import dev.sovereign.engine.admin.LeaseRow;
import dev.sovereign.engine.admin.LeaseState;
import java.util.function.Function;
import javafx.beans.binding.Bindings;
import javafx.beans.property.SimpleObjectProperty;
import javafx.beans.value.ChangeListener;
import javafx.geometry.Pos;
import javafx.scene.Parent;
import javafx.scene.control.Label;
import javafx.scene.control.ProgressBar;
import javafx.scene.control.TableCell;
import javafx.scene.control.TableColumn;
import javafx.scene.control.TableView;
import javafx.scene.layout.VBox;

/** The leases table: one row per actor, with a live countdown bar against the real TTL. */
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
        TableColumn<LeaseItem, String> actor = Ui.column("Actor", 120, LeaseItem::actor);
        actor.getStyleClass().add("text-bold");
        table.getColumns().add(actor);
        table.getColumns().add(stateColumn());
        table.getColumns().add(holderColumn());
        TableColumn<LeaseItem, String> token = fromRow("Token", 70, r -> r.isFree() ? "\u2014" : Long.toString(r.token()));
        token.getStyleClass().add("token");
        table.getColumns().add(token);
        table.getColumns().add(fromRow("Acquired", 90, r -> r.isFree() ? "" : formats.time(r.acquiredAt())));
        table.getColumns().add(Ui.liveColumn("Last renewal", 195, item -> Bindings.createStringBinding(() -> {
            LeaseRow r = item.row();
            return r.isFree() ? "" : formats.time(r.renewedAt()) + "  (" + Formats.age(r.renewedAt(), vm.ledger().now())
                    + ")";
        }, item.rowProperty(), vm.ledger().nowProperty())));
        table.getColumns().add(countdownColumn());
        return Ui.page("leases", "Leases",
                "Which process hosts each actor, with which fencing token, and how long until its lease expires.",
                vm.summaryProperty(), table);
    }

    private static TableColumn<LeaseItem, String> fromRow(String title, double width, Function<LeaseRow, String> text) {
        return Ui.liveColumn(title, width, item -> Bindings.createStringBinding(() -> text.apply(item.row()),
                item.rowProperty()));
    }

    /** The holder's label on top; its identity, PID and host (display only) below, muted. */
    private static TableColumn<LeaseItem, LeaseRow> holderColumn() {
        TableColumn<LeaseItem, LeaseRow> c = new TableColumn<>("Holder (pid, host)");
        c.setPrefWidth(220);
        c.setCellValueFactory(f -> f.getValue().rowProperty());
        c.setCellFactory(col -> new TableCell<>() {
            private final Label name = new Label();
            private final Label where = new Label();
            private final VBox box = new VBox(1, name, where);

            {
                where.getStyleClass().addAll("countdown-text", "mono");
            }

            @Override
            protected void updateItem(LeaseRow r, boolean empty) {
                super.updateItem(r, empty);
                if (empty || r == null || r.isFree()) {
                    setGraphic(empty || r == null ? null : new Label("\u2014"));
                    return;
                }
                name.setText(r.holder().name());
                where.setText(r.holder().shortId() + (r.holder().pid() == null ? "" : " \u00b7 pid " + r.holder().pid())
                        + (r.holder().host() == null ? "" : " \u00b7 " + r.holder().host()));
                setGraphic(box);
            }
        });
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

    private static TableColumn<LeaseItem, LeaseState> stateColumn() {
        TableColumn<LeaseItem, LeaseState> c = new TableColumn<>("State");
        c.setPrefWidth(90);
        c.setCellValueFactory(f -> f.getValue().stateProperty());
        c.setCellFactory(col -> new TableCell<>() {
            private final Label badge = Ui.badge("", Tone.QUIET);

            @Override
            protected void updateItem(LeaseState s, boolean empty) {
                super.updateItem(s, empty);
                if (empty || s == null) {
                    setGraphic(null);
                    return;
                }
                Ui.retone(badge, s.name().toLowerCase(java.util.Locale.ROOT), tone(s));
                badge.setId("state-" + getTableRow().getItem().actor());
                setGraphic(badge);
            }
        });
        return c;
    }

    private static TableColumn<LeaseItem, LeaseItem> countdownColumn() {
        TableColumn<LeaseItem, LeaseItem> c = new TableColumn<>("Expires in");
        c.setPrefWidth(240);
        c.setCellValueFactory(f -> new SimpleObjectProperty<>(f.getValue()));
        c.setCellFactory(col -> new CountdownCell());
        return c;
    }

    /** A progress bar draining with the TTL, and the time left in words; follows its item's ticks. */
    private static final class CountdownCell extends TableCell<LeaseItem, LeaseItem> {
        private final ProgressBar bar = new ProgressBar();
        private final Label text = new Label();
        private final VBox box = new VBox(2, bar, text);
        private final ChangeListener<LeaseState> onState = (obs, o, s) -> restyle(s);
        private LeaseItem bound;

        CountdownCell() {
            bar.getStyleClass().add("countdown");
            bar.setMaxWidth(Double.MAX_VALUE);
            text.getStyleClass().add("countdown-text");
            box.setAlignment(Pos.CENTER_LEFT);
        }

        @Override
        protected void updateItem(LeaseItem item, boolean empty) {
            super.updateItem(item, empty);
            if (bound != null) {
                bar.progressProperty().unbind();
                text.textProperty().unbind();
                bound.stateProperty().removeListener(onState);
                bound = null;
            }
            if (empty || item == null) {
                setGraphic(null);
                return;
            }
            bound = item;
            bar.setId("countdown-" + item.actor());
            text.setId("countdown-text-" + item.actor());
            bar.progressProperty().bind(item.fractionLeftProperty());
            text.textProperty().bind(item.countdownProperty());
            item.stateProperty().addListener(onState);
            restyle(item.state());
            setGraphic(item.state() == LeaseState.FREE ? null : box);
        }

        private void restyle(LeaseState s) {
            bar.getStyleClass().removeAll("good", "warn", "bad", "quiet");
            bar.getStyleClass().add(tone(s).styleClass());
            if (bound != null) {
                setGraphic(s == LeaseState.FREE ? null : box);
            }
        }
    }

}
