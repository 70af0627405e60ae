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

    /**
     * Issue 31 item 21: at the coarse rate the timer's beats do not wake the FX thread until a tick is due; while fine
     * ticks are wanted every beat does; a recheck makes the next beat ask again at once.
     */
    @Test
    void atTheCoarseRateOnlyADueTickOrARecheckWakesTheFxThread() {
        AtomicBoolean fine = new AtomicBoolean(false);
        FxTicker ticker = new FxTicker(Clock.systemUTC(), t -> {}, now -> fine.get());
        assertThat(ticker.due(10_000)).as("nothing handed out yet").isTrue();
        ticker.offer(10_000);
        List<Long> posted = new ArrayList<>();
        for (long t = 10_100; t < 12_000; t += 100) {
            if (ticker.due(t)) {
                posted.add(t);
                ticker.offer(t);
            }
        }
        assertThat(posted).as("beats that woke the FX thread").containsExactly(11_000L);

        fine.set(true);
        assertThat(ticker.due(11_100)).as("the FX thread was not asked yet").isFalse();
        ticker.recheck();
        assertThat(ticker.due(11_100)).isTrue();
        ticker.offer(11_100);
        assertThat(ticker.due(11_200)).as("fine ticks wanted: every beat").isTrue();
        assertThat(ticker.due(11_300)).isTrue();
        ticker.offer(11_300);
        fine.set(false);
        ticker.offer(11_400); // asked again: no longer wanted
        assertThat(ticker.due(11_500)).isFalse();
        assertThat(ticker.due(5_000)).as("the clock stepped back").isTrue();
    }

    /** At the coarse rate the timer itself sleeps until the next tick is due; fine or rechecked, 100 ms. */
    @Test
    void atTheCoarseRateTheTimerSleepsUntilTheNextTickIsDue() {
        AtomicBoolean fine = new AtomicBoolean(false);
        FxTicker ticker = new FxTicker(Clock.systemUTC(), t -> {}, now -> fine.get());
        assertThat(ticker.sleep(10_000)).as("nothing handed out yet").isEqualTo(100);
        ticker.offer(10_000);
        assertThat(ticker.sleep(10_000)).isEqualTo(1_000);
        assertThat(ticker.sleep(10_100)).isEqualTo(900);
        assertThat(ticker.sleep(10_950)).as("never less than a beat").isEqualTo(100);
        ticker.recheck();
        assertThat(ticker.sleep(10_100)).as("a recheck is pending").isEqualTo(100);
        ticker.due(10_100); // the beat takes it
        assertThat(ticker.sleep(10_100)).isEqualTo(900);
        fine.set(true);
        ticker.offer(10_200);
        assertThat(ticker.sleep(10_200)).as("fine ticks wanted").isEqualTo(100);
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
