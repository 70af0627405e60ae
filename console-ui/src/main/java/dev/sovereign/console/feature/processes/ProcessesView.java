package dev.sovereign.console.feature.processes;

import dev.sovereign.console.fx.ClockedCells;
import dev.sovereign.console.fx.SortedRows;
import dev.sovereign.console.fx.Ui;
import dev.sovereign.console.fx.Ui.Tone;
import dev.sovereign.console.ledger.Formats;
import dev.sovereign.console.ledger.Links;
import dev.sovereign.engine.admin.ProcessRow;
import javafx.beans.property.ReadOnlyObjectWrapper;
import javafx.collections.ListChangeListener;
import javafx.geometry.Pos;
import javafx.scene.Parent;
import javafx.scene.control.Label;
import javafx.scene.control.TableColumn;
import javafx.scene.control.TableView;
import javafx.scene.control.ToggleButton;
import javafx.scene.layout.HBox;
import javafx.scene.layout.Priority;
import javafx.scene.layout.Region;
import javafx.scene.layout.VBox;

/** The process registry with live / stale / stopped, judged by each process's own heartbeat interval. */
public final class ProcessesView {
    private final ProcessesViewModel vm;
    private final Formats formats;

    private final Links links;
    private final StopProcessAction stop;

    public ProcessesView(ProcessesViewModel vm, Formats formats) {
        this(vm, formats, Links.NONE, null);
    }

    /** {@code links} opens a process's page (its label or identity); {@code stop} is "Stop process…" (or null). */
    public ProcessesView(ProcessesViewModel vm, Formats formats, Links links, StopProcessAction stop) {
        this.vm = vm;
        this.formats = formats;
        this.links = links;
        this.stop = stop;
    }

    public Parent create() {
        TableView<ProcessRow> table = Ui.table("processes-table", "No process has registered with this database yet.");
        SortedRows.install(table, vm.rows());
        ClockedCells<ProcessRow> clocked = new ClockedCells<>(table, vm.ledger().nowProperty());
        table.getColumns().add(stateColumn(clocked));
        TableColumn<ProcessRow, String> label = Ui.column(
                "Label",
                130,
                r -> r.process().label() == null ? "" : r.process().label());
        Ui.linkCells(
                label,
                "process-label-",
                r -> r.process().identity(),
                r -> links.openProcess(r.process().identity()));
        table.getColumns().add(label);
        TableColumn<ProcessRow, String> id =
                Ui.column("Identity", 140, r -> r.process().shortId());
        id.getStyleClass().add("mono");
        Ui.linkCells(
                id,
                "process-identity-",
                r -> r.process().identity(),
                r -> links.openProcess(r.process().identity()));
        table.getColumns().add(id);
        table.getColumns().add(Ui.column("Kind", 70, ProcessRow::kind));
        table.getColumns()
                .add(Ui.column(
                        "PID",
                        70,
                        r -> r.process().pid() == null ? "" : r.process().pid().toString()));
        table.getColumns()
                .add(Ui.column(
                        "Host",
                        80,
                        r -> r.process().host() == null ? "" : r.process().host()));
        // --process lets any local call act as this identity: show who last did (decision 0802)
        table.getColumns().add(Ui.column("Claimed by (--process)", 220, ProcessRow::lastClaimedBy));
        table.getColumns().add(Ui.column("Started", 80, r -> formats.time(r.startedAt())));
        table.getColumns()
                .add(clocked.textColumn(
                        "Last heartbeat",
                        140,
                        "heartbeat-",
                        r -> r.process().identity(),
                        (r, now) -> r.stoppedAt() != null
                                ? "stopped " + formats.time(r.stoppedAt())
                                : Formats.secondsAgo(r.heartbeatAt(), now)));
        table.getColumns().add(Ui.column("Beats every", 95, ProcessesViewModel::beatsEvery));
        table.getColumns()
                .add(Ui.column(
                        "Holds",
                        140,
                        r -> r.leasesHeld()
                                + (r.leasesHeld() == 1 ? " lease" : " leases")
                                + (r.activeAttempts() == 0 ? "" : ", " + r.activeAttempts() + " attempts")));
        ToggleButton stopped = new ToggleButton();
        stopped.setId("processes-show-stopped");
        stopped.textProperty().bind(vm.showStoppedTextProperty());
        stopped.selectedProperty().bindBidirectional(vm.showStoppedProperty());
        stopped.setMinWidth(Region.USE_PREF_SIZE);
        VBox body;
        if (stop == null) {
            body = new VBox(8, stopped, table);
        } else {
            table.getSelectionModel()
                    .selectedItemProperty()
                    .addListener((obs, o, r) -> stop.targetProperty().set(r));
            // the selected row, as the snapshot now has it (a stop shows at once)
            table.getItems().addListener((ListChangeListener<ProcessRow>) c -> {
                ProcessRow sel = table.getSelectionModel().getSelectedItem();
                stop.targetProperty().set(sel);
            });
            HBox top = new HBox(12, stopped, StopProcessBar.button("processes", stop));
            top.setAlignment(Pos.CENTER_LEFT);
            HBox.setHgrow(top.getChildren().get(1), Priority.ALWAYS);
            body = new VBox(8, top, StopProcessBar.question("processes", stop), table);
        }
        VBox.setVgrow(table, Priority.ALWAYS);
        return Ui.page(
                "processes",
                "Processes",
                "Every registered process. Stale means it missed 3 of its own heartbeats; stopped means it closed"
                        + " cleanly (hidden unless shown); a CLI identity that never beat has no heartbeat to miss.",
                vm.summaryProperty(),
                body);
    }

    /** The state badge, judged again on every tick (a process turns stale by the clock alone). */
    private TableColumn<ProcessRow, ProcessRow> stateColumn(ClockedCells<ProcessRow> clocked) {
        return clocked.column(
                "State", 150, f -> new ReadOnlyObjectWrapper<>(f.getValue()), cells -> new ClockedCells.Cell<>(cells) {
                    private final Label badge = Ui.badge("", Tone.QUIET);

                    @Override
                    protected void show(ProcessRow r, long now) {
                        ProcessesViewModel.Shown s = vm.shownOf(r);
                        Ui.retone(
                                badge,
                                s.text(),
                                switch (s) {
                                    case LIVE -> Tone.GOOD;
                                    case STALE -> Tone.WARN;
                                    case STOPPED, NO_HEARTBEAT -> Tone.QUIET;
                                });
                        badge.setId("process-state-" + r.process().identity());
                        setGraphic(badge);
                    }
                });
    }
}
