package dev.sovereign.console.feature.processes;

import dev.sovereign.console.fx.ClockedCells;
import dev.sovereign.console.fx.SortedRows;
import dev.sovereign.console.fx.Ui;
import dev.sovereign.console.fx.Ui.Tone;
import dev.sovereign.console.ledger.Formats;
import dev.sovereign.engine.admin.ProcessRow;
import javafx.beans.property.ReadOnlyObjectWrapper;
import javafx.scene.Parent;
import javafx.scene.control.Label;
import javafx.scene.control.TableColumn;
import javafx.scene.control.TableView;

/** The process registry with live / stale / stopped, judged by each process's own heartbeat interval. */
public final class ProcessesView {
    private final ProcessesViewModel vm;
    private final Formats formats;

    public ProcessesView(ProcessesViewModel vm, Formats formats) {
        this.vm = vm;
        this.formats = formats;
    }

    public Parent create() {
        TableView<ProcessRow> table = Ui.table("processes-table", "No process has registered with this database yet.");
        SortedRows.install(table, vm.rows());
        ClockedCells<ProcessRow> clocked = new ClockedCells<>(table, vm.ledger().nowProperty());
        table.getColumns().add(stateColumn(clocked));
        table.getColumns().add(Ui.column("Label", 130, r -> r.process().label() == null ? "" : r.process().label()));
        TableColumn<ProcessRow, String> id = Ui.column("Identity", 140, r -> r.process().shortId());
        id.getStyleClass().add("mono");
        table.getColumns().add(id);
        table.getColumns().add(Ui.column("Kind", 70, ProcessRow::kind));
        table.getColumns().add(Ui.column("PID", 70, r -> r.process().pid() == null ? "" : r.process().pid().toString()));
        table.getColumns().add(Ui.column("Host", 80, r -> r.process().host() == null ? "" : r.process().host()));
        // --process lets any local call act as this identity: show who last did (decision 0802)
        table.getColumns().add(Ui.column("Claimed by (--process)", 220, ProcessRow::lastClaimedBy));
        table.getColumns().add(Ui.column("Started", 80, r -> formats.time(r.startedAt())));
        table.getColumns().add(clocked.textColumn("Last heartbeat", 140, "heartbeat-", r -> r.process().identity(),
                (r, now) -> r.stoppedAt() != null ? "stopped " + formats.time(r.stoppedAt())
                        : Formats.secondsAgo(r.heartbeatAt(), now)));
        table.getColumns().add(Ui.column("Beats every", 95, ProcessesViewModel::beatsEvery));
        table.getColumns().add(Ui.column("Holds", 140, r -> r.leasesHeld() + (r.leasesHeld() == 1 ? " lease" : " leases")
                + (r.activeAttempts() == 0 ? "" : ", " + r.activeAttempts() + " attempts")));
        javafx.scene.control.ToggleButton stopped = new javafx.scene.control.ToggleButton();
        stopped.setId("processes-show-stopped");
        stopped.textProperty().bind(vm.showStoppedTextProperty());
        stopped.selectedProperty().bindBidirectional(vm.showStoppedProperty());
        stopped.setMinWidth(javafx.scene.layout.Region.USE_PREF_SIZE);
        javafx.scene.layout.VBox body = new javafx.scene.layout.VBox(8, stopped, table);
        javafx.scene.layout.VBox.setVgrow(table, javafx.scene.layout.Priority.ALWAYS);
        return Ui.page("processes", "Processes",
                "Every registered process. Stale means it missed 3 of its own heartbeats; stopped means it closed"
                        + " cleanly (hidden unless shown); a CLI identity that never beat has no heartbeat to miss.",
                vm.summaryProperty(), body);
    }

    /** The state badge, judged again on every tick (a process turns stale by the clock alone). */
    private TableColumn<ProcessRow, ProcessRow> stateColumn(ClockedCells<ProcessRow> clocked) {
        return clocked.column("State", 150, f -> new ReadOnlyObjectWrapper<>(f.getValue()),
                cells -> new ClockedCells.Cell<>(cells) {
                    private final Label badge = Ui.badge("", Tone.QUIET);

                    @Override
                    protected void show(ProcessRow r, long now) {
                        ProcessesViewModel.Shown s = vm.shownOf(r);
                        Ui.retone(badge, s.text(), switch (s) {
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
