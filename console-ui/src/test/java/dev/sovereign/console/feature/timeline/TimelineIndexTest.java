package dev.sovereign.console.feature.timeline;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sovereign.engine.admin.AdminSnapshot;
import dev.sovereign.engine.admin.JournalEntry;
import dev.sovereign.engine.admin.LeaseRow;
import dev.sovereign.engine.admin.ProcessRef;
import dev.sovereign.engine.base.LedgerLocation;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The incremental index (events appended in batches, the oldest dropped as the window slides,
 * lanes reused between refreshes) must draw exactly what a from-scratch build of the same window
 * draws.
 */
class TimelineIndexTest {
    private static final String[] CHANGES = {
        "LEASE_ACQUIRED", "LEASE_TAKEN_OVER", "LEASE_RELEASED", "REJECTED", "ATTEMPT_RECOVERED", "MESSAGE_SENT"
    };

    private static String actor(int i) {
        return String.format(Locale.ROOT, "actor-%03d", i);
    }

    /** Lanes without colours: the index colours processes in the order it first saw them, forever. */
    static List<String> shape(List<TimelineLane> lanes) {
        List<String> out = new ArrayList<>();
        for (TimelineLane l : lanes) {
            StringBuilder b = new StringBuilder(l.actor()).append(':');
            l.segments()
                    .forEach(s -> b.append('[')
                            .append(s.holder().identity())
                            .append(' ')
                            .append(s.token())
                            .append(' ')
                            .append(s.start())
                            .append('-')
                            .append(s.end())
                            .append(' ')
                            .append(s.expiresAt())
                            .append(' ')
                            .append(s.endReason())
                            .append(' ')
                            .append(s.renewals())
                            .append(']'));
            l.markers()
                    .forEach(m -> b.append('<').append(m.kind()).append(m.seq()).append('>'));
            out.add(b.toString());
        }
        return out;
    }

    @Test
    void aSlidingWindowDrawsWhatAFreshBuildOfTheSameWindowDraws() {
        for (long seed = 1; seed <= 40; seed++) {
            Random random = new Random(seed);
            // from busy (mostly grants and refusals) to quiet (mostly renewals, as in a healthy system)
            double renewals = 0.2 + 0.79 * random.nextDouble();
            int actors = 5 + random.nextInt(120);
            int window = 50 + random.nextInt(400);
            int maxLanes = 1 + random.nextInt(60);
            List<ProcessRef> processes = new ArrayList<>();
            for (int p = 0; p < 6; p++) {
                processes.add(new ProcessRef("proc_" + p, "worker " + p, 7100L + p, "host"));
            }
            TimelineIndex index = new TimelineIndex();
            Deque<JournalEntry> events = new ArrayDeque<>();
            Map<String, LeaseRow> rows = new HashMap<>();
            for (int i = 0; i < actors; i++) {
                rows.put(actor(i), LeaseRow.free(actor(i)));
            }
            long seq = 0;
            long token = 0;
            long at = 1_000;
            for (int round = 0; round < 60; round++) {
                int batch = random.nextInt(40);
                for (int k = 0; k < batch; k++) {
                    String a = actor(random.nextInt(actors));
                    ProcessRef p = processes.get(random.nextInt(processes.size()));
                    String kind =
                            random.nextDouble() < renewals ? "LEASE_RENEWED" : CHANGES[random.nextInt(CHANGES.length)];
                    at += random.nextInt(300);
                    LeaseRow row = rows.get(a);
                    Long t = row.isFree() ? null : row.token();
                    if (kind.equals("LEASE_ACQUIRED") || kind.equals("LEASE_TAKEN_OVER")) {
                        t = ++token;
                        rows.put(a, new LeaseRow(a, p, t, 5_000, at, at, at + 5_000, 0));
                    } else if (kind.equals("LEASE_RELEASED") && !row.isFree()) {
                        rows.put(a, LeaseRow.free(a));
                    } else if (kind.equals("LEASE_RENEWED") && !row.isFree()) {
                        rows.put(
                                a,
                                new LeaseRow(
                                        a,
                                        row.holder(),
                                        row.token(),
                                        5_000,
                                        row.acquiredAt(),
                                        at,
                                        at + 5_000,
                                        row.renewals() + 1));
                    }
                    JournalEntry e =
                            new JournalEntry(++seq, at, kind, "actor", a, a, p, t, null, null, null, null, kind);
                    events.addLast(e);
                    index.append(e);
                }
                while (events.size() > window) {
                    index.drop(events.pollFirst());
                }
                List<LeaseRow> sorted = new ArrayList<>(rows.values());
                sorted.sort((x, y) -> x.actor().compareTo(y.actor()));
                AdminSnapshot snapshot = new AdminSnapshot(
                        LedgerLocation.file(Path.of("x.db")),
                        2,
                        round,
                        at,
                        seq,
                        token,
                        sorted,
                        List.of(),
                        List.of(),
                        List.of(),
                        List.of(),
                        Optional.empty());

                TimelineBuilder.Lanes incremental = index.lanes(snapshot, maxLanes);
                TimelineBuilder.Lanes fresh = TimelineBuilder.build(new ArrayList<>(events), snapshot, maxLanes);

                assertThat(shape(incremental.shown()))
                        .as("seed %d round %d", seed, round)
                        .isEqualTo(shape(fresh.shown()));
                assertThat(incremental.total()).isEqualTo(actors);
                assertThat(incremental.shown()).extracting(TimelineLane::actor).isSorted();
            }
        }
    }

