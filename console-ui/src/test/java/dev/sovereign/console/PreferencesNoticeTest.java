package dev.sovereign.console;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.prefs.Preferences;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 31, item 22: a first start prints no JDK "INFO: Created user preferences directory." line. A real child
 * JVM with a fresh home, as a first start on a new machine: the launcher's quietening, then the preferences.
 */
class PreferencesNoticeTest {
    @TempDir
    Path home;

    /** The child: quietens as the launcher does, then touches the preferences as the console does. */
    public static final class Probe {
        public static void main(String[] args) throws Exception {
            Launcher.quietenPreferencesNotice();
            Preferences p = Preferences.userRoot().node("dev/sovereign/probe");
            p.put("k", "v");
            p.flush();
        }
    }

    @Test
    void aFirstStartSaysNothingAboutThePreferencesDirectory() throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process child = new ProcessBuilder(List.of(
                        java,
                        "-Duser.home=" + home,
                        "-Djava.util.prefs.userRoot=" + home.resolve("prefs"),
                        "-cp",
                        System.getProperty("java.class.path"),
                        Probe.class.getName()))
                .redirectErrorStream(true)
                .start();
        String out = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(child.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(child.exitValue()).as(out).isZero();
        assertThat(Files.exists(home.resolve("prefs")) || Files.exists(home.resolve(".java")))
                .as("made fresh")
                .isTrue();
        assertThat(out).doesNotContain("Created user preferences directory");
    }
}
