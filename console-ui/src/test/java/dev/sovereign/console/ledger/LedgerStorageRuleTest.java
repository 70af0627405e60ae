package dev.sovereign.console.ledger;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sovereign.engine.admin.LedgerMetrics;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Decision 0606: the console warns when the disk holding a SQLite ledger has less room than the largest of 1 GB,
 * twice the ledger's size and a week of its growth at the last day's rate; never for a server's ledger, whose disk a
 * client cannot see, nor when the file system would not say.
 */
class LedgerStorageRuleTest {
    private static final long MB = 1_000_000L;
    private static final long GB = 1_000_000_000L;
    private static final Path FILE = Path.of("/srv/ledger.db");

    /** The ledger's numbers as its reader would read them: only what the rule looks at is not zero. */
    private static LedgerMetrics metrics(long sizeBytes, long journalRows, long eventsLastDay) {
        return new LedgerMetrics(
                1L,
                0,
                0,
                0,
                0,
                Map.of(),
                Map.of(),
                0,
                0,
                0,
                0,
                0,
                0,
                Map.of("fence_events", journalRows),
                sizeBytes,
                1L,
                eventsLastDay,
                new dev.sovereign.engine.admin.Retention(
                        dev.sovereign.engine.admin.Retention.DEFAULT_KEEP_JOURNAL,
                        0,
                        0,
                        -1,
                        -1,
                        null,
                        dev.sovereign.engine.admin.Retention.DEFAULT_KEEP,
                        dev.sovereign.engine.admin.Retention.DEFAULT_KEEP,
                        dev.sovereign.engine.admin.Retention.DEFAULT_KEEP,
                        0,
                        0,
                        0,
                        -1));
    }

    private static LedgerStorage on(LedgerMetrics m, long free) {
        return new LedgerStorage(m, FILE, free, 1L);
    }

    @Test
    void aSmallLedgerIsWarnedAboutBelowOneGigabyte() {
        LedgerMetrics small = metrics(10 * MB, 20_000, 1_000);
        assertThat(on(small, GB).thresholdBytes()).isEqualTo(GB);
        assertThat(on(small, GB - 1).lowOnDisk()).isTrue();
        assertThat(on(small, GB).lowOnDisk()).isFalse();
        assertThat(on(small, GB - 1).warning())
                .contains("Only 1000.0 MB is free") // as 'sovereign status' says sizes: powers of 1000
                .doesNotContain("lasts") // 20,000 days of room: the size rule warned, not the growth
                .contains("ledger.db")
                .contains("docs/operations.md, section 'Disk'");
        assertThat(on(small, GB).warning()).isEmpty();
    }

    @Test
    void aLargeLedgerNeedsRoomForTwoCopiesOfItself() {
        LedgerMetrics large = metrics(800 * MB, 2_000_000, 0);
        assertThat(on(large, 0).thresholdBytes()).isEqualTo(1_600 * MB);
        assertThat(on(large, 1_500 * MB).lowOnDisk()).isTrue();
        assertThat(on(large, 1_700 * MB).lowOnDisk()).isFalse();
    }

    @Test
    void aFastGrowingLedgerNeedsRoomForAWeekOfItsGrowth() {
        // 500 MB over 1,000,000 journal rows: 500 bytes a row; 500,000 rows in the last day: 250 MB a day
        LedgerMetrics fast = metrics(500 * MB, 1_000_000, 500_000);
        LedgerStorage s = on(fast, 1_500 * MB);
        assertThat(s.growthBytesPerDay()).isEqualTo(250 * MB);
        assertThat(s.thresholdBytes()).isEqualTo(1_750 * MB);
        assertThat(s.lowOnDisk()).isTrue();
        assertThat(s.warning()).contains("at the last day's growth, about 250.0 MB a day, it lasts about 6 days");
        assertThat(on(fast, 1_800 * MB).lowOnDisk()).isFalse();
    }

    @Test
    void aServersLedgerAndAnUnknownDiskAreNeverWarnedAbout() {
        LedgerMetrics m = metrics(10 * MB, 100, 10);
        LedgerStorage server = new LedgerStorage(m, null, -1, 1L);
        assertThat(server.lowOnDisk()).isFalse();
        assertThat(server.warning()).isEmpty();
        assertThat(server.diskText())
                .contains("10.0 MB")
                .contains("watch that disk on the server")
                .contains("docs/operations.md");
        LedgerStorage unknown = on(m, -1);
        assertThat(unknown.lowOnDisk()).isFalse();
        assertThat(unknown.diskText()).contains("did not say");
    }
}
