package dev.sovereign.engine.admin;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The ledger's state as numbers, read in one read transaction: what {@code sovereign metrics} exposes to Prometheus
 * and what an embedding program reads with {@code Engine.metrics()} (issue 29, docs/decisions/0319). Every number is read from the database, none from this process's beliefs. The journal's
 * counts are of the rows it holds: pruning (decision 0018) removes old rows, so they can fall; the refusals per
 * category include those counted in a contention window (decision 0019). Immutable and thread-safe.
 *
 * @param readAt              the engine clock's reading when they were read (epoch ms)
 * @param leasesLive          lease rows whose effective expiry is ahead
 * @param leasesExpired       lease rows whose effective expiry has passed (nobody took them yet)
 * @param grants              grants in the journal: {@code LEASE_ACQUIRED} and {@code LEASE_TAKEN_OVER} rows
 * @param takeovers           {@code LEASE_TAKEN_OVER} rows
 * @param refusalsByCategory  {@code REJECTED} rows per refusal category (only categories that occur)
 * @param runsByState         assignments per state, every state in lifecycle order (zeros included)
 * @param workerLost          runs whose worker was lost that nobody retried or acknowledged yet
 * @param runsNeedingOperator runs that ended FAILED or BLOCKED that nobody retried or acknowledged (worker-lost ones
 *                            included): the number the console's alerts and "Needs action" show
 * @param processesLive       processes not stopped that beat and are not stale (the registry's one definition)
 * @param processesStale      processes not stopped whose beats stopped
 * @param processesWithoutHeartbeat processes not stopped that never promised to beat (a CLI call's identity), as
 *                            {@code status} counts them
 * @param processesStopped    processes that stopped
 * @param rowsByTable         rows in each of the ledger's tables
 * @param sizeBytes           the ledger's size on disk: the file's pages (SQLite, without its WAL), or the ledger
 *                            schema's tables and indexes (PostgreSQL)
 * @param oldestEventAt       when the oldest journal row was written (epoch ms); -1 for an empty journal
 * @param eventsLastDay       journal rows written in the 24 hours before {@code readAt}: the journal's growth per day
 * @param retention           the retention policy and how far pruning went: the last prune and the rows it removed
 *                            (decision 0018)
 */
public record LedgerMetrics(
        long readAt,
        long leasesLive,
        long leasesExpired,
        long grants,
        long takeovers,
        Map<String, Long> refusalsByCategory,
        Map<String, Long> runsByState,
        long workerLost,
        long runsNeedingOperator,
        long processesLive,
        long processesStale,
        long processesWithoutHeartbeat,
        long processesStopped,
        Map<String, Long> rowsByTable,
        long sizeBytes,
        long oldestEventAt,
        long eventsLastDay,
        Retention retention) {

    public LedgerMetrics {
        refusalsByCategory = Collections.unmodifiableMap(new LinkedHashMap<>(refusalsByCategory));
        runsByState = Collections.unmodifiableMap(new LinkedHashMap<>(runsByState));
        rowsByTable = Collections.unmodifiableMap(new LinkedHashMap<>(rowsByTable));
    }

    /** The journal's rows. */
    public long journalRows() {
        return rowsByTable.getOrDefault("fence_events", 0L);
    }

    /**
     * A size in bytes as people read it: 812 bytes, 14.2 kB, 3.1 MB, 1.2 GB (powers of 1000, as disks are sold).
     * {@code sovereign status} and the console say sizes with it, so both show one text for one number.
     */
    public static String bytes(long n) {
        if (n < 1000) {
            return n + " bytes";
        }
        String[] units = {"kB", "MB", "GB", "TB"};
        double v = n;
        int i = -1;
        while (v >= 1000 && i < units.length - 1) {
            v /= 1000;
            i++;
        }
        return String.format(Locale.ROOT, "%.1f %s", v, units[i]);
    }

    /** The tables that have rows, with how many, the largest first: {@code rows: fence_events 12, actors 2}. */
    public String describeRows() {
        String s = rowsByTable.entrySet().stream()
                .filter(e -> e.getValue() > 0)
                .sorted(Map.Entry.<String, Long>comparingByValue().reversed())
                .map(e -> e.getKey() + " " + e.getValue())
                .collect(Collectors.joining(", "));
        return s.isEmpty() ? "no rows yet" : "rows: " + s;
    }
}
