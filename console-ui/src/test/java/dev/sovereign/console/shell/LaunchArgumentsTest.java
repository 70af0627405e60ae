package dev.sovereign.console.shell;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import java.util.UUID;
import java.util.prefs.Preferences;
import org.junit.jupiter.api.Test;

class LaunchArgumentsTest {
    @Test
    void theDatabaseComesFromDbOrTheFirstBareArgument() {
        assertThat(LaunchArguments.database(List.of("--db", "a.db"))).contains(Path.of("a.db"));
        assertThat(LaunchArguments.database(List.of("--db=b.db"))).contains(Path.of("b.db"));
        assertThat(LaunchArguments.database(List.of("c.db"))).contains(Path.of("c.db"));
        assertThat(LaunchArguments.database(List.of())).isEmpty();
        assertThat(LaunchArguments.database(List.of("--verbose"))).isEmpty();
    }

    /**
     * Issue 31 item 22: {@code sovereign console --no-demo} (docs/console.md) reaches the console as {@code --no-demo}
     * (ConsoleCommandTest): it shows the welcome page, not the demo, and names no database.
     */
    @Test
    void noDemoShowsTheWelcomePage() {
        assertThat(LaunchArguments.wantsDemo(List.of())).isTrue();
        assertThat(LaunchArguments.wantsDemo(List.of("--no-demo"))).isFalse();
        assertThat(LaunchArguments.wantsDemo(List.of("--no-demo"), null)).isFalse();
        assertThat(LaunchArguments.database(List.of("--no-demo"))).isEmpty();
        assertThat(LaunchArguments.location(List.of("--no-demo"), null)).isEmpty();
        assertThat(LaunchArguments.wantsDemo(List.of("--db", "a.db"))).isFalse();
    }

    @Test
    void recentFilesKeepTheNewestFirstWithoutDuplicates() throws Exception {
        Preferences node = Preferences.userRoot().node("dev/sovereign/console-test/" + UUID.randomUUID());
        try {
            ConsoleSettings s = new ConsoleSettings(node);
            for (int i = 0; i < 10; i++) {
                s.addRecent(Path.of("/tmp/db" + i + ".db"));
            }
            s.addRecent(Path.of("/tmp/db5.db"));
            assertThat(s.recentFiles())
                    .hasSize(ConsoleSettings.MAX_RECENT)
                    .first()
                    .isEqualTo(Path.of("/tmp/db5.db"));
            assertThat(s.recentFiles()).doesNotHaveDuplicates();
            assertThat(s.lastDirectory()).isEqualTo(Path.of("/tmp"));
        } finally {
            node.removeNode();
        }
    }
}
