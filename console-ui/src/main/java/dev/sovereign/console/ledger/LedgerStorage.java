package dev.sovereign.console.ledger;

import dev.sovereign.engine.admin.LedgerMetrics;
import java.nio.file.Path;

/**
 * What the console knows of the attached ledger's size and of the disk it lives on: the ledger's own numbers
 * ({@link LedgerMetrics}, read by the console's reader with the same statements as {@code sovereign status}, so both
 * show one number for one fact), and, for a SQLite file, the usable space of the file system holding it. Whether that
 * space is low is decided here, by one rule (decision 0606): less than {@link #thresholdBytes()}, the largest of
 * {@value #FLOOR_BYTES} bytes, {@value #COPIES} times the ledger's size, and {@value #GROWTH_DAYS} days of its growth
 * at the last day's rate. Immutable.
 *
 * @param metrics     the ledger's numbers, read in one read transaction
 * @param file        the ledger's file; null for a server's ledger (PostgreSQL), whose disk the server watches
 * @param usableBytes the usable space of the file system holding {@code file}; -1 when not known (a server's ledger,
 *                    or the file system would not say)
 * @param readAt      the console's clock when they were read (epoch ms)
 */
public record LedgerStorage(LedgerMetrics metrics, Path file, long usableBytes, long readAt) {
    /** Never less than this free (1 GB): below it a desktop is short of room whatever the ledger's size. */
    public static final long FLOOR_BYTES = 1_000_000_000L;

    /** Room for this many copies of the ledger: a backup written beside it, or a VACUUM's temporary copy. */
    public static final int COPIES = 2;

    /** Room for this many days of growth at the last day's rate: time to act, a weekend and more. */
    public static final int GROWTH_DAYS = 7;

    /** How long the room may last for the warning to say so (beyond, the size rules warned, not the growth). */
    static final long LASTS_SAID_UP_TO_DAYS = 90;

    /** Where docs/operations.md says how to live with a ledger's disk. */
    public static final String DOCS = "docs/operations.md, section 'Disk'";

    /** Whether the ledger is a file whose file system the console can see (not a server's). */
    public boolean isFile() {
        return file != null;
    }

    /**
     * The journal's growth over the last day, in bytes, estimated: the rows the last 24 hours added times the
     * ledger's bytes per journal row (the whole size over the journal's rows, so the tables that grow with the journal
     * are counted too: an over-estimate rather than an under-estimate). 0 for an empty journal.
     */
    public long growthBytesPerDay() {
        long rows = metrics.journalRows();
        if (rows <= 0 || metrics.eventsLastDay() <= 0) {
            return 0;
        }
        double perRow = (double) metrics.sizeBytes() / rows;
        return (long) Math.ceil(metrics.eventsLastDay() * perRow);
    }

    /**
     * Below this much usable space the console warns (decision 0606): the largest of {@value #FLOOR_BYTES} bytes,
     * {@value #COPIES} times the ledger's size and {@value #GROWTH_DAYS} days of its growth.
     */
    public long thresholdBytes() {
        long copies = saturatedTimes(metrics.sizeBytes(), COPIES);
        long growth = saturatedTimes(growthBytesPerDay(), GROWTH_DAYS);
        return Math.max(FLOOR_BYTES, Math.max(copies, growth));
    }

    /** Whether the file system holding the ledger's file has less usable space than {@link #thresholdBytes()}. */
    public boolean lowOnDisk() {
        return isFile() && usableBytes >= 0 && usableBytes < thresholdBytes();
    }

    /** {@code 1.6 MB (rows: fence_events 2841, processes 310, …)}: as {@code sovereign status} says it. */
    public String sizeText() {
        return LedgerMetrics.bytes(metrics.sizeBytes()) + " (" + metrics.describeRows() + ")";
    }

    /** {@code 611 events in the last 24 hours}: the journal's growth as {@code sovereign status} says it. */
    public String growthText() {
        long n = metrics.eventsLastDay();
        return n + " event" + (n == 1 ? "" : "s") + " in the last 24 hours";
    }

    /** What the console knows of the disk, in one sentence. */
    public String diskText() {
        if (!isFile()) {
            return "The ledger lives on its database server: " + LedgerMetrics.bytes(metrics.sizeBytes())
                    + " on the server's disk, which a client cannot see; watch that disk on the server ("
                    + DOCS + ").";
        }
        if (usableBytes < 0) {
            return "The file system holding " + file + " did not say how much room it has left.";
        }
        return LedgerMetrics.bytes(usableBytes) + " free on the file system holding the file; the console warns below "
                + LedgerMetrics.bytes(thresholdBytes()) + ".";
    }

    /** The warning, in sentences that say what to do; empty while there is room. */
    public String warning() {
        if (!lowOnDisk()) {
            return "";
        }
        long growth = growthBytesPerDay();
        long days = growth <= 0 ? -1 : usableBytes / growth;
        String lasts = days < 0 || days > LASTS_SAID_UP_TO_DAYS
                ? ""
                : ", and at the last day's growth, about " + LedgerMetrics.bytes(growth) + " a day, it lasts about "
                        + days + " day" + (days == 1 ? "" : "s");
        return "Only " + LedgerMetrics.bytes(usableBytes) + " is free on the disk holding " + file.getFileName()
                + "; the console warns below " + LedgerMetrics.bytes(thresholdBytes()) + lasts + ". On a full disk"
                + " every write fails, renewals too, and holders lose their leases: make room on that disk (" + DOCS
                + ").";
    }

    private static long saturatedTimes(long n, int times) {
        return n > Long.MAX_VALUE / times ? Long.MAX_VALUE : n * times;
    }
}
