package dev.sovereign.engine.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.ZoneOffset;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class TimesTest {
    private static final long NOW = 1_800_000_000_000L; // 2027-01-15 08:00:00 UTC

    @ParameterizedTest
    @CsvSource({
        "0, now",
        "500, in 500ms",
        "-999, 999ms ago",
        "29990, in 30s",
        "-3000, 3s ago",
        "59600, in 1m",
        "252000, in 4m 12s",
        "7500000, in 2h 5m",
        "-273600000, 3d 4h ago"
    })
    void relativeTimesReadNaturallyToTheNearestSecond(long delta, String expected) {
        assertThat(new Times(ZoneOffset.UTC, NOW).relative(NOW + delta)).isEqualTo(expected);
    }

    @ParameterizedTest
    @CsvSource({"0, 08:00:00 (now)", "12000, 08:00:12 (in 12s)", "-86400000, 2027-01-14 08:00:00 (1d ago)"})
    void wallTimeShowsTheDateOnlyWhenItIsNotToday(long delta, String expected) {
        assertThat(new Times(ZoneOffset.UTC, NOW).at(NOW + delta)).isEqualTo(expected);
    }

    /**
     * An expiry pinned by hand far beyond any real TTL (issue 26: {@code heartbeat_at = 4000000000000000} on a
     * server made a lease "live" until {@code +128724-12-15}) is said in words, not as a date with a sign.
     */
    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "4000000000000000 | the year 128724 (pinned far in the future)",
                "9223372036854775807 | the year 292278994 (pinned far in the future)",
                "-9000000000000000 | the year -283229 (pinned far in the past)"
            })
    void aTimePinnedFarAwayIsSaidInWords(long pinned, String expected) {
        Times t = new Times(ZoneOffset.UTC, NOW);
        assertThat(t.at(pinned)).isEqualTo(expected);
        assertThat(t.wall(pinned)).isEqualTo(expected);
        assertThat(t.relative(pinned)).matches("in \\d+ years|\\d+ years ago");
    }

    @ParameterizedTest
    @CsvSource({"1, 1ms", "1000, 1s", "60000, 1m", "3600000, 1h", "90061000, 1d 1h"})
    void spansAreCompact(long millis, String expected) {
        assertThat(Times.span(Duration.ofMillis(millis))).isEqualTo(expected);
    }
}
