package dev.sovereign.console.feature;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sovereign.console.fx.CurrentThreadUiExecutor;
import dev.sovereign.console.shell.LedgerOpener;
import dev.sovereign.console.shell.ShellViewModel;
import dev.sovereign.console.testing.ConsoleFixture;
import dev.sovereign.console.testing.Scenario;
import dev.sovereign.engine.Ledgers;
import dev.sovereign.engine.admin.AdminReader;
import dev.sovereign.engine.admin.JournalEntry;
import java.nio.file.Path;
import java.time.Duration;
import java.time.ZoneId;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Issue 17, item 14: one time format, in the machine's zone by default, UTC on demand; no ISO-8601 on
 * screen. The machine here is in India (UTC+05:30), so local and UTC times differ visibly.
 */
class TimeFormatTest {
    private static final ZoneId LOCAL = ZoneId.of("Asia/Kolkata");

    @RegisterExtension
    final ConsoleFixture fx = new ConsoleFixture();

    private ShellViewModel vm;

    @AfterEach
    void close() {
        if (vm != null) {
            vm.close();
        }
    }

    private ShellViewModel shell() {
        vm = new ShellViewModel(
                fx.settings(),
                new CurrentThreadUiExecutor(),
                fx.clock,
                LOCAL,
                new LedgerOpener() {
                    @Override
                    public AdminReader open(Path database) {
                        return open(database, LOCAL);
                    }

                    @Override
                    public AdminReader open(Path database, ZoneId zone) {
                        return Ledgers.openReader(database, fx.clock, zone);
                    }
                },
                Duration.ZERO);
        vm.attach(fx.file());
        return vm;
    }

    private JournalEntry held() {
        return vm.rejections().rows().stream()
                .filter(e -> "actor_lease_held".equals(e.category()))
                .findFirst()
                .orElseThrow();
    }

    @Test
    void timesAreLocalByDefaultAndNoIsoInstantReachesTheScreen() {
        Scenario.build(fx);
        shell();
        vm.rejections().selectedProperty().set(held());

        String detail = vm.rejections().detailProperty().get();
        // the engine's refusal says "...until 2027-01-15T08:01:05Z"; the console says it as a local time
        assertThat(held().detail()).containsPattern("\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}");
        assertThat(detail).doesNotContainPattern("\\d{4}-\\d{2}-\\d{2}T").contains("until 13:31:05");
        assertThat(vm.rejections().sentence(held())).contains("since 13:30:52");
        assertThat(vm.statusLine().zoneTextProperty().get()).isEqualTo("local times (UTC+05:30)");
        assertThat(vm.formats().time(fx.clock.millis())).isEqualTo("13:31:40");
    }

    @Test
    void theUtcToggleShowsEveryTimeInUtcIncludingTheJournalsSentencesAndIsRemembered() {
        Scenario.build(fx);
        shell();

        vm.statusLine().utcTimesProperty().set(true);

        assertThat(vm.statusLine().zoneTextProperty().get()).isEqualTo("times in UTC");
        assertThat(vm.statusLine().refreshTextProperty().get()).startsWith("refreshed 08:01:40 UTC (");
        assertThat(vm.formats().time(fx.clock.millis())).isEqualTo("08:01:40");
        assertThat(vm.rejections().sentence(held()))
                .as("written again by a reader in UTC")
                .contains("since 08:00:52");
        vm.rejections().selectedProperty().set(held());
        assertThat(vm.rejections().detailProperty().get()).contains("until 08:01:05");
        assertThat(fx.settings().utcTimes()).isTrue();

        vm.statusLine().utcTimesProperty().set(false);
        assertThat(vm.rejections().sentence(held())).contains("since 13:30:52");
    }
}
