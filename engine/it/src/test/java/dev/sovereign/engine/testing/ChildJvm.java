package dev.sovereign.engine.testing;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Starts a real child JVM on the test classpath, so multi-process properties are proven with
 * separate OS processes. Output goes to a file next to the database for post-mortems.
 */
public final class ChildJvm {
    private ChildJvm() {}

    public static String classpath() {
        String cp = System.getProperty("surefire.test.class.path");
        return cp != null && !cp.isBlank() ? cp : System.getProperty("java.class.path");
    }

    public static ProcessBuilder builder(Class<?> main, String... args) {
        return builder(List.of(), main, args);
    }

    /** A child JVM with extra JVM options ({@code -Dname=value}, {@code -Xmx...}) before the main class. */
    public static ProcessBuilder builder(List<String> jvmOptions, Class<?> main, String... args) {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.add("-Xshare:auto");
        cmd.add("-XX:TieredStopAtLevel=1");
        cmd.addAll(jvmOptions);
        cmd.add("-cp");
        cmd.add(classpath());
        cmd.add(main.getName());
        cmd.addAll(List.of(args));
        return new ProcessBuilder(cmd);
    }

    public static Process start(Class<?> main, Path log, String... args) throws IOException {
        ProcessBuilder pb = builder(main, args);
        pb.redirectErrorStream(true);
        pb.redirectOutput(log.toFile());
        return pb.start();
    }

    /** Sends a POSIX signal (KILL, STOP, CONT, TERM, INT) with the real {@code kill} command. */
    public static void signal(Process p, String signal) throws IOException, InterruptedException {
        Process k = new ProcessBuilder("kill", "-" + signal, Long.toString(p.pid()))
                .inheritIO()
                .start();
        if (!k.waitFor(10, TimeUnit.SECONDS) || k.exitValue() != 0) {
            throw new IllegalStateException("kill -" + signal + " " + p.pid() + " failed");
        }
    }

    public static void destroy(Process p) {
        if (p != null && p.isAlive()) {
            p.destroyForcibly();
            try {
                p.waitFor(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    public static String pathSeparator() {
        return File.pathSeparator;
    }

    /** Waits (polling the file, with a deadline) until a child's log has a line starting with {@code prefix}. */
    public static String awaitLine(Path log, String prefix, Duration timeout) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            if (Files.exists(log)) {
                for (String line : Files.readAllLines(log)) {
                    if (line.startsWith(prefix)) {
                        return line;
                    }
                }
            }
            TimeUnit.MILLISECONDS.sleep(20);
        }
        throw new AssertionError("no line starting with " + prefix + " in " + log + ": "
                + (Files.exists(log) ? Files.readString(log) : "(no log)"));
    }
}
