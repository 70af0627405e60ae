package dev.sovereign.console.feature.trends;

import dev.sovereign.console.ledger.JournalQuery;
import dev.sovereign.console.ledger.LiveLedger;
import dev.sovereign.engine.admin.JournalEntry;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import javafx.beans.property.BooleanProperty;
import javafx.beans.property.ReadOnlyObjectProperty;
import javafx.beans.property.ReadOnlyObjectWrapper;
import javafx.beans.property.ReadOnlyStringProperty;
import javafx.beans.property.ReadOnlyStringWrapper;
import javafx.beans.property.SimpleBooleanProperty;

/**
 * Issue 17, item 9 and issue 31, item 19: what changed over a time range, a point per time bucket, so an operator
 * sees that something happened at 14:02 — grants (acquired and taken over), takeovers, refused writes by category,
 * runs recovered as worker_lost, and the journal's size — and, with a click on a point, the journal rows behind it.
 *
 * <p>The range is one of {@link Range} (following now) or a window zoomed into (fixed, or following now when it
 * ends now); its bucket is the shortest of {@link #BUCKETS} that gives at most {@value #MAX_POINTS} points, so a
 * point is always a whole number of seconds, aligned on the clock (decision 0607).
 *
 * <p>Counted from what the console already holds: its window of the journal (its last {@value LiveLedger#MAX_EVENTS}
 * events) and the refusal feed; the journal's size is the last seq at each bucket's end, from the window or from
 * samples of each snapshot since the database was opened. Nothing here reads the database. Recounted at most every
 * {@value #RECOUNT_MS} ms, and at most once a second when the journal moved, only while the page shows: an idle
 * tick compares two numbers. UI-thread confined.
 */
public final class TrendsViewModel {
    static final long SECOND = 1_000;
    static final long MINUTE = 60 * SECOND;
    static final long HOUR = 60 * MINUTE;
    static final long RECOUNT_MS = 5_000;
    /** The most points a chart shows: the bucket grows with the range to stay below. */
    public static final int MAX_POINTS = 90;
    /** The shortest window a zoom shows. */
    public static final long MIN_SPAN = MINUTE;
    /** The longest window a zoom out shows. */
    public static final long MAX_SPAN = 7 * 24 * HOUR;
    /** Journal-size samples are kept one per this many ms, for a day (a snapshot is taken up to 4 times a second). */
    static final long SAMPLE_STEP = 10 * SECOND;

    /** The bucket sizes a range may use, shortest first: whole seconds, each a divisor of the next larger unit. */
    static final long[] BUCKETS = {
        SECOND,
        5 * SECOND,
        10 * SECOND,
        15 * SECOND,
        30 * SECOND,
        MINUTE,
        2 * MINUTE,
        5 * MINUTE,
        10 * MINUTE,
        15 * MINUTE,
        20 * MINUTE,
        30 * MINUTE,
        HOUR,
        2 * HOUR,
        3 * HOUR,
        6 * HOUR
    };

    /** The time ranges an operator picks from, each following now. */
    public enum Range {
        LAST_15_MIN("15 min", 15 * MINUTE),
        LAST_HOUR("1 h", HOUR),
        LAST_6_HOURS("6 h", 6 * HOUR),
        LAST_24_HOURS("24 h", 24 * HOUR),
        /** From the oldest event the console holds to now. */
        ALL("All", 0);

        private final String label;
        private final long span;

        Range(String label, long span) {
            this.label = label;
            this.span = span;
        }

        public String label() {
            return label;
        }

        public long span() {
            return span;
        }
    }

    /** The chart series a point belongs to: which journal rows it counts. */
    public enum Series {
        GRANTS(List.of("LEASE_ACQUIRED", "LEASE_TAKEN_OVER")),
        TAKEOVERS(List.of("LEASE_TAKEN_OVER")),
        /** Refused writes: of one category, or of any when the query names none. */
        REFUSALS(List.of(JournalEntry.REJECTED)),
        WORKER_LOST(List.of("ATTEMPT_RECOVERED")),
        /** The journal's size: every row. */
        JOURNAL(List.of());

        private final List<String> kinds;

        Series(List<String> kinds) {
            this.kinds = kinds;
        }

        public List<String> kinds() {
            return kinds;
        }
    }

    /**
     * One bucket's counts; {@code start} is its first millisecond, {@code end} the first of the next.
     *
     * @param journalSize the journal's last seq at the bucket's end, or -1 when the console does not know it
     */
    public record Bucket(
            long start,
            long end,
            int grants,
            int takeovers,
            int recovered,
            Map<String, Integer> rejections,
            long journalSize) {
        public int rejectionsTotal() {
            return rejections.values().stream().mapToInt(Integer::intValue).sum();
        }
    }

    /**
     * What the charts show: from {@code from} to {@code to} (exclusive) in buckets of {@code bucket} ms.
     *
     * @param following whether the window moves with the clock (its end is now)
     */
    public record Window(long from, long to, long bucket, boolean following) {}

