package dev.sovereign.console.shell;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sovereign.console.feature.supervisor.LedgerStorageViewModel;
import dev.sovereign.console.ledger.LedgerStorage;
import dev.sovereign.console.testing.ConsoleFixture;
import dev.sovereign.engine.Engine;
import dev.sovereign.engine.admin.LedgerMetrics;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Issue 29 item 4: the console shows the ledger's size on disk, rows per table, oldest retained event and growth over
 * the last day — the numbers of {@code LedgerMetrics}, as {@code sovereign status} shows them, for a real SQLite
 * ledger — reads them again every 30 s or on Refresh, and warns across the top when the disk holding the file runs
 * low (decision 0606), the warning gone again when the disk has room. The disk's free space is simulated
 * ({@code useFreeSpace}); everything else is real.
 */
class LedgerStorageTest {
    private static final long GB = 1_000_000_000L;

    @RegisterExtension
    final ConsoleFixture fx = new ConsoleFixture();

    private final AtomicLong free = new AtomicLong(50 * GB);
    private final AtomicReference<Path> asked = new AtomicReference<>();

    private ShellViewModel attached() {
        ShellViewModel vm = fx.shell();
        vm.attachment().useFreeSpace(file -> {
            asked.set(file);
            return free.get();
        });
        vm.attach(fx.file());
        return vm;
    }

    /** A day and more of a ledger's life: rows older than the last 24 hours and rows within them. */
    private Engine aLedgerWithHistory() {
        Engine e = fx.engine("worker 8801");
        e.actors().add("planner");
        e.actors().add("mailer");
        e.leases().acquire("planner", Duration.ofSeconds(10));
        fx.clock.advance(Duration.ofHours(30));
        e.leases().acquire("mailer", Duration.ofSeconds(10));
        assertThat(e.leases().tryAcquire("mailer", Duration.ofSeconds(10))).isEmpty(); // refused: its own lease
        e.runs().assign("planner", "command:./report.sh");
        return e;
    }

    @Test
    void theConsoleShowsTheNumbersOfLedgerMetrics() {
        Engine engine = aLedgerWithHistory();
        ShellViewModel vm = attached();
        LedgerMetrics m = engine.metrics(); // the engine's own read, after the console's: nothing was written since

        LedgerStorage read = vm.ledger().storageProperty().get();
        assertThat(read).as("read when the ledger was attached").isNotNull();
        assertThat(read.metrics()).as("one number for one fact").isEqualTo(m);
        assertThat(asked.get()).isEqualTo(fx.file().toAbsolutePath().normalize());

        LedgerStorageViewModel page = vm.supervisor().storage();
        assertThat(page.knownProperty().get()).isTrue();
        assertThat(page.sizeProperty().get())
                .startsWith(LedgerMetrics.bytes(m.sizeBytes()) + " (rows: ")
                .contains("fence_events " + m.journalRows())
                .contains("actors 2")
                .contains("assignments 1");
        assertThat(m.eventsLastDay()).isPositive().isLessThan(m.journalRows());
        String oldest = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss")
                .format(Instant.ofEpochMilli(m.oldestEventAt()).atZone(ZoneOffset.UTC));
        assertThat(page.journalProperty().get())
                .isEqualTo(m.journalRows() + " events; oldest " + oldest + ", " + m.eventsLastDay()
                        + " events in the last 24 hours");
        assertThat(page.diskProperty().get()).startsWith("50.0 GB free on the file system holding the file");
        // the retention policy and the last prune, the ledger's (decision 0018)
        assertThat(page.retentionProperty().get())
                .startsWith("journal kept 30 days (the default); never pruned; finished runs 30 days, messages 30 days,"
                        + " stopped processes 30 days.");
        assertThat(page.warningProperty().get()).isEmpty();
        assertThat(StatusBar.sizeText(read)).isEqualTo(LedgerMetrics.bytes(m.sizeBytes()) + " on disk");

        vm.detach();
        assertThat(vm.ledger().storageProperty().get()).isNull();
        assertThat(page.knownProperty().get()).isFalse();
    }

    @Test
    void theWarningComesWhenTheDiskRunsLowAndGoesWhenItHasRoom() {
        aLedgerWithHistory();
        ShellViewModel vm = attached();
        LedgerStorageViewModel page = vm.supervisor().storage();
        assertThat(vm.bannerProperty().get()).isNull();
        int reads = fx.reader.metricsReads.get();

        // the disk fills; a modest rate: not read again within 30 s, read again after them
        free.set(300_000_000L);
        fx.clock.advance(Duration.ofSeconds(10));
        vm.pollNow();
        assertThat(fx.reader.metricsReads.get()).isEqualTo(reads);
        assertThat(vm.bannerProperty().get()).isNull();
        fx.clock.advance(Duration.ofSeconds(25));
        vm.pollNow();
        assertThat(fx.reader.metricsReads.get()).isEqualTo(reads + 1);

        Banner b = vm.bannerProperty().get();
        assertThat(b).isNotNull();
        assertThat(b.isDiskWarning()).isTrue();
        assertThat(b.text())
                .contains("Only 300.0 MB is free on the disk holding sovereign.db")
                .contains("the console warns below 1.0 GB")
                .contains("docs/operations.md, section 'Disk'");
        assertThat(page.warningProperty().get()).isEqualTo(b.text());
        assertThat(StatusBar.sizeText(vm.ledger().storageProperty().get())).endsWith("disk nearly full");

        // dismissed, it stays dismissed while the disk stays low
        vm.banners().dismissBanner();
        vm.attachment().refresh();
        assertThat(vm.bannerProperty().get()).isNull();
        assertThat(page.warningProperty().get()).isNotEmpty();

        // room again (Refresh reads at once): the warning goes
        free.set(20 * GB);
        vm.attachment().refresh();
        assertThat(page.warningProperty().get()).isEmpty();
        assertThat(StatusBar.sizeText(vm.ledger().storageProperty().get())).doesNotContain("nearly full");

        // low again: said again, and gone from the top when there is room
        free.set(GB / 2);
        vm.attachment().refresh();
        assertThat(vm.bannerProperty().get().isDiskWarning()).isTrue();
        free.set(20 * GB);
        vm.attachment().refresh();
        assertThat(vm.bannerProperty().get()).isNull();
    }
}