    @Test
    void anUnchangedLaneIsTheSameObjectOnTheNextRefresh() {
        ProcessRef p = new ProcessRef("proc_a", "worker a", 7100L, "host");
        TimelineIndex index = new TimelineIndex();
        List<LeaseRow> rows = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            rows.add(new LeaseRow(actor(i), p, i + 1, 5_000, 1_000, 1_000, 6_000, 0));
            index.append(new JournalEntry(
                    i + 1,
                    1_000,
                    "LEASE_ACQUIRED",
                    "actor",
                    actor(i),
                    actor(i),
                    p,
                    (long) i + 1,
                    null,
                    null,
                    null,
                    null,
                    "granted"));
        }
        AdminSnapshot first = new AdminSnapshot(
                LedgerLocation.file(Path.of("x.db")),
                2,
                1,
                1_000,
                3,
                3,
                rows,
                List.of(),
                List.of(),
                List.of(),
                List.of(),
                Optional.empty());
        List<TimelineLane> before = index.lanes(first, 10).shown();

        index.append(new JournalEntry(
                4,
                2_000,
                "REJECTED",
                "actor",
                actor(1),
                actor(1),
                p,
                null,
                1L,
                2L,
                "actor_lease_lost",
                null,
                "refused"));
        List<TimelineLane> after = index.lanes(first, 10).shown();

        assertThat(after.get(0)).isSameAs(before.get(0));
        assertThat(after.get(2)).isSameAs(before.get(2));
        assertThat(after.get(1)).isNotSameAs(before.get(1));
        assertThat(after.get(1).markers()).hasSize(1);
    }

    @Test
    void findUsesTheDatabasesTextOrder() {
        List<String> ids = new ArrayList<>(List.of("a", "b", "\uffef", "\ud83d\ude00", "Z", "zz", "\u00e9"));
        // SQLite's order: by UTF-8 bytes, which is code point order (not Java's UTF-16 order).
        ids.sort(TimelineIndex::compareCodePoints);
        assertThat(ids.indexOf("\uffef")).isLessThan(ids.indexOf("\ud83d\ude00"));
        List<LeaseRow> rows = ids.stream().map(LeaseRow::free).toList();
        for (String id : ids) {
            assertThat(TimelineIndex.find(rows, id).actor()).isEqualTo(id);
        }
        assertThat(TimelineIndex.find(rows, "missing")).isNull();
    }
}