    private final LiveLedger ledger;
    private final BooleanProperty active = new SimpleBooleanProperty(this, "active", false);
    private final ReadOnlyObjectWrapper<List<Bucket>> buckets = new ReadOnlyObjectWrapper<>(this, "buckets", List.of());
    private final ReadOnlyObjectWrapper<Window> window = new ReadOnlyObjectWrapper<>(this, "window");
    private final ReadOnlyObjectWrapper<Range> range = new ReadOnlyObjectWrapper<>(this, "range", Range.LAST_HOUR);
    private final ReadOnlyStringWrapper coverage = new ReadOnlyStringWrapper(this, "coverage", "");
    /** Journal size, sampled from snapshots: the last seq at the start of each {@link #SAMPLE_STEP}. */
    private final TreeMap<Long, Long> journalSize = new TreeMap<>();

    /** The span shown: the range's, or a zoom's. */
    private long span = Range.LAST_HOUR.span();
    /** The end of a fixed window; null while following now. */
    private Long fixedEnd;

    private long countedAt = Long.MIN_VALUE / 2;
    private boolean stale = true;

    public TrendsViewModel(LiveLedger ledger) {
        this.ledger = ledger;
        ledger.snapshotProperty().addListener((obs, old, s) -> {
            if (s == null) {
                journalSize.clear();
                recount();
                return;
            }
            long step = Math.floorDiv(s.takenAt(), SAMPLE_STEP) * SAMPLE_STEP;
            journalSize.putIfAbsent(step, s.lastSeq());
            journalSize.headMap(step - 25 * HOUR).clear();
            stale = true;
        });
        ledger.journalRevisionProperty().addListener((obs, old, r) -> stale = true);
        ledger.nowProperty().addListener((obs, old, now) -> {
            if (active.get()
                    && (stale || now.longValue() - countedAt >= RECOUNT_MS)
                    && now.longValue() - countedAt >= 1_000) {
                recount();
            }
        });
        active.addListener((obs, was, on) -> {
            if (on) {
                recount();
            }
        });
    }

    /** Whether the page shows: counts are kept current only then. */
    public BooleanProperty activeProperty() {
        return active;
    }

    /** The buckets of the window, oldest first; while following, the current (partial) bucket last. */
    public ReadOnlyObjectProperty<List<Bucket>> bucketsProperty() {
        return buckets.getReadOnlyProperty();
    }

    /** What the charts show. */
    public ReadOnlyObjectProperty<Window> windowProperty() {
        return window.getReadOnlyProperty();
    }

    /** The range chosen; null after a zoom made the window something else. */
    public ReadOnlyObjectProperty<Range> rangeProperty() {
        return range.getReadOnlyProperty();
    }

    /** Empty, or what part of the window the console's window of the journal does not cover. */
    public ReadOnlyStringProperty coverageProperty() {
        return coverage.getReadOnlyProperty();
    }

    /** Shows the last {@code r} (or everything held), following now. */
    public void choose(Range r) {
        range.set(r);
        span = r.span();
        fixedEnd = null;
        recount();
    }

    /** Zooms into {@code [a, b]} (either order), at least {@link #MIN_SPAN}: fixed, unless it ends now or later. */
    public void zoomTo(long a, long b) {
        long from = Math.min(a, b);
        long to = Math.max(a, b);
        long now = ledger.now();
        if (to - from < MIN_SPAN) {
            long mid = from + (to - from) / 2;
            from = mid - MIN_SPAN / 2;
            to = from + MIN_SPAN;
        }
        span = Math.min(MAX_SPAN, to - from);
        fixedEnd = to >= now ? null : to;
        range.set(null);
        recount();
    }

    /** Half the span, about its middle (a window following now keeps following now). */
    public void zoomIn() {
        Window w = window.get();
        if (w == null || w.to() - w.from() <= MIN_SPAN) {
            return;
        }
        long s = w.to() - w.from();
        if (w.following()) {
            zoomTo(w.to() - s / 2, w.to());
        } else {
            zoomTo(w.from() + s / 4, w.to() - s / 4);
        }
    }

    /** Twice the span, about its middle; a window that would reach past now follows now. */
    public void zoomOut() {
        Window w = window.get();
        if (w == null) {
            return;
        }
        long s = w.to() - w.from();
        if (w.following()) {
            zoomTo(w.to() - Math.min(MAX_SPAN, 2 * s), w.to());
        } else {
            zoomTo(w.from() - s / 2, w.to() + s / 2);
        }
    }

    /** Whether {@link #zoomIn()} does anything. */
    public boolean canZoomIn() {
        Window w = window.get();
        return w != null && w.to() - w.from() > MIN_SPAN;
    }

    /**
     * The journal rows behind one point: the rows of the series' kinds written in the bucket (for {@link
     * Series#REFUSALS}, of {@code category} when not null) — what the point counted.
     */
    public JournalQuery rowsBehind(Bucket b, Series s, String category) {
        return new JournalQuery(s.kinds(), s == Series.REFUSALS ? category : null, b.start(), b.end() - 1);
    }

