package dev.sovereign.console.feature.leases;

import dev.sovereign.console.ledger.Formats;
import dev.sovereign.engine.admin.LeaseRow;
import dev.sovereign.engine.admin.LeaseState;
import javafx.beans.binding.Bindings;
import javafx.beans.binding.DoubleBinding;
import javafx.beans.binding.ObjectBinding;
import javafx.beans.binding.StringBinding;
import javafx.beans.property.ReadOnlyLongProperty;
import javafx.beans.property.ReadOnlyObjectProperty;
import javafx.beans.property.ReadOnlyObjectWrapper;

/**
 * One row of the leases table: the last snapshot's row plus what the ticking clock derives from it
 * (state, fraction of TTL left, countdown text). Kept across snapshots (keyed by actor) so the
 * table's selection and scroll position survive refreshes.
 *
 * <p>The derived values are lazy bindings on the row and the console clock, made when first asked
 * for: only the rows a table cell shows ever compute them, so a clock tick costs nothing for the
 * thousands of rows scrolled out of view. UI-thread confined.
 */
public final class LeaseItem {
    private final String actor;
    private final ReadOnlyLongProperty now;
    private final ReadOnlyObjectWrapper<LeaseRow> row = new ReadOnlyObjectWrapper<>(this, "row");
    /** The same as {@code row}, as a plain field: the summary reads all of them on every tick. */
    private LeaseRow current;
    private ObjectBinding<LeaseState> state;
    private DoubleBinding fractionLeft;
    private StringBinding countdown;

    LeaseItem(LeaseRow row, ReadOnlyLongProperty now) {
        this.actor = row.actor();
        this.now = now;
        this.current = row;
        this.row.set(row);
    }

    /** Takes a newer snapshot's row; an equal row changes nothing (nothing is recomputed or redrawn). */
    void update(LeaseRow newRow) {
        if (newRow != current && !newRow.equals(current)) {
            current = newRow;
            row.set(newRow);
        }
    }

    public String actor() {
        return actor;
    }

    public LeaseRow row() {
        return current;
    }

    public ReadOnlyObjectProperty<LeaseRow> rowProperty() {
        return row.getReadOnlyProperty();
    }

    /** Live, expiring, expired or free at the console's clock. */
    public ObjectBinding<LeaseState> stateProperty() {
        if (state == null) {
            state = Bindings.createObjectBinding(() -> row.get().stateAt(now.get()), row, now);
        }
        return state;
    }

    public LeaseState state() {
        return stateProperty().get();
    }

    /** 1 just after a renewal, 0 at expiry: the countdown bar. */
    public DoubleBinding fractionLeftProperty() {
        if (fractionLeft == null) {
            fractionLeft = Bindings.createDoubleBinding(() -> row.get().fractionRemainingAt(now.get()), row, now);
        }
        return fractionLeft;
    }

    /** {@code 2.5 s of 10.0 s}, {@code expired 3.0 s ago}, or empty for a free actor. */
    public StringBinding countdownProperty() {
        if (countdown == null) {
            countdown = Bindings.createStringBinding(() -> countdownAt(row.get(), now.get()), row, now);
        }
        return countdown;
    }

    static String countdownAt(LeaseRow r, long now) {
        if (r.isFree()) {
            return "";
        }
        if (r.stateAt(now) == LeaseState.EXPIRED) {
            return "expired " + Formats.duration(now - r.expiresAt()) + " ago";
        }
        return Formats.duration(r.remainingAt(now)) + " of " + Formats.duration(r.ttlMs());
    }
}
