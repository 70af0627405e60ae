package dev.sovereign.console.feature.timeline;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sovereign.console.ledger.Formats;
import dev.sovereign.console.ledger.LiveLedger;
import dev.sovereign.console.ledger.PollResult;
import dev.sovereign.engine.admin.AdminSnapshot;
import dev.sovereign.engine.admin.JournalEntry;
import dev.sovereign.engine.admin.ProcessRef;
import dev.sovereign.engine.base.LedgerLocation;
import java.nio.file.Path;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * Issue 31, item 16: a minute after a 6 s scenario, the 15 s window following now is empty and "Fit to data"
 * squeezes the scenario into a sliver; "Last scenario" zooms to its actor's events, and the page's summary says
 * what the window shows, also after "◀ Earlier" (the times it spans, not "last 15 s").
 */
class TimelineLastScenarioTest {
    private static final long T0 = 1_700_000_000_000L;

    @Test
    void lastScenarioZoomsToItsEventsAndTheLabelSaysWhatIsShown() {
        ProcessRef p = new ProcessRef("proc_a", "worker A (gc-pause-2)", 7100L, "host");
        List<JournalEntry> events = new ArrayList<>();
        // an older scenario, then the last one: 6 s of events ten minutes after the ledger began
        events.add(entry(1, T0, "gc-pause-1", p));
        for (int i = 0; i < 7; i++) {
            events.add(entry(2 + i, T0 + 600_000 + i * 1_000L, "gc-pause-2", p));
        }
        events.add(entry(9, T0 + 640_000, "operator", p)); // something after it, not a scenario
        LiveLedger ledger = new LiveLedger();
        long now = T0 + 660_000; // a minute after the scenario began
        ledger.apply(new PollResult(now, 1, snapshot(now), events, List.of()));
        TimelineViewModel vm = new TimelineViewModel(ledger, new Formats(ZoneOffset.UTC));
        vm.setSpan(15_000);

        assertThat(vm.lastScenarioProperty().get()).isEqualTo("gc-pause-2");
        assertThat(vm.windowStart())
                .as("following now, the 15 s window misses the scenario")
                .isGreaterThan(T0 + 606_000);
        assertThat(vm.windowTextProperty().get()).isEqualTo("Window: last 15.0 s, following now");

        assertThat(vm.zoomToLastScenario()).isTrue();
        assertThat(vm.followingProperty().get()).isFalse();
        assertThat(vm.windowStart()).isLessThanOrEqualTo(T0 + 600_000).isGreaterThan(T0 + 598_000);
        assertThat(vm.windowEndProperty().get())
                .isGreaterThanOrEqualTo(T0 + 606_000)
                .isLessThan(T0 + 608_000);
        assertThat(vm.windowTextProperty().get())
                .isEqualTo("Window: the last scenario, gc-pause-2, 22:23:19\u201322:23:26 (7.2 s), paused (press"
                        + " Follow now to resume)");

        vm.panBack(); // "◀ Earlier": the label says the earlier times, no longer the scenario
        assertThat(vm.windowTextProperty().get())
                .isEqualTo("Window: 22:23:15\u201322:23:23 (7.2 s), paused (press Follow now to resume)");

        vm.followNow();
        assertThat(vm.windowTextProperty().get()).isEqualTo("Window: last 7.2 s, following now");
    }

    private static JournalEntry entry(long seq, long at, String actor, ProcessRef p) {
        return new JournalEntry(
                seq, at, "LEASE_RENEWED", "actor", actor, actor, p, 1L, null, null, null, null, "renewed");
    }

    private static AdminSnapshot snapshot(long now) {
        return new AdminSnapshot(
                LedgerLocation.file(Path.of("x.db")),
                2,
                1,
                now,
                9,
                1,
                List.of(),
                List.of(),
                List.of(),
                List.of(),
                List.of(),
                Optional.empty());
    }
}
