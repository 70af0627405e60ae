package dev.sovereign.engine.cli;

import dev.sovereign.engine.testing.ChildJvm;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Runs the built CLI as a real OS process ({@code java -cp <test class path> dev.sovereign.engine.cli.Main}),
 * in a given working directory, with stdout and stderr captured to separate files.
 */
final class RealCli {
    private static final AtomicInteger RUNS = new AtomicInteger();

    private final Path dir;

    RealCli(Path dir) {
        this.dir = dir;
    }

    Running start(String... args) {
        return start(Map.of(), args);
    }

    /** Starts it with {@code env} added to its environment (an operator's variables, e.g. JAVA_TOOL_OPTIONS). */
    Running start(Map<String, String> env, String... args) {
        int n = RUNS.incrementAndGet();
        Path out = dir.resolve("run-" + n + ".out");
        Path err = dir.resolve("run-" + n + ".err");
        ProcessBuilder pb = ChildJvm.builder(Main.class, args).directory(dir.toFile());
        pb.environment().remove(CliEnvironment.DB_VARIABLE);
        pb.environment().putAll(env);
        pb.redirectOutput(out.toFile()).redirectError(err.toFile());
        try {
            return new Running(pb.start(), out, err, List.of(args));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    Finished run(String... args) {
        return start(args).await();
    }

    record Running(Process process, Path outFile, Path errFile, List<String> args) {
        String out() {
            return read(outFile);
        }

        String err() {
            return read(errFile);
        }

        Finished await() {
            try {
                if (!process.waitFor(60, TimeUnit.SECONDS)) {
                    ChildJvm.destroy(process);
                    throw new AssertionError("sovereign " + args + " did not finish; stderr: " + err());
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted", e);
            }
            return new Finished(process.exitValue(), out(), err(), args);
        }
    }

    record Finished(int exit, String out, String err, List<String> args) {
        List<String> errLines() {
            return err.lines().filter(l -> !l.isBlank()).toList();
        }

        @Override
        public String toString() {
            return "sovereign " + args + " -> exit " + exit + "\nstdout: " + out + "\nstderr: " + err;
        }
    }

    static String read(Path file) {
        try {
            return Files.exists(file) ? Files.readString(file) : "";
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
