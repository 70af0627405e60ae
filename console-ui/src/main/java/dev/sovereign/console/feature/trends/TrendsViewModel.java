package dev.sovereign.console.feature.trends;

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
 * Issue 17, item 9: what changed over the last hour, a minute per point, so an operator sees that
 * something happened at 14:02 — grants (acquired and taken over), takeovers, refused writes by category,
 * runs recovered as worker_lost, and the journal's size. Counted from the console's window of the journal
 * (its last {@value LiveLedger#MAX_EVENTS} events) and the refusal feed; the journal's size is sampled from
 * each snapshot. Recounted at most every {@value #RECOUNT_MS} ms and only while the page shows.
 * UI-thread confined.
 */
public final class TrendsViewModel {
    /** Minutes shown. */
    public static final int MINUTES = 60;

    static final long MINUTE = 60_000;
    static final long RECOUNT_MS = 5_000;

    /** One minute's counts; {@code start} is the minute's first millisecond. */
    public record Minute(
            long start, int grants, int takeovers, int recovered, Map<String, Integer> rejections, long journalSize) {
        public int rejectionsTotal() {
            return rejections.values().stream().mapToInt(Integer::intValue).sum();
        }
    }

    private final LiveLedger ledger;
    private final BooleanProperty active = new SimpleBooleanProperty(this, "active", false);
    private final ReadOnlyObjectWrapper<List<Minute>> minutes = new ReadOnlyObjectWrapper<>(this, "minutes", List.of());
    private final ReadOnlyStringWrapper coverage = new ReadOnlyStringWrapper(this, "coverage", "");
    /** Journal size by minute, sampled from snapshots (the last seq is the journal's size). */
    private final TreeMap<Long, Long> journalSize = new TreeMap<>();

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
            journalSize.put(minuteOf(s.takenAt()), s.lastSeq());
            journalSize.headMap(minuteOf(s.takenAt()) - MINUTES * MINUTE).clear();
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

    /** The last {@value #MINUTES} minutes, oldest first, the current minute last. */
    public ReadOnlyObjectProperty<List<Minute>> minutesProperty() {
        return minutes.getReadOnlyProperty();
    }

    /** Empty, or what part of the hour the console's window of the journal covers. */
    public ReadOnlyStringProperty coverageProperty() {
        return coverage.getReadOnlyProperty();
    }

    static long minuteOf(long at) {
        return Math.floorDiv(at, MINUTE) * MINUTE;
    }

    /** Counts the hour again from what the console holds. */
    public void recount() {
        long now = ledger.now();
        countedAt = now;
        stale = false;
        long last = minuteOf(now);
        long first = last - (MINUTES - 1) * MINUTE;
        int[] grants = new int[MINUTES];
        int[] takeovers = new int[MINUTES];
        int[] recovered = new int[MINUTES];
        List<Map<String, Integer>> rejections = new ArrayList<>();
        for (int i = 0; i < MINUTES; i++) {
            rejections.add(new TreeMap<>());
        }
        long oldestHeld = Long.MAX_VALUE;
        for (JournalEntry e : ledger.events()) {
            oldestHeld = Math.min(oldestHeld, e.at());
            int i = (int) ((minuteOf(e.at()) - first) / MINUTE);
            if (i < 0 || i >= MINUTES) {
                continue;
            }
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
            int i = (int) ((minuteOf(e.at()) - first) / MINUTE);
            if (i >= 0 && i < MINUTES) {
                rejections.get(i).merge(e.category() == null ? "unknown" : e.category(), 1, Integer::sum);
            }
        }
        List<Minute> out = new ArrayList<>(MINUTES);
        for (int i = 0; i < MINUTES; i++) {
            long start = first + i * MINUTE;
            Map.Entry<Long, Long> size = journalSize.floorEntry(start);
            out.add(new Minute(
                    start,
                    grants[i],
                    takeovers[i],
                    recovered[i],
                    Map.copyOf(rejections.get(i)),
                    size == null ? -1 : size.getValue()));
        }
        minutes.set(List.copyOf(out));
        coverage.set(
                oldestHeld > first && ledger.events().size() >= LiveLedger.MAX_EVENTS
                        ? "Grants, takeovers and recoveries before " + (int) ((oldestHeld - first) / MINUTE)
                                + " min into the hour are older than the console's window of the journal."
                        : "");
    }
}
