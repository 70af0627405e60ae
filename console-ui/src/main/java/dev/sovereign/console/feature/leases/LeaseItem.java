package dev.sovereign.console.feature.leases;

import dev.sovereign.console.ledger.Formats;
import dev.sovereign.engine.admin.LeaseRow;
import dev.sovereign.engine.admin.LeaseState;
import dev.sovereign.engine.admin.ProcessRef;
import java.util.Objects;
import javafx.beans.property.ReadOnlyLongProperty;
import javafx.beans.property.ReadOnlyLongWrapper;
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
    /** This item, as a value that never changes: the cell value of columns that follow the clock. */
    private final ReadOnlyObjectWrapper<LeaseItem> self = new ReadOnlyObjectWrapper<>(this, "self", this);
    /** What the static columns show, each changed only when it differs: a renewal changes none of them. */
    private final ReadOnlyObjectWrapper<ProcessRef> holder = new ReadOnlyObjectWrapper<>(this, "holder");

    private final ReadOnlyLongWrapper token = new ReadOnlyLongWrapper(this, "token");
    private final ReadOnlyLongWrapper acquiredAt = new ReadOnlyLongWrapper(this, "acquiredAt");

    LeaseItem(LeaseRow row, ReadOnlyLongProperty now) {
        this.actor = row.actor();
        this.now = now;
        this.current = row;
        this.row.set(row);
        showStatic(row);
    }

    /** Takes a newer snapshot's row; an equal row changes nothing (nothing is recomputed or redrawn). */
    void update(LeaseRow newRow) {
        if (newRow != current && !newRow.equals(current)) {
            current = newRow;
            row.set(newRow);
            showStatic(newRow);
        }
    }

    private void showStatic(LeaseRow r) {
        if (!Objects.equals(holder.get(), r.holder())) {
            holder.set(r.holder());
        }
        token.set(r.token());
        acquiredAt.set(r.isFree() ? 0 : r.acquiredAt());
    }

    /**
     * The cell value of a column that derives what it shows from {@link #row()} and the clock: it
     * never changes, so a new row does not make the table lay its rows out; such cells are repainted
     * on the clock's tick and after each snapshot (see {@code ClockedCells}).
     */
    public ReadOnlyObjectProperty<LeaseItem> selfProperty() {
        return self.getReadOnlyProperty();
    }

    /** The holding process, or null when free; changes only on a takeover, grant or release. */
    public ReadOnlyObjectProperty<ProcessRef> holderProperty() {
        return holder.getReadOnlyProperty();
    }

    /** The lease's token (0 when free); changes only with a new grant. */
    public ReadOnlyLongProperty tokenProperty() {
        return token.getReadOnlyProperty();
    }

    /** When the holder acquired the lease (0 when free). */
    public ReadOnlyLongProperty acquiredAtProperty() {
        return acquiredAt.getReadOnlyProperty();
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
        return r.isFree() ? "" : formats.time(r.renewedAt()) + "  (" + Formats.secondsAgo(r.renewedAt(), now) + ")";
    }
}
