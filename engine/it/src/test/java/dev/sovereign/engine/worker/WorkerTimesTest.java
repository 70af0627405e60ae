package dev.sovereign.engine.worker;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * How a worker's lines say a time (issue 26): ISO-8601 for every time the engine can make, words for an expiry
 * pinned beyond the year 9999 by a hand-made row ({@code waiting … hosted by P until +128724-12-15T…} before).
 */
class WorkerTimesTest {
    @Test
    void aTimeIsIsoAndAPinnedOneIsSaidInWords() {
        assertThat(Worker.at(1_800_000_000_000L)).isEqualTo("2027-01-15T08:00:00Z");
        assertThat(Worker.at(253_402_300_799_999L)).isEqualTo("9999-12-31T23:59:59.999Z");
        assertThat(Worker.at(4_000_000_000_000_000L)).isEqualTo("the year 128724 (pinned far in the future)");
        assertThat(Worker.at(Long.MAX_VALUE)).isEqualTo("the year 292278994 (pinned far in the future)");
    }
}
