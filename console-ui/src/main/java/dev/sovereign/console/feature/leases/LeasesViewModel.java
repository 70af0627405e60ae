package dev.sovereign.console.feature.leases;

import dev.sovereign.console.ledger.LiveLedger;
import dev.sovereign.console.ledger.Search;
import dev.sovereign.engine.admin.AdminSnapshot;
import dev.sovereign.engine.admin.LeaseRow;
import dev.sovereign.engine.admin.LeaseState;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import javafx.beans.property.ReadOnlyLongProperty;
import javafx.beans.property.ReadOnlyLongWrapper;
import javafx.beans.property.ReadOnlyStringProperty;
import javafx.beans.property.ReadOnlyStringWrapper;
import javafx.collections.FXCollections;
import javafx.collections.ObservableList;
import javafx.collections.transformation.FilteredList;

/**
 * Every actor and its lease: holder, token, times and a countdown against the lease's real TTL.
 * Rows are merged by actor on each snapshot: an unchanged row is left alone, and when the actors are
 * the same (the usual case) the list itself is not touched, so a refresh with 10,000 leases costs the
 * table nothing but the rows that changed. A clock tick only recounts the summary; each shown row
 * derives its own countdown (see {@link LeaseItem}), and the summary is recounted only when a state
 * can have changed. UI-thread confined.
 */
public final class LeasesViewModel {
    private final LiveLedger ledger;
    private final ObservableList<LeaseItem> rows = FXCollections.observableArrayList();
    /** Made once: a fresh unmodifiable wrapper per call would drop listeners when collected. */
    private final ObservableList<LeaseItem> rowsView = FXCollections.unmodifiableObservableList(rows);
    /** The rows the search lets through; every row while nothing is searched (no predicate, no cost). */
    private final FilteredList<LeaseItem> shown = new FilteredList<>(rowsView);

    private final ReadOnlyStringWrapper summary = new ReadOnlyStringWrapper(this, "summary", "");
    /** Moves after every merge of a snapshot, once its rows are in the items. */
    private final ReadOnlyLongWrapper revision = new ReadOnlyLongWrapper(this, "revision");
    /** The clock reading of the last count, and when the next one is due (see {@link #tick}). */
    private long countedAt = Long.MIN_VALUE;

    private long recountAt = Long.MIN_VALUE;

    public LeasesViewModel(LiveLedger ledger) {
        this.ledger = ledger;
        ledger.snapshotProperty().addListener((obs, old, s) -> merge(s));
        ledger.nowProperty().addListener((obs, old, now) -> tick(now.longValue()));
        ledger.search().queryProperty().addListener((obs, old, q) -> filter());
        merge(ledger.snapshot());
    }

    /** The rows shown: every actor, or those the search finds (by actor, holder or token). */
    public ObservableList<LeaseItem> rows() {
        return shown;
    }

    /**
     * Filters again. A search is checked against rows updated in place (a takeover changes the holder),
     * so while one is active each merge filters again; without one, nothing is done.
     */
    private void filter() {
        if (!ledger.search().isActive()) {
            if (shown.getPredicate() != null) {
                shown.setPredicate(null);
            }
            return;
        }
        String q = ledger.search().queryProperty().get();
        shown.setPredicate(i -> Search.matches(
                q,
                i.row().isFree() ? new long[0] : new long[] {i.row().token()},
                Search.concat(Search.names(i.row().holder()), i.actor())));
    }

    /** {@code 3 live · 1 expiring · 0 expired · 2 free}. */
    public ReadOnlyStringProperty summaryProperty() {
        return summary.getReadOnlyProperty();
    }

    /** Moves after each snapshot is merged: cells that derive from the rows repaint on it. */
    public ReadOnlyLongProperty revisionProperty() {
        return revision.getReadOnlyProperty();
    }

    public LiveLedger ledger() {
        return ledger;
    }

    private void merge(AdminSnapshot s) {
        List<LeaseRow> fresh = s == null ? List.of() : s.leases();
        long now = ledger.now();
        if (sameActors(fresh)) {
            for (int i = 0; i < fresh.size(); i++) {
                rows.get(i).update(fresh.get(i));
            }
        } else {
            Map<String, LeaseItem> byActor = new HashMap<>();
            rows.forEach(i -> byActor.put(i.actor(), i));
            List<LeaseItem> next = new ArrayList<>(fresh.size());
            for (LeaseRow r : fresh) {
                LeaseItem item = byActor.get(r.actor());
                if (item == null) {
                    item = new LeaseItem(r, ledger.nowProperty());
                } else {
                    item.update(r);
                }
                next.add(item);
            }
            rows.setAll(next);
        }
        updateSummary(now);
        if (ledger.search().isActive()) {
            filter();
        }
        revision.set(revision.get() + 1);
    }

    private boolean sameActors(List<LeaseRow> fresh) {
        if (fresh.size() != rows.size()) {
            return false;
        }
        for (int i = 0; i < fresh.size(); i++) {
            LeaseRow r = fresh.get(i);
            LeaseItem item = rows.get(i);
            // The reader hands back the previous object for an unchanged row: then the actor is the same.
            if (r != item.row() && !r.actor().equals(item.actor())) {
                return false;
            }
        }
        return true;
    }

    /**
     * A tick recounts only when some row's state can have changed since the last count: when the
     * clock reached the earliest next transition (a live lease turning expiring, an expiring one
     * expired) or went back. With 10,000 leases this spares a pass over every row ten times a second.
     */
    private void tick(long now) {
        if (now >= recountAt || now < countedAt) {
            updateSummary(now);
        }
    }

    private void updateSummary(long now) {
        int[] n = new int[LeaseState.values().length];
        long next = Long.MAX_VALUE;
        for (int i = 0, size = rows.size(); i < size; i++) {
            LeaseRow r = rows.get(i).row();
            LeaseState state = r.stateAt(now);
            n[state.ordinal()]++;
            next = Math.min(next, nextTransition(r, state));
        }
        countedAt = now;
        recountAt = next;
        summary.set(n[LeaseState.LIVE.ordinal()] + " live \u00b7 " + n[LeaseState.EXPIRING.ordinal()]
                + " expiring \u00b7 " + n[LeaseState.EXPIRED.ordinal()] + " expired \u00b7 "
                + n[LeaseState.FREE.ordinal()] + " free");
    }

    /**
     * The earliest clock reading at which {@code r} may no longer be in {@code state}: never for free
     * or expired rows, expiry for expiring ones, and for live ones a moment no later than the first
     * at which less than a third of the TTL is left (early is only a wasted recount).
     */
    static long nextTransition(LeaseRow r, LeaseState state) {
        return switch (state) {
            case FREE, EXPIRED -> Long.MAX_VALUE;
            case EXPIRING -> r.expiresAt();
            case LIVE -> r.expiresAt() - r.ttlMs() / LeaseRow.EXPIRING_DIVISOR - 1;
        };
    }
}
