package dev.sovereign.console.feature.leases;

import dev.sovereign.console.ledger.Formats;
import dev.sovereign.engine.admin.LeaseRow;
import dev.sovereign.engine.admin.LeaseState;
import javafx.beans.property.ReadOnlyDoubleProperty;
import javafx.beans.property.ReadOnlyDoubleWrapper;
import javafx.beans.property.ReadOnlyObjectProperty;
import javafx.beans.property.ReadOnlyObjectWrapper;
import javafx.beans.property.ReadOnlyStringProperty;
import javafx.beans.property.ReadOnlyStringWrapper;

/**
 * One row of the leases table: the last snapshot's row plus what the ticking clock derives from it
 * (state, fraction of TTL left, countdown text). Kept across snapshots (keyed by actor) so the
 * table's selection and scroll position survive refreshes. UI-thread confined.
 */
public final class LeaseItem {
    private final String actor;
    private final ReadOnlyObjectWrapper<LeaseRow> row = new ReadOnlyObjectWrapper<>(this, "row");
    private final ReadOnlyObjectWrapper<LeaseState> state = new ReadOnlyObjectWrapper<>(this, "state");
    private final ReadOnlyDoubleWrapper fractionLeft = new ReadOnlyDoubleWrapper(this, "fractionLeft");
    private final ReadOnlyStringWrapper countdown = new ReadOnlyStringWrapper(this, "countdown", "");

    LeaseItem(LeaseRow row, long now) {
        this.actor = row.actor();
        update(row, now);
    }

    void update(LeaseRow newRow, long now) {
        row.set(newRow);
        tick(now);
    }

    void tick(long now) {
        LeaseRow r = row.get();
        state.set(r.stateAt(now));
        fractionLeft.set(r.fractionRemainingAt(now));
        if (r.isFree()) {
            countdown.set("");
        } else if (r.stateAt(now) == LeaseState.EXPIRED) {
            countdown.set("expired " + Formats.duration(now - r.expiresAt()) + " ago");
        } else {
            countdown.set(Formats.duration(r.remainingAt(now)) + " of " + Formats.duration(r.ttlMs()));
        }
    }

    public String actor() {
        return actor;
    }

    public LeaseRow row() {
        return row.get();
    }

    public ReadOnlyObjectProperty<LeaseRow> rowProperty() {
        return row.getReadOnlyProperty();
    }

    public ReadOnlyObjectProperty<LeaseState> stateProperty() {
        return state.getReadOnlyProperty();
    }

    public LeaseState state() {
        return state.get();
    }

    public ReadOnlyDoubleProperty fractionLeftProperty() {
        return fractionLeft.getReadOnlyProperty();
    }

    public ReadOnlyStringProperty countdownProperty() {
        return countdown.getReadOnlyProperty();
    }
}