    /** The bucket a time falls in, or null outside the window. */
    public Bucket bucketAt(long at) {
        for (Bucket b : buckets.get()) {
            if (at >= b.start() && at < b.end()) {
                return b;
            }
        }
        return null;
    }

    /** The shortest bucket that shows {@code span} in at most {@link #MAX_POINTS} points. */
    static long bucketFor(long span) {
        for (long b : BUCKETS) {
            if (span / b <= MAX_POINTS) {
                return b;
            }
        }
        return BUCKETS[BUCKETS.length - 1];
    }

    /** The oldest time the console holds anything of: events, refusals, size samples; or {@code now}. */
    private long oldestHeld(long now) {
        long oldest = now;
        if (!ledger.events().isEmpty()) {
            oldest = Math.min(oldest, ledger.events().get(0).at());
        }
        if (!ledger.rejections().isEmpty()) {
            oldest = Math.min(
                    oldest,
                    ledger.rejections().get(ledger.rejections().size() - 1).at());
        }
        if (!journalSize.isEmpty()) {
            oldest = Math.min(oldest, journalSize.firstKey());
        }
        return oldest;
    }

    /** Counts the window again from what the console holds. */
    public void recount() {
        long now = ledger.now();
        countedAt = now;
        stale = false;
        long s = range.get() == Range.ALL ? Math.max(MIN_SPAN, now - oldestHeld(now)) : span;
        long end = fixedEnd == null ? now : fixedEnd;
        long bucket = bucketFor(s);
        // whole buckets on the clock, as many as the span holds: the last holds the window's end (while following,
        // the current bucket, partly over)
        int n = (int) Math.max(1, (s + bucket - 1) / bucket);
        long first = Math.floorDiv(end - 1, bucket) * bucket - (n - 1) * bucket;
        long last = first + n * bucket;
        int[] grants = new int[n];
        int[] takeovers = new int[n];
        int[] recovered = new int[n];
        long[] maxSeq = new long[n];
        List<Map<String, Integer>> rejections = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            rejections.add(new TreeMap<>());
        }
        List<JournalEntry> events = ledger.events();
        for (JournalEntry e : events) {
            int i = index(e.at(), first, last, bucket);
            if (i < 0) {
                continue;
            }
            maxSeq[i] = Math.max(maxSeq[i], e.seq());
            switch (e.kind()) {
                case "LEASE_ACQUIRED" -> grants[i]++;
                case "LEASE_TAKEN_OVER" -> {
                    grants[i]++;
                    takeovers[i]++;
                }
                case "ATTEMPT_RECOVERED" -> recovered[i]++;
                default -> {}
            }
        }
        // refusals from the feed (it keeps more of them than the event window may)
        for (JournalEntry e : ledger.rejections()) {
            int i = index(e.at(), first, last, bucket);
            if (i >= 0) {
                rejections.get(i).merge(e.category() == null ? "unknown" : e.category(), 1, Integer::sum);
            }
        }
        long windowStart = events.isEmpty() ? Long.MAX_VALUE : events.get(0).at();
        long size = events.isEmpty() ? 0 : events.get(0).seq() - 1;
        List<Bucket> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            long start = first + i * bucket;
            long stop = start + bucket;
            long journal;
            size = Math.max(size, maxSeq[i]);
            if (stop > windowStart) {
                journal = size; // every event from the window's start on is held: its last seq is the size
            } else {
                Map.Entry<Long, Long> sample = journalSize.floorEntry(stop - 1);
                journal = sample == null ? -1 : sample.getValue();
            }
            if (start > now) {
                journal = -1; // not yet
            }
            out.add(new Bucket(
                    start, stop, grants[i], takeovers[i], recovered[i], Map.copyOf(rejections.get(i)), journal));
        }
        Window w = new Window(first, last, bucket, fixedEnd == null);
        if (!w.equals(window.get())) {
            window.set(w);
        }
        List<Bucket> counted = List.copyOf(out);
        if (!counted.equals(buckets.get())) {
            buckets.set(counted); // the charts are redrawn only when a count moved
        }
        String cover = "";
        if (windowStart > first && windowStart != Long.MAX_VALUE && events.size() >= LiveLedger.MAX_EVENTS) {
            cover = "Grants, takeovers and recoveries before " + describeOffset(windowStart - first)
                    + " into the window are older than the console's window of the journal (its last "
                    + String.format(java.util.Locale.ROOT, "%,d", LiveLedger.MAX_EVENTS) + " events).";
        }
        coverage.set(cover);
    }

    private static String describeOffset(long ms) {
        if (ms < MINUTE) {
            return (ms / SECOND) + " s";
        }
        if (ms < 2 * HOUR) {
            return (ms / MINUTE) + " min";
        }
        return (ms / HOUR) + " h";
    }

    private static int index(long at, long first, long last, long bucket) {
        if (at < first || at >= last) {
            return -1;
        }
        return (int) ((at - first) / bucket);
    }
}
