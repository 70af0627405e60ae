package dev.sovereign.engine.journal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sovereign.engine.testing.SettableClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * How a {@link JournalTail} hands out sequence numbers that become visible out of order (PostgreSQL hands out
 * a journal seq at insert, not at commit): in order, holding back what lies beyond a hole until it fills or
 * has been open for the margin. The visible journal here is a set of numbers a test makes visible by hand,
 * as commits would; the same on a real server is {@code JournalTailOnPostgresTest}.
 */
class JournalTailTest {
    private final TreeSet<Long> visible = new TreeSet<>();
    private final SettableClock clock = new SettableClock(1_000_000);
    private final JournalTail<Long> tail =
            new JournalTail<>(this::after, Long::longValue, 0, clock, Duration.ofSeconds(2));

    private List<Long> after(long seq, int limit) {
        List<Long> out = new ArrayList<>();
        for (long s : visible.tailSet(seq, false)) {
            if (out.size() == limit) {
                break;
            }
            out.add(s);
        }
        return out;
    }

    private void commit(long... seqs) {
        for (long s : seqs) {
            visible.add(s);
        }
    }

    @Test
    void aLateCommitIsHandedOutInOrderAndNotMissed() {
        commit(1, 2);
        assertThat(tail.poll(100)).containsExactly(1L, 2L);
        commit(4, 5); // 3 was drawn first and commits later
        assertThat(tail.poll(100)).as("held back behind the hole at 3").isEmpty();
        assertThat(tail.holdsBack()).isTrue();
        clock.advance(Duration.ofMillis(1_999));
        assertThat(tail.poll(100)).isEmpty();
        commit(3);
        assertThat(tail.poll(100)).containsExactly(3L, 4L, 5L);
        assertThat(tail.holdsBack()).isFalse();
        assertThat(tail.position()).isEqualTo(5);
    }

    @Test
    void aHoleThatNeverFillsIsGivenUpAfterTheMarginAndEverythingBeyondItFollows() {
        commit(1, 3, 4); // 2 rolled back
        assertThat(tail.poll(100)).containsExactly(1L);
        clock.advance(Duration.ofMillis(1_999));
        assertThat(tail.poll(100)).isEmpty();
        clock.advance(Duration.ofMillis(1));
        assertThat(tail.poll(100)).containsExactly(3L, 4L);
        commit(2); // later than the margin: this tail has moved on (a fresh reader still sees it)
        commit(5);
        assertThat(tail.poll(100)).containsExactly(5L);
    }

    @Test
    void manyHolesSeenTogetherAreWaitedForTogetherNotOneMarginEach() {
        commit(1, 3, 5, 7, 9); // history with four holes, read at once
        assertThat(tail.poll(100)).containsExactly(1L);
        clock.advance(Duration.ofSeconds(2));
        assertThat(tail.poll(100)).containsExactly(3L, 5L, 7L, 9L);
    }

    @Test
    void aHoleFoundLaterWaitsItsOwnMarginFromWhenItWasSeen() {
        commit(1, 3);
        assertThat(tail.poll(100)).containsExactly(1L);
        clock.advance(Duration.ofSeconds(1));
        commit(5);
        assertThat(tail.poll(100)).isEmpty();
        clock.advance(Duration.ofSeconds(1)); // the hole at 2 is 2 s old, the one at 4 only 1 s
        assertThat(tail.poll(100)).containsExactly(3L);
        commit(4);
        assertThat(tail.poll(100)).containsExactly(4L, 5L);
    }

    @Test
    void aSmallLimitReadsOnPageByPage() {
        commit(1, 2, 3, 4, 5);
        assertThat(tail.poll(2)).containsExactly(1L, 2L);
        assertThat(tail.poll(2)).containsExactly(3L, 4L);
        assertThat(tail.poll(2)).containsExactly(5L);
    }
}
