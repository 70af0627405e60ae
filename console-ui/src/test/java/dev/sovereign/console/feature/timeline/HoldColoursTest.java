package dev.sovereign.console.feature.timeline;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sovereign.engine.admin.JournalEntry;
import dev.sovereign.engine.admin.ProcessRef;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Issue 17, item 13: the timeline colours holds, and two holds side by side never share a colour. */
class HoldColoursTest {
    private static final ProcessRef A = new ProcessRef("proc_a", "worker A", 1L, "h");
    private static final ProcessRef B = new ProcessRef("proc_b", "worker B", 2L, "h");

    private static JournalEntry grant(long seq, long at, ProcessRef p, long token) {
        return new JournalEntry(
                seq,
                at,
                seq == 1 ? "LEASE_ACQUIRED" : "LEASE_TAKEN_OVER",
                "actor",
                "operator",
                "operator",
                p,
                token,
                null,
                null,
                null,
                null,
                "granted");
    }

    @Test
    void twoHoldsSideBySideNeverShareAColourEvenForOneProcessOrTokensEightApart() {
        // worker A twice in a row (tokens 1, 3), then tokens 11 and 19: eight apart, same colour by token alone
        List<JournalEntry> events =
                List.of(grant(1, 1_000, A, 1), grant(2, 5_000, A, 3), grant(3, 9_000, B, 11), grant(4, 13_000, A, 19));

        TimelineLane lane = TimelineBuilder.lane("operator", events, null, 20_000);

        assertThat(lane.segments()).extracting(HolderSegment::token).containsExactly(1L, 3L, 11L, 19L);
        for (int i = 1; i < lane.segments().size(); i++) {
            assertThat(lane.segments().get(i).colour())
                    .as("hold " + i + " beside hold " + (i - 1))
                    .isNotEqualTo(lane.segments().get(i - 1).colour());
        }
        assertThat(lane.segments()).allSatisfy(s -> assertThat(s.colour()).isBetween(0, TimelineViewModel.COLOURS - 1));
    }

    @Test
    void aHoldKeepsItsColourWhenTheLaneIsBuiltAgainWithMoreEvents() {
        List<JournalEntry> first = List.of(grant(1, 1_000, A, 1), grant(2, 5_000, B, 2));
        List<JournalEntry> more = List.of(grant(1, 1_000, A, 1), grant(2, 5_000, B, 2), grant(3, 9_000, A, 10));

        int before = TimelineBuilder.lane("operator", first, null, 8_000)
                .segments()
                .get(1)
                .colour();
        int after = TimelineBuilder.lane("operator", more, null, 12_000)
                .segments()
                .get(1)
                .colour();

        assertThat(after).isEqualTo(before);
    }
}
