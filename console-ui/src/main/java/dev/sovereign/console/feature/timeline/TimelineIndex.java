package dev.sovereign.console.feature.timeline;

import dev.sovereign.console.feature.timeline.TimelineBuilder.Lanes;
import dev.sovereign.engine.admin.AdminSnapshot;
import dev.sovereign.engine.admin.JournalEntry;
import dev.sovereign.engine.admin.LeaseRow;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;

/**
 * What the timeline needs from the console's window of the journal, kept current event by event,
 * so that a refresh costs what changed, not what exists: with 10,000 actors and 20,000 events a
 * poll that brought one event touches one actor's entry and rebuilds at most that actor's lane.
 *
 * <p>It keeps, per actor, its events in seq order and the seq of its last change (a grant,
 * takeover, release, rejection or recovery — not a renewal); the actors ordered by that change;
 * every actor ever seen (actors are never deleted); and the last lane built per shown actor. (Colours
 * are by hold, chosen when a lane is built: {@link TimelineBuilder#coloured}.)
 *
 * <p>Which lanes are drawn: at most {@code max}, the actors whose last change is newest, filled up
 * with unchanged actors in actor order, and drawn in actor order. Events leave the index in the
 * order they entered it (oldest first), as the console's window slides. UI-thread confined.
 */
final class TimelineIndex {
    private static final List<JournalEntry> NO_EVENTS = List.of();

    private record Change(long seq, String actor) {}

    private record Built(long version, LeaseRow row, TimelineLane lane) {}

    private final Map<String, ArrayDeque<JournalEntry>> byActor = new HashMap<>();
    /** Actors with a change in the window, newest first. */
    private final TreeSet<Change> changed =
            new TreeSet<>(Comparator.comparingLong(Change::seq).reversed().thenComparing(Change::actor));

    private final Map<String, Long> lastChange = new HashMap<>();
    /** Known actors without a change in the window, in actor order. */
    private final TreeSet<String> quiet = new TreeSet<>();

    private final Set<String> known = new HashSet<>();
    /** Bumped whenever an actor's events change: a lane is rebuilt only when its version or row moved. */
    private final Map<String, Long> versions = new HashMap<>();

    private final Map<String, Built> built = new HashMap<>();
    private long nextVersion;
    private int actorsInLastSnapshot = -1;

    /** A new event, newer than every event appended before. */
    void append(JournalEntry e) {
        String actor = e.actorLane();
        if (actor == null) {
            return;
        }
        know(actor);
        byActor.computeIfAbsent(actor, a -> new ArrayDeque<>()).addLast(e);
        versions.put(actor, ++nextVersion);
        if (!e.kind().equals("LEASE_RENEWED")) {
            setLastChange(actor, e.seq());
        }
    }

    /** The oldest event left the window. */
    void drop(JournalEntry e) {
        String actor = e.actorLane();
        if (actor == null) {
            return;
        }
        ArrayDeque<JournalEntry> events = byActor.get(actor);
        if (events == null) {
            return;
        }
        if (events.peekFirst() == e
                || (events.peekFirst() != null && events.peekFirst().seq() == e.seq())) {
            events.pollFirst();
        } else {
            events.removeIf(x -> x.seq() == e.seq());
        }
        if (events.isEmpty()) {
            byActor.remove(actor);
        }
        versions.put(actor, ++nextVersion);
        // The oldest event was the last change only if it was the actor's only change left.
        Long last = lastChange.get(actor);
        if (last != null && last == e.seq()) {
            setLastChange(actor, 0);
        }
    }

    /** Forgets everything (another database is attached). */
    void clear() {
        byActor.clear();
        changed.clear();
        lastChange.clear();
        quiet.clear();
        known.clear();
        versions.clear();
        built.clear();
        actorsInLastSnapshot = -1;
    }

    /** The lanes to draw for {@code snapshot}, reusing every lane whose inputs did not change. */
    Lanes lanes(AdminSnapshot snapshot, int max) {
        List<LeaseRow> leases = snapshot == null ? List.of() : snapshot.leases();
        if (leases.size() != actorsInLastSnapshot) {
            // Actors are only ever added, so the same count is the same actors.
            leases.forEach(l -> know(l.actor()));
            actorsInLastSnapshot = leases.size();
        }
        long takenAt = snapshot == null ? Long.MIN_VALUE : snapshot.takenAt();
        List<String> chosen = choose(max);
        List<TimelineLane> out = new ArrayList<>(chosen.size());
        Map<String, Built> keep = new HashMap<>();
        for (String actor : chosen) {
            LeaseRow row = find(leases, actor);
            long version = versions.getOrDefault(actor, 0L);
            Built b = built.get(actor);
            if (b == null || b.version() != version || !Objects.equals(b.row(), row)) {
                Iterable<JournalEntry> events = byActor.containsKey(actor) ? byActor.get(actor) : NO_EVENTS;
                b = new Built(version, row, TimelineBuilder.lane(actor, events, row, takenAt));
            }
            keep.put(actor, b);
            out.add(b.lane());
        }
        built.clear();
        built.putAll(keep);
        return new Lanes(out, known.size());
    }

    private List<String> choose(int max) {
        List<String> chosen = new ArrayList<>(Math.min(max, 64));
        for (Change c : changed) {
            if (chosen.size() >= max) {
                break;
            }
            chosen.add(c.actor());
        }
        for (String actor : quiet) {
            if (chosen.size() >= max) {
                break;
            }
            chosen.add(actor);
        }
        chosen.sort(Comparator.naturalOrder());
        return chosen;
    }

    private void know(String actor) {
        // Once known, an actor is in exactly one of quiet and lastChange: only a new one is placed.
        if (known.add(actor)) {
            quiet.add(actor);
        }
    }

    private void setLastChange(String actor, long seq) {
        Long before = lastChange.remove(actor);
        if (before != null) {
            changed.remove(new Change(before, actor));
        }
        if (seq > 0) {
            quiet.remove(actor);
            lastChange.put(actor, seq);
            changed.add(new Change(seq, actor));
        } else {
            quiet.add(actor);
        }
    }

    /**
     * The actor's row: the snapshot lists actors sorted by id as SQLite sorts text (by code point,
     * which is UTF-8 byte order), so a binary search finds it; a linear scan backs it up.
     */
    static LeaseRow find(List<LeaseRow> leases, String actor) {
        int lo = 0;
        int hi = leases.size() - 1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            int c = compareCodePoints(leases.get(mid).actor(), actor);
            if (c < 0) {
                lo = mid + 1;
            } else if (c > 0) {
                hi = mid - 1;
            } else {
                return leases.get(mid);
            }
        }
        for (LeaseRow r : leases) {
            if (r.actor().equals(actor)) {
                return r;
            }
        }
        return null;
    }

    static int compareCodePoints(String a, String b) {
        int i = 0;
        int j = 0;
        while (i < a.length() && j < b.length()) {
            int ca = a.codePointAt(i);
            int cb = b.codePointAt(j);
            if (ca != cb) {
                return Integer.compare(ca, cb);
            }
            i += Character.charCount(ca);
            j += Character.charCount(cb);
        }
        return Integer.compare(a.length() - i, b.length() - j);
    }
}
