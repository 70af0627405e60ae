package dev.sovereign.engine.testing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/**
 * Reads what a child JVM reported on its log (stdout and stderr), polling with a deadline: the
 * deterministic way to know that a real process reached a point, without sleeping for a guess.
 */
public final class ChildOutput {
    private ChildOutput() {}

    /** Waits until a line of {@code log} starts with {@code prefix} and returns that line. */
    public static String awaitLine(Path log, String prefix, Process child, Duration deadline) throws Exception {
        long end = System.nanoTime() + deadline.toNanos();
        while (true) {
            Optional<String> line = line(log, prefix);
            if (line.isPresent()) {
                return line.get();
            }
            if (child != null && !child.isAlive()) {
                // it may have printed the line just before exiting
                line = line(log, prefix);
                if (line.isPresent()) {
                    return line.get();
                }
                throw new AssertionError("the child exited (" + child.exitValue() + ") before printing '" + prefix
                        + "'; its log:\n" + read(log));
            }
            if (System.nanoTime() > end) {
                throw new AssertionError("no line '" + prefix + "' within " + deadline + "; the log:\n" + read(log));
            }
            Thread.onSpinWait();
            pause();
        }
    }

    /** Polls {@code condition} until it holds or the deadline passes (then fails with {@code what}). */
    public static void await(String what, Duration deadline, BooleanSupplier condition) {
        long end = System.nanoTime() + deadline.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > end) {
                throw new AssertionError("not within " + deadline + ": " + what);
            }
            pause();
        }
    }

    public static Optional<String> line(Path log, String prefix) throws IOException {
        if (!Files.exists(log)) {
            return Optional.empty();
        }
        List<String> lines = Files.readAllLines(log);
        return lines.stream().filter(l -> l.startsWith(prefix)).findFirst();
    }

    public static String read(Path log) {
        try {
            return Files.exists(log) ? Files.readString(log) : "(no log)";
        } catch (IOException e) {
            return "(unreadable log: " + e + ")";
        }
    }

    /** The poll interval: a short park between looks at a condition, not a wait for a guessed time. */
    private static void pause() {
        LockSupport.parkNanos(20_000_000L);
    }
}
