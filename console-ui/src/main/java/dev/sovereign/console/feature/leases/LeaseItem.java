package dev.sovereign.console.feature.leases;

import dev.sovereign.console.ledger.Formats;
import dev.sovereign.engine.admin.LeaseRow;
import dev.sovereign.engine.admin.LeaseState;
import javafx.beans.property.ReadOnlyLongProperty;
import javafx.beans.property.ReadOnlyObjectProperty;
import javafx.beans.property.ReadOnlyObjectWrapper;

/**
 * One row of the leases table: the last snapshot's row, plus what the console clock derives from
 * it (state, fraction of the TTL left, countdown text), computed when asked. Kept across snapshots
 * (keyed by actor) so the table's selection and scroll position survive refreshes.
 *
 * <p>Nothing here listens to the clock: the table repaints only the rows it shows on each tick, so
 * a tick costs nothing for the thousands of rows scrolled out of view. UI-thread confined.
 */
public final class LeaseItem {
    private final String actor;
    private final ReadOnlyLongProperty now;
    private final ReadOnlyObjectWrapper<LeaseRow> row = new ReadOnlyObjectWrapper<>(this, "row");
    /** The same as {@code row}, as a plain field: the summary reads all of them on every tick. */
    private LeaseRow current;

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

    /** The row, observable: changes only when a snapshot brings a different row for this actor. */
    public ReadOnlyObjectProperty<LeaseRow> rowProperty() {
        return row.getReadOnlyProperty();
    }

    /** Live, expiring, expired or free at the console's clock. */
    public LeaseState state() {
        return current.stateAt(now.get());
    }

    /** 1 just after a renewal, 0 at expiry: the countdown bar. */
    public double fractionLeft() {
        return current.fractionRemainingAt(now.get());
    }

    /** {@code 2.5 s of 10.0 s}, {@code expired 3.0 s ago}, or empty for a free actor. */
    public String countdown() {
        return countdownAt(current, now.get());
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

    /** {@code 10:42:07  (3 s ago)}, or empty for a free actor. */
    static String lastRenewalAt(LeaseRow r, long now, Formats formats) {
        return r.isFree() ? "" : formats.time(r.renewedAt()) + "  (" + Formats.age(r.renewedAt(), now) + ")";
    }
}
