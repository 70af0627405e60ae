package dev.sovereign.console;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.testfx.util.WaitForAsyncUtils;

/**
 * The real launcher in a child JVM (Monocle's headless screen), ended by a real signal: it closes as Ctrl+Q
 * does — exit 0, nothing on stderr that looks like a failure, the demo's worker processes gone. Under the
 * JVM's default a SIGTERM ran JavaFX's shutdown hook beside a live JavaFX thread (exit 143, and in CI a
 * {@code NullPointerException} from the disposed graphics pipeline).
 */
class CloseOnSignalTest {
    @TempDir
    Path dir;

    /**
     * The signal lands while the demo is still starting (its first worker JVM exists, the others are being
     * launched): the start finishes after the window has closed, and its workers must still be stopped — the
     * console's background threads are gone by then (a RejectedExecutionException on the JavaFX thread once).
     */
    @Test
    void sigtermWhileTheDemoStartsClosesTheConsoleAndEveryWorker() throws Exception {
        Process console = launch(List.of());
        Set<ProcessHandle> workers = new HashSet<>(awaitDemoWorkers(console, 1));

        new ProcessBuilder("kill", "-TERM", Long.toString(console.pid()))
                .inheritIO()
                .start()
                .waitFor();
        WaitForAsyncUtils.waitFor(60, TimeUnit.SECONDS, () -> {
            console.toHandle().children().forEach(workers::add); // workers launched after the signal too
            return !console.isAlive();
        });

        assertThat(console.waitFor(1, TimeUnit.SECONDS))
                .as("the console ended within 60 s")
                .isTrue();
        String err = Files.readString(dir.resolve("err.txt"), StandardCharsets.UTF_8);
        assertThat(console.exitValue()).as("exit code; stderr:%n%s", err).isZero();
        assertThat(err).doesNotContain("Exception", "\tat ");
        assertThat(err).contains("sovereign console: closing on SIGTERM.");
        for (ProcessHandle worker : workers) {
            worker.onExit().get(30, TimeUnit.SECONDS);
            assertThat(worker.isAlive()).as("demo worker %d", worker.pid()).isFalse();
        }
    }

    @Test
    void sigtermWithTheDemoRunningClosesTheConsoleAndItsWorkers() throws Exception {
        Process console = launch(List.of());
        List<ProcessHandle> workers = awaitDemoWorkers(console, 2);

        new ProcessBuilder("kill", "-TERM", Long.toString(console.pid()))
                .inheritIO()
                .start()
                .waitFor();

        assertThat(console.waitFor(60, TimeUnit.SECONDS))
                .as("the console ended within 60 s")
                .isTrue();
        String err = Files.readString(dir.resolve("err.txt"), StandardCharsets.UTF_8);
        assertThat(console.exitValue()).as("exit code; stderr:%n%s", err).isZero();
        assertThat(err).doesNotContain("Exception", "\tat ");
        for (ProcessHandle worker : workers) {
            worker.onExit().get(30, TimeUnit.SECONDS);
            assertThat(worker.isAlive()).as("demo worker %d", worker.pid()).isFalse();
        }
    }

    @Test
    void sigintOnAnAttachedLedgerClosesTheConsoleWithExitZero() throws Exception {
        // A process started in the background by a non-interactive shell has SIGINT ignored (Ctrl-C is not for
        // background jobs), and every child inherits that: the console could not even see this signal. Seen when
        // the build itself ran in the background; SIGTERM and SIGHUP, tested beside it, are never ignored so.
        Assumptions.assumeFalse(
                ignoredByThisProcess(2),
                "SIGINT is ignored by this test's own process"
                        + " (started in the background), so the console it starts inherits that and never receives it");
        Path ledger = dir.resolve("ledger.db");
        Process console = launch(List.of("--db", ledger.toString()));
        awaitJavaFxThread(console);

        new ProcessBuilder("kill", "-INT", Long.toString(console.pid()))
                .inheritIO()
                .start()
                .waitFor();

        assertThat(console.waitFor(60, TimeUnit.SECONDS))
                .as("the console ended within 60 s")
                .isTrue();
        String err = Files.readString(dir.resolve("err.txt"), StandardCharsets.UTF_8);
        assertThat(console.exitValue()).as("exit code; stderr:%n%s", err).isZero();
        assertThat(err).doesNotContain("Exception", "\tat ");
        assertThat(err).contains("sovereign console: closing on SIGINT.");
    }

    /** Whether signal {@code number} is ignored by this JVM (the {@code SigIgn} mask of /proc/self/status). */
    private static boolean ignoredByThisProcess(int number) throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
            if (line.startsWith("SigIgn:")) {
                return (Long.parseUnsignedLong(
                                        line.substring("SigIgn:".length()).strip(), 16)
                                & (1L << (number - 1)))
                        != 0;
            }
        }
        return false;
    }

    private Process launch(List<String> args) throws IOException {
        String cp = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        List<String> cmd = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp",
                cp,
                "-Dglass.platform=Monocle",
                "-Dmonocle.platform=Headless",
                "-Dprism.order=sw",
                "-Dprism.text=t2k",
                "-Dheadless.geometry=1920x1200-32",
                "-Djava.awt.headless=true",
                "-Djava.util.prefs.userRoot=" + dir,
                "-Dsovereign.console.preferences=test/" + dir.getFileName(),
                "-Dsovereign.console.demoFolder=" + dir.resolve("demo"),
                Launcher.class.getName()));
        cmd.addAll(args);
        ProcessBuilder pb = new ProcessBuilder(cmd).directory(dir.toFile());
        pb.environment().remove("SOVEREIGN_DB");
        pb.redirectOutput(dir.resolve("out.txt").toFile());
        pb.redirectError(dir.resolve("err.txt").toFile());
        return pb.start();
    }

    /** Waits (up to 60 s, reading /proc) until the child runs its JavaFX thread: the handlers are installed. */
    private static void awaitJavaFxThread(Process p) throws Exception {
        WaitForAsyncUtils.waitFor(60, TimeUnit.SECONDS, () -> {
            assertThat(p.isAlive()).as("the console is running").isTrue();
            try (Stream<Path> tasks = Files.list(Path.of("/proc", Long.toString(p.pid()), "task"))) {
                return tasks.anyMatch(t -> {
                    try {
                        return Files.readString(t.resolve("comm")).startsWith("JavaFX Applicat");
                    } catch (IOException gone) {
                        return false;
                    }
                });
            }
        });
    }

    /** Waits until at least {@code atLeast} of the demo's worker JVMs run (children of the console); returns them. */
    private static List<ProcessHandle> awaitDemoWorkers(Process p, int atLeast) throws Exception {
        AtomicReference<List<ProcessHandle>> seen = new AtomicReference<>(List.of());
        WaitForAsyncUtils.waitFor(60, TimeUnit.SECONDS, () -> {
            assertThat(p.isAlive()).as("the console is running").isTrue();
            seen.set(p.toHandle().children().toList());
            return seen.get().size() >= atLeast;
        });
        return seen.get();
    }
}
