package dev.sovereign.console.fx;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/** Issue 17, item 15: the ticker hands out one tick a second unless fine ticks are wanted, then every one. */
class FxTickerRateTest {
    @Test
    void coarseUnlessFineTicksAreWantedAndFineAtOnceWhenTheyAre() {
        List<Long> ticks = new ArrayList<>();
        AtomicBoolean fine = new AtomicBoolean(false);
        FxTicker ticker = new FxTicker(Clock.systemUTC(), ticks::add, now -> fine.get());
        for (long t = 10_000; t < 13_000; t += 100) { // three seconds of 100 ms timer beats
            ticker.offer(t);
        }
        assertThat(ticks).containsExactly(10_000L, 11_000L, 12_000L);

        ticks.clear();
        fine.set(true);
        for (long t = 13_000; t < 13_500; t += 100) {
            ticker.offer(t);
        }
        assertThat(ticks).containsExactly(13_000L, 13_100L, 13_200L, 13_300L, 13_400L);

        ticks.clear();
        ticker.offer(5_000); // the clock stepped back: handed out at once
        assertThat(ticks).containsExactly(5_000L);
    }

    @Test
    void theOneArgumentTickerAlwaysTicksFine() {
        List<Long> ticks = new ArrayList<>();
        FxTicker ticker = new FxTicker(Clock.systemUTC(), ticks::add);
        for (long t = 0; t < 500; t += 100) {
            ticker.offer(t);
        }
        assertThat(ticks).hasSize(5);
    }
}
