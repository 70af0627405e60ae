package dev.sovereign.engine.journal;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.TreeMap;
import java.util.function.ToLongFunction;

/**
 * Follows the journal in {@code seq} order without missing an event that commits late.
 *
 * <p>On SQLite one writer at a time appends, so {@code seq} numbers become visible in order and without
 * holes. On PostgreSQL a {@code seq} is handed out when a transaction inserts its row, not when it commits
 * (decision 0900): transaction A takes 41, B takes 42 and commits first. A reader asking for
 * {@code seq > 40} then sees 42 alone; had it moved on to 42, it would never show 41. A hole also appears
 * for good when a transaction that took a number rolls back.
 *
 * <p>So a tail hands out events only up to the first hole it finds, and holds back what lies beyond it
 * until the hole fills (a late commit: handed out in order) or has stayed open for {@code margin} (a
 * rollback: nothing will come, the events beyond it are handed out). Only what is shown and when depends on
 * the margin; the journal, and every fence, does not. An event that commits more than {@code margin} after
 * its number was skipped is missed by this tail (a reader starting afresh still sees it).
 *
 * <p>Not thread-safe: one follower polls it.
 *
 * @param <E> the event type ({@link FenceEvent}, or the console's entries)
 */
public final class JournalTail<E> {
    /** Where the events come from: those with {@code seq > afterSeq}, oldest first, at most {@code limit}. */
    @FunctionalInterface
    public interface Source<E> {
        List<E> after(long afterSeq, int limit);
    }

    /** How long a hole is waited for by default: far longer than one of the engine's write transactions. */
    public static final Duration DEFAULT_MARGIN = Duration.ofSeconds(5);

    private final Source<E> source;
    private final ToLongFunction<E> seqOf;
    private final Clock clock;
    private final long marginMs;
    /** Every event up to here was handed out or given up on. */
    private long delivered;
    /** Events read beyond the first hole, by seq. */
    private final TreeMap<Long, E> heldBack = new TreeMap<>();
    /** Each hole seen among the held-back events, by its first missing seq: since when it is waited for. */
    private final TreeMap<Long, Long> holes = new TreeMap<>();

    public JournalTail(Source<E> source, ToLongFunction<E> seqOf, long afterSeq, Clock clock, Duration margin) {
        this.source = Objects.requireNonNull(source, "source");
        this.seqOf = Objects.requireNonNull(seqOf, "seqOf");
        this.clock = Objects.requireNonNull(clock, "clock");
        if (afterSeq < 0 || margin.isNegative()) {
            throw new IllegalArgumentException("afterSeq and margin must not be negative");
        }
        this.delivered = afterSeq;
        this.marginMs = margin.toMillis();
    }

    /** A tail of the engine's journal. */
    public static JournalTail<FenceEvent> of(Journal journal, long afterSeq, Clock clock, Duration margin) {
        return new JournalTail<>(journal::since, FenceEvent::seq, afterSeq, clock, margin);
    }

    /**
     * Reads what is new (at most {@code limit} rows per read) and returns the events that can be handed out
     * now, in {@code seq} order: every one up to the first open hole younger than the margin.
     */
    public List<E> poll(int limit) {
        if (limit < 1) {
            throw new IllegalArgumentException("limit must be at least 1");
        }
        for (E e : source.after(delivered, limit)) {
            long seq = seqOf.applyAsLong(e);
            if (seq > delivered) {
                heldBack.putIfAbsent(seq, e);
            }
        }
        long now = clock.millis();
        long previous = delivered; // every hole seen now waits from now, all together (history may have many)
        for (long seq : heldBack.keySet()) {
            if (seq > previous + 1) {
                holes.putIfAbsent(previous + 1, now);
            }
            previous = seq;
        }
        List<E> out = new ArrayList<>();
        while (!heldBack.isEmpty()) {
            long next = delivered + 1;
            long first = heldBack.firstKey();
            if (first == next) {
                out.add(heldBack.pollFirstEntry().getValue());
                delivered = next;
                continue;
            }
            Long since = holes.get(next);
            if (since != null && now - since < marginMs) {
                break;
            }
            delivered = first - 1; // waited long enough: nothing will come for next .. first-1
        }
        holes.headMap(delivered + 1).clear();
        return out;
    }

    /** Whether events are held back behind a hole: poll again even when nothing else seems to change. */
    public boolean holdsBack() {
        return !heldBack.isEmpty();
    }

    /** The highest seq handed out or given up on. */
    public long position() {
        return delivered;
    }
}
