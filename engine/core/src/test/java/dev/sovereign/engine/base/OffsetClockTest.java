package dev.sovereign.engine.base;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sovereign.engine.testing.SettableClock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import org.junit.jupiter.api.Test;

/** A skewed clock runs a settable offset ahead of or behind its base, and follows the base as it moves. */
class OffsetClockTest {
    final SettableClock base = new SettableClock();

    @Test
    void it_runs_its_offset_ahead_or_behind_and_follows_the_base() {
        OffsetClock skewed = new OffsetClock(base, Duration.ofSeconds(30));
        assertThat(skewed.millis()).isEqualTo(SettableClock.START + 30_000);
        assertThat(skewed.instant()).isEqualTo(Instant.ofEpochMilli(SettableClock.START + 30_000));
        base.advance(Duration.ofMillis(1));
        assertThat(skewed.millis()).isEqualTo(SettableClock.START + 30_001);
        skewed.setOffset(Duration.ofSeconds(-5));
        assertThat(skewed.offset()).isEqualTo(Duration.ofSeconds(-5));
        assertThat(skewed.millis()).isEqualTo(SettableClock.START + 1 - 5_000);
        skewed.setOffset(Duration.ZERO);
        assertThat(skewed.millis()).isEqualTo(base.millis());
    }

    @Test
    void another_zone_keeps_the_offset() {
        OffsetClock skewed = new OffsetClock(base, Duration.ofMinutes(2));
        assertThat(skewed.withZone(ZoneId.of("Europe/Paris")).millis()).isEqualTo(skewed.millis());
        assertThat(skewed.getZone()).isEqualTo(base.getZone());
    }
}
