package dev.sovereign.engine.admin;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.base.Durability;
import dev.sovereign.engine.lease.Lease;
import dev.sovereign.engine.testing.SettableClock;
import dev.sovereign.engine.testing.TempDatabase;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Issue 29's bound, shown on a real SQLite file with a settable clock instead of a year of waiting (decisions 0018 and
 * 0019): three nodes want one lock for a year; one holds it (renewing it every hour) and the other two try every ten
 * minutes, while the supervisor prunes once a day with the default policy of 30 days. After a year on the clock what
 * the ledger holds stays under a stated bound; a year of such tries every second, one journal row each, would be
 * over 60 million rows.
 *
 * <p>What a ledger holds after a prune depends only on the last 30 days, so the first 330 days are played one window a
 * day (their rows are pruned like the rest, and the lease's renewals pile up as they would) and the last 35 at the
 * full rate, every window. Each refused node tries once per window: a try every second adds only to the window's
 * count (the contract test shows five tries in a window are one row), so the ledger is the same at a cost a test can
 * pay.
 */
class ContentionYearTest {
    private static final long WINDOW_MS = 600_000L;
    private static final int WINDOWS_PER_DAY = 144;
    private static final int DAYS = 365;

    /** The bound docs/operations.md states for this load: rows and bytes on disk, pruned daily, 30 days kept. */
    static final long JOURNAL_ROWS_BOUND = 10_000;

    static final long CONTENTION_ROWS_BOUND = 9_200;
    static final long SIZE_BYTES_BOUND = 5L * 1024 * 1024;
    /** The days played at the full rate, every window: longer than the policy, so the bound is the steady state. */
    private static final int FULL_RATE_DAYS = 35;

    @RegisterExtension
    final TempDatabase temp = new TempDatabase();

    private final SettableClock clock = new SettableClock();

    @Test
    void aYearOfThreeNodesContendingForOneLockStaysBounded() {
        long start = clock.millis() - Math.floorMod(clock.millis(), WINDOW_MS) + WINDOW_MS;
        clock.set(start);
        Engine holder = open();
        Engine b = open();
        Engine c = open();
        holder.actors().add("lock");
        Lease held = holder.leases().acquire("lock", Duration.ofDays(2));

        long maxJournal = 0;
        long maxContention = 0;
        long maxSize = 0;
        long pruned = 0;
        for (int day = 0; day < DAYS; day++) {
            boolean fullRate = day >= DAYS - FULL_RATE_DAYS;
            for (int w = 0; w < (fullRate ? WINDOWS_PER_DAY : 1); w++) {
                long windowStart = start + ((long) day * WINDOWS_PER_DAY + w) * WINDOW_MS;
                clock.set(windowStart + 1_000);
                if (w % 6 == 0) {
                    holder.leases().renew("lock", held.token(), Duration.ofDays(2)); // every hour
                }
                assertThat(b.leases().tryAcquire("lock", Duration.ofSeconds(30)))
                        .isEmpty();
                assertThat(c.leases().tryAcquire("lock", Duration.ofSeconds(30)))
                        .isEmpty();
            }
            if (!fullRate) {
                clock.set(start + (day + 1L) * WINDOWS_PER_DAY * WINDOW_MS - WINDOW_MS + 1_000);
                holder.leases().renew("lock", held.token(), Duration.ofDays(2)); // the lease outlives the sparse day
            }
            PruneReport r = holder.prune(PruneOptions.all()); // the supervisor's daily prune
            pruned += r.journalRows();
            if (day >= DAYS - FULL_RATE_DAYS + 30) {
                LedgerMetrics m = holder.metrics();
                maxJournal = Math.max(maxJournal, m.journalRows());
                maxContention = Math.max(maxContention, m.rowsByTable().get("lease_contention"));
                maxSize = Math.max(maxSize, m.sizeBytes());
            }
        }

        LedgerMetrics end = holder.metrics();
        System.out.printf(
                "a simulated year: at most %,d journal rows, %,d contention windows, %,d bytes on disk in the last"
                        + " five days; %,d journal rows pruned in all%n",
                maxJournal, maxContention, maxSize, pruned);
        assertThat(maxJournal).isLessThanOrEqualTo(JOURNAL_ROWS_BOUND);
        assertThat(maxContention).isLessThanOrEqualTo(CONTENTION_ROWS_BOUND);
        assertThat(maxSize).isLessThanOrEqualTo(SIZE_BYTES_BOUND);
        // the sparse days' rows and the full-rate days beyond the policy went: the year's renewals included
        assertThat(pruned).isGreaterThan(330L * 3 + 4L * WINDOWS_PER_DAY * 2);
        assertThat(end.journalRows()).isLessThanOrEqualTo(JOURNAL_ROWS_BOUND);
        // the holder kept its one lease the whole year; the next grant's token is still above it
        assertThat(holder.leases().current("lock")).map(Lease::token).contains(held.token());
        holder.leases().release("lock", held.token());
        assertThat(b.leases().acquire("lock", Duration.ofSeconds(30)).token()).isGreaterThan(held.token());
    }

    private Engine open() {
        return temp.open(temp.config(clock).durability(Durability.NORMAL).build());
    }
}
