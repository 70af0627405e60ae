package dev.sovereign.console;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The real launcher, in a child JVM, on a machine that cannot show a window: one sentence saying what to
 * do, exit 3, no stack trace, and no "Unsupported JavaFX configuration" warning (issue 17, item 17).
 */
class LauncherWithoutADesktopTest {
    @TempDir
    Path dir;

    @Test
    void withoutADisplayTheConsoleSaysSoInOneSentenceAndExitsThree() throws Exception {
        Result r = launch(List.of());

        assertThat(r.exit).isEqualTo(Launcher.UNAVAILABLE);
        assertThat(r.err.strip().lines())
                .containsExactly("sovereign console: the desktop console needs a graphical"
                        + " display and there is none (DISPLAY is not set or not reachable); start it from a desktop"
                        + " session, or under Xvfb (xvfb-run -a ./sovereign console).");
        assertThat(r.err).doesNotContain("Exception", "\tat ", "Unsupported JavaFX configuration");
    }

    /**
     * The machine without GTK, for real: a private mount namespace where libgtk-3 is an empty file. Needs
     * root, {@code unshare} and Xvfb (CI runs as root); elsewhere it is skipped, not passed.
     */
    @Test
    void withoutGtkTheConsoleNamesThePackageToInstall() throws Exception {
        Path gtk = Path.of("/usr/lib/x86_64-linux-gnu/libgtk-3.so.0");
        assumeTrue(
                "root".equals(System.getProperty("user.name"))
                        && Files.exists(gtk)
                        && onPath("unshare")
                        && onPath("xvfb-run"),
                "needs root, unshare, xvfb-run and libgtk-3");
        Path real = gtk.toRealPath();
        Result r = launch(List.of(
                "unshare", "-m", "sh", "-c", "mount --bind /dev/null " + real + " && exec xvfb-run -a \"$@\"", "sh"));

        assertThat(r.exit).isEqualTo(Launcher.UNAVAILABLE);
        assertThat(r.err.strip().lines())
                .containsExactly("sovereign console: the desktop console needs the GTK 3"
                        + " library, which this machine does not have; install it (Debian/Ubuntu: sudo apt-get install"
                        + " libgtk-3-0) and start it again.");
    }

    private Result launch(List<String> prefix) throws IOException, InterruptedException {
        String cp = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        List<String> cmd = new ArrayList<>(prefix);
        cmd.addAll(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp",
                cp,
                "-Djava.util.prefs.userRoot=" + dir,
                "-Dsovereign.console.preferences=test/" + dir.getFileName(),
                Launcher.class.getName(),
                "--no-demo"));
        ProcessBuilder pb = new ProcessBuilder(cmd).directory(dir.toFile());
        pb.environment().remove("DISPLAY");
        pb.environment().remove("WAYLAND_DISPLAY");
        pb.redirectOutput(dir.resolve("out.txt").toFile());
        pb.redirectError(dir.resolve("err.txt").toFile());
        Process p = pb.start();
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("the console did not exit within 60 s: it opened a window after all?");
        }
        return new Result(p.exitValue(), Files.readString(dir.resolve("err.txt"), StandardCharsets.UTF_8));
    }

    private static boolean onPath(String tool) {
        for (String d : System.getenv().getOrDefault("PATH", "").split(":")) {
            if (Files.isExecutable(Path.of(d, tool))) {
                return true;
            }
        }
        return false;
    }

    private record Result(int exit, String err) {}
}
