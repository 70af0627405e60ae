package dev.sovereign.console.feature.timeline;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sovereign.engine.admin.AdminSnapshot;
import dev.sovereign.engine.admin.JournalEntry;
import dev.sovereign.engine.admin.LeaseRow;
import dev.sovereign.engine.admin.ProcessRef;
import dev.sovereign.engine.base.LedgerLocation;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class TimelineBuilderTest {
    private static final ProcessRef WORKER = new ProcessRef("proc_worker", "worker 7101", 7101L, "host");

    private static String actor(int i) {
        return String.format(Locale.ROOT, "actor-%03d", i);
    }

    @Test
    void withMoreActorsThanLanesTheMostRecentlyChangedAreDrawnInActorOrder() {
        List<LeaseRow> rows = new ArrayList<>();
        List<JournalEntry> events = new ArrayList<>();
        long seq = 0;
        for (int i = 0; i < 150; i++) {
            rows.add(new LeaseRow(actor(i), WORKER, i + 1, 10_000, 1_000, 1_000, 11_000, 0));
            events.add(new JournalEntry(
                    ++seq,
                    1_000,
                    "LEASE_ACQUIRED",
                    "actor",
                    actor(i),
                    actor(i),
                    WORKER,
                    (long) i + 1,
                    null,
                    null,
                    null,
                    null,
                    "granted"));
        }
        // the last change of actor-000..009 is the newest; renewals of the others do not count as changes
        for (int i = 0; i < 10; i++) {
            events.add(new JournalEntry(
                    ++seq,
                    2_000,
                    "REJECTED",
                    "actor",
                    actor(i),
                    actor(i),
                    WORKER,
                    null,
                    1L,
                    2L,
                    "actor_lease_lost",
                    null,
                    "refused"));
        }
        for (int i = 100; i < 150; i++) {
            events.add(new JournalEntry(
                    ++seq,
                    3_000,
                    "LEASE_RENEWED",
                    "actor",
                    actor(i),
                    actor(i),
                    WORKER,
                    (long) i + 1,
                    null,
                    null,
                    null,
                    null,
                    "renewed"));
        }
        AdminSnapshot snapshot = new AdminSnapshot(
                LedgerLocation.file(Path.of("x.db")),
                1,
                1,
                3_000,
                seq,
                150,
                rows,
                List.of(),
                List.of(),
                List.of(),
                List.of(),
                Optional.empty());

        TimelineBuilder.Lanes lanes = TimelineBuilder.build(events, snapshot, 100);

        assertThat(lanes.total()).isEqualTo(150);
        assertThat(lanes.shown()).hasSize(100);
        assertThat(lanes.shown())
                .extracting(TimelineLane::actor)
                .isSorted()
                .contains(actor(0), actor(9), actor(149))
                .doesNotContain(actor(10), actor(49));
        assertThat(TimelineBuilder.build(events, snapshot)).hasSize(150);
    }
}
