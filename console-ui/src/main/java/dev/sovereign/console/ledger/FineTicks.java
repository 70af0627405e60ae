package dev.sovereign.console.ledger;

import dev.sovereign.engine.admin.AdminSnapshot;
import dev.sovereign.engine.admin.AttemptRow;
import dev.sovereign.engine.admin.LeaseRow;
import dev.sovereign.engine.admin.MessageRow;
import java.util.Arrays;

/**
 * When a snapshot's countdowns need ten ticks a second: while one of them is within a minute of its expiry
 * (before or after it, {@link Formats#duration} shows tenths of a second there), or while one runs whose
 * whole span is short enough for its bar to move visibly in a second. Worked out once per snapshot; asked
 * on every tick, so asking is a binary search.
 *
 * @param expiries     the expiry of every countdown, sorted
 * @param shortUntil   the last moment a short countdown still moves or shows tenths; {@code Long.MIN_VALUE} for none
 */
record FineTicks(long[] expiries, long shortUntil) {
    /** Within this of an expiry a duration is shown with tenths of a second ({@link Formats#duration}). */
    static final long TENTHS_SHOWN_MS = 60_000;
    /**
     * A countdown bar of this span or less moves by half a pixel or more every second at the widest a
     * column gets (about 200 px): it is drawn with the fine rate for its whole life.
     */
    static final long SHORT_SPAN_MS = 400_000;

    static final FineTicks NONE = new FineTicks(new long[0], Long.MIN_VALUE);

    static FineTicks of(AdminSnapshot s) {
        if (s == null) {
            return NONE;
        }
        long[] expiries =
                new long[s.leases().size() + s.attempts().size() + s.messages().size()];
        int n = 0;
        long shortUntil = Long.MIN_VALUE;
        for (LeaseRow l : s.leases()) {
            if (!l.isFree()) {
                expiries[n++] = l.expiresAt();
                if (l.ttlMs() <= SHORT_SPAN_MS) {
                    shortUntil = Math.max(shortUntil, l.expiresAt() + TENTHS_SHOWN_MS);
                }
            }
        }
        for (AttemptRow a : s.attempts()) {
            if (a.state().equals("ACTIVE")) {
                expiries[n++] = a.expiresAt();
                if (a.ttlMs() <= SHORT_SPAN_MS) {
                    shortUntil = Math.max(shortUntil, a.expiresAt() + TENTHS_SHOWN_MS);
                }
            }
        }
        for (MessageRow m : s.messages()) {
            if (m.claimExpiresAt() != null && "CLAIMED".equals(m.state())) {
                expiries[n++] = m.claimExpiresAt();
            }
        }
        long[] sorted = Arrays.copyOf(expiries, n);
        Arrays.sort(sorted);
        return new FineTicks(sorted, shortUntil);
    }

    boolean wanted(long now) {
        if (now <= shortUntil) {
            return true;
        }
        int i = Arrays.binarySearch(expiries, now - TENTHS_SHOWN_MS);
        int first = i >= 0 ? i : -i - 1; // the earliest expiry at or after a minute ago
        return first < expiries.length && expiries[first] <= now + TENTHS_SHOWN_MS;
    }
}
