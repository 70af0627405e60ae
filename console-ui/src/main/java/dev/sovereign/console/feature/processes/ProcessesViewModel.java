package dev.sovereign.console.feature.processes;

import dev.sovereign.console.ledger.LiveLedger;
import dev.sovereign.console.ledger.Search;
import dev.sovereign.engine.admin.AdminSnapshot;
import dev.sovereign.engine.admin.ProcessRow;
import dev.sovereign.engine.admin.ProcessState;
import java.util.List;
import javafx.beans.property.ReadOnlyStringProperty;
import javafx.beans.property.ReadOnlyStringWrapper;
import javafx.collections.FXCollections;
import javafx.collections.ObservableList;

/**
 * The process registry: who is live, stale (missed its own heartbeats) or stopped, and what each
 * holds. States are derived from the ticking clock. UI-thread confined.
 */
public final class ProcessesViewModel {
    private final LiveLedger ledger;
    private final ObservableList<ProcessRow> rows = FXCollections.observableArrayList();
    /** Made once: a fresh unmodifiable wrapper per call would drop listeners when collected. */
    private final ObservableList<ProcessRow> rowsView = FXCollections.unmodifiableObservableList(rows);
    private final ReadOnlyStringWrapper summary = new ReadOnlyStringWrapper(this, "summary", "");
    /** Every process of the snapshot, whatever the search: the summary counts them all. */
    private List<ProcessRow> all = List.of();

    public ProcessesViewModel(LiveLedger ledger) {
        this.ledger = ledger;
        ledger.snapshotProperty().addListener((obs, old, s) -> refresh(s));
        ledger.nowProperty().addListener((obs, old, now) -> updateSummary());
        ledger.search().queryProperty().addListener((obs, old, q) -> refresh(ledger.snapshot()));
        refresh(ledger.snapshot());
    }

    public ObservableList<ProcessRow> rows() {
        return rowsView;
    }

    public ReadOnlyStringProperty summaryProperty() {
        return summary.getReadOnlyProperty();
    }

    public LiveLedger ledger() {
        return ledger;
    }

    public ProcessState stateOf(ProcessRow row) {
        return row.stateAt(ledger.now());
    }

    private void refresh(AdminSnapshot s) {
        all = s == null ? List.of() : s.processes();
        List<ProcessRow> fresh = all.stream().filter(r -> ledger.search().matches(new long[0],
                Search.concat(Search.names(r.process()), r.kind(), r.lastClaimedBy()))).toList();
        if (!fresh.equals(rows)) {
            rows.setAll(fresh);
        }
        updateSummary();
    }

    private void updateSummary() {
        long now = ledger.now();
        int[] n = new int[ProcessState.values().length];
        all.forEach(r -> n[r.stateAt(now).ordinal()]++);
        summary.set(n[ProcessState.LIVE.ordinal()] + " live \u00b7 " + n[ProcessState.STALE.ordinal()] + " stale \u00b7 "
                + n[ProcessState.STOPPED.ordinal()] + " stopped");
    }
}
