package dev.sovereign.console.feature.leases;

import dev.sovereign.console.ledger.LiveLedger;
import dev.sovereign.engine.admin.AdminSnapshot;
import dev.sovereign.engine.admin.LeaseRow;
import dev.sovereign.engine.admin.LeaseState;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import javafx.beans.property.ReadOnlyStringProperty;
import javafx.beans.property.ReadOnlyStringWrapper;
import javafx.collections.FXCollections;
import javafx.collections.ObservableList;

/**
 * Every actor and its lease: holder, token, times and a countdown against the lease's real TTL.
 * Rows are merged by actor on each snapshot and re-derived on each clock tick. UI-thread confined.
 */
public final class LeasesViewModel {
    private final LiveLedger ledger;
    private final ObservableList<LeaseItem> rows = FXCollections.observableArrayList();
    /** Made once: a fresh unmodifiable wrapper per call would drop listeners when collected. */
    private final ObservableList<LeaseItem> rowsView = FXCollections.unmodifiableObservableList(rows);
    private final ReadOnlyStringWrapper summary = new ReadOnlyStringWrapper(this, "summary", "");

    public LeasesViewModel(LiveLedger ledger) {
        this.ledger = ledger;
        ledger.snapshotProperty().addListener((obs, old, s) -> merge(s));
        ledger.nowProperty().addListener((obs, old, now) -> tick(now.longValue()));
        merge(ledger.snapshot());
    }

    public ObservableList<LeaseItem> rows() {
        return rowsView;
    }

    /** {@code 3 live · 1 expiring · 0 expired · 2 free}. */
    public ReadOnlyStringProperty summaryProperty() {
        return summary.getReadOnlyProperty();
    }

    public LiveLedger ledger() {
        return ledger;
    }

    private void merge(AdminSnapshot s) {
        List<LeaseRow> fresh = s == null ? List.of() : s.leases();
        Map<String, LeaseItem> byActor = new HashMap<>();
        rows.forEach(i -> byActor.put(i.actor(), i));
        long now = ledger.now();
        ObservableList<LeaseItem> next = FXCollections.observableArrayList();
        for (LeaseRow r : fresh) {
            LeaseItem item = byActor.get(r.actor());
            if (item == null) {
                item = new LeaseItem(r, now);
            } else {
                item.update(r, now);
            }
            next.add(item);
        }
        if (!next.equals(rows)) {
            rows.setAll(next);
        }
        updateSummary(now);
    }

    private void tick(long now) {
        rows.forEach(i -> i.tick(now));
        updateSummary(now);
    }

    private void updateSummary(long now) {
        int[] n = new int[LeaseState.values().length];
        rows.forEach(i -> n[i.row().stateAt(now).ordinal()]++);
        summary.set(n[LeaseState.LIVE.ordinal()] + " live \u00b7 " + n[LeaseState.EXPIRING.ordinal()]
                + " expiring \u00b7 " + n[LeaseState.EXPIRED.ordinal()] + " expired \u00b7 "
                + n[LeaseState.FREE.ordinal()] + " free");
    }
}
