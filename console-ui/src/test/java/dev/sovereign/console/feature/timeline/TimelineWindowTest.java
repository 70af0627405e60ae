package dev.sovereign.console.feature.timeline;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sovereign.console.ledger.Formats;
import dev.sovereign.console.ledger.LiveLedger;
import dev.sovereign.console.ledger.PollResult;
import dev.sovereign.engine.admin.AdminSnapshot;
import dev.sovereign.engine.admin.JournalEntry;
import dev.sovereign.engine.admin.LeaseRow;
import dev.sovereign.engine.admin.ProcessRef;
import dev.sovereign.engine.base.LedgerLocation;
import java.nio.file.Path;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The timeline page follows the ledger's window of the journal as it slides past
 * {@link LiveLedger#MAX_EVENTS}: after every poll its lanes are what a fresh build of the window draws.
 */
class TimelineWindowTest {
    @Test
    void theLanesFollowTheLedgersWindowAsItSlides() {
        Random random = new Random(7);
        ProcessRef p = new ProcessRef("proc_a", "worker a", 7100L, "host");
        List<LeaseRow> rows = new ArrayList<>();
        for (int i = 0; i < 300; i++) {
            String actor = String.format(Locale.ROOT, "actor-%03d", i);
            rows.add(new LeaseRow(actor, p, i + 1, 60_000, 1_000, 1_000, 61_000, 0));
        }
        LiveLedger ledger = new LiveLedger();
        TimelineViewModel vm = new TimelineViewModel(ledger, new Formats(ZoneOffset.UTC));
        long seq = 0;
        for (int poll = 0; poll < 12; poll++) {
            // batches from a handful to more than the whole window
            int n = poll == 7 ? LiveLedger.MAX_EVENTS + 3_000 : 1 + random.nextInt(6_000);
            List<JournalEntry> batch = new ArrayList<>();
            for (int k = 0; k < n; k++) {
                int a = random.nextInt(rows.size());
                String kind = random.nextInt(50) == 0 ? "REJECTED" : "LEASE_RENEWED";
                batch.add(new JournalEntry(
                        ++seq,
                        1_000 + seq,
                        kind,
                        "actor",
                        rows.get(a).actor(),
                        rows.get(a).actor(),
                        p,
                        (long) a + 1,
                        null,
                        null,
                        null,
                        null,
                        kind));
            }
            AdminSnapshot snapshot = new AdminSnapshot(
                    LedgerLocation.file(Path.of("x.db")),
                    2,
                    poll,
                    1_000 + seq,
                    seq,
                    300,
                    rows,
                    List.of(),
                    List.of(),
                    List.of(),
                    List.of(),
                    Optional.empty());
            ledger.apply(new PollResult(1_000 + seq, poll, snapshot, batch, List.of()));

            assertThat(ledger.events()).hasSizeLessThanOrEqualTo(LiveLedger.MAX_EVENTS);
            assertThat(ledger.events().get(ledger.events().size() - 1).seq()).isEqualTo(seq);
            TimelineBuilder.Lanes fresh =
                    TimelineBuilder.build(new ArrayList<>(ledger.events()), snapshot, TimelineViewModel.MAX_LANES);
            assertThat(TimelineIndexTest.shape(vm.lanes()))
                    .as("poll %d", poll)
                    .isEqualTo(TimelineIndexTest.shape(fresh.shown()));
        }
    }
}
