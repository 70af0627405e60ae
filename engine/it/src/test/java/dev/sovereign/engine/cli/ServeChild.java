package dev.sovereign.engine.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sovereign.engine.testing.ChildJvm;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A real {@code sovereign serve --stdio} child process, driven line by line through its standard input and
 * output (stderr goes to a file beside the database). Every answer line is collected as it arrives, so a
 * test reads the next one with a deadline and can also see that nothing else was printed. Not thread-safe.
 */
final class ServeChild implements AutoCloseable {
    private static final AtomicInteger STARTS = new AtomicInteger();
    private static final String EOF = new String("eof");

    private final Process process;
    private final Writer stdin;
    private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
    private final Path errFile;
    private int nextId;

    private ServeChild(Process process, Path errFile) {
        this.process = process;
        this.errFile = errFile;
        this.stdin = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
        Thread reader = new Thread(
                () -> {
                    try (BufferedReader out = new BufferedReader(
                            new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                        for (String line = out.readLine(); line != null; line = out.readLine()) {
                            lines.add(line);
                        }
                    } catch (IOException ignored) {
                        // the process is gone
                    } finally {
                        lines.add(EOF);
                    }
                },
                "serve-child-stdout");
        reader.setDaemon(true);
        reader.start();
    }

    /** Starts {@code sovereign --db DB serve --stdio [extra...]} with its working directory {@code dir}. */
    static ServeChild start(Path dir, Path database, String... extra) {
        List<String> args = new ArrayList<>(List.of("--db", database.toString(), "serve", "--stdio"));
        args.addAll(List.of(extra));
        ProcessBuilder pb =
                ChildJvm.builder(Main.class, args.toArray(String[]::new)).directory(dir.toFile());
        pb.environment().remove(CliEnvironment.DB_VARIABLE);
        Path err = dir.resolve("serve-" + STARTS.incrementAndGet() + ".err");
        pb.redirectError(err.toFile());
        try {
            return new ServeChild(pb.start(), err);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    Process process() {
        return process;
    }

    /** Sends {@code request} with the next id and returns its answer, after checking the answer's id. */
    JsonNode call(ObjectNode request) {
        int id = ++nextId;
        request.put("id", id);
        send(request.toString());
        JsonNode answer = answer();
        if (answer.path("id").asInt(-1) != id) {
            throw new AssertionError("the answer to request " + id + " carries id " + answer.get("id") + ": " + answer);
        }
        return answer;
    }

    /** A request of {@code op} with the given field/value pairs. */
    JsonNode call(String op, Object... fields) {
        ObjectNode r = CliHarness.JSON.createObjectNode().put("op", op);
        for (int i = 0; i < fields.length; i += 2) {
            Object v = fields[i + 1];
            if (v instanceof Number n) {
                r.put((String) fields[i], n.longValue());
            } else {
                r.put((String) fields[i], String.valueOf(v));
            }
        }
        return call(r);
    }

    /** Writes one raw line (anything at all) to the process's standard input. */
    void send(String line) {
        try {
            stdin.write(line);
            stdin.write('\n');
            stdin.flush();
        } catch (IOException e) {
            throw new UncheckedIOException("serve's stdin is closed; stderr: " + err(), e);
        }
    }

    /** The next line the process printed, parsed; fails when it prints none within a minute. */
    JsonNode answer() {
        String line = next();
        if (line == EOF) {
            throw new AssertionError("serve ended its output; stderr: " + err());
        }
        try {
            return CliHarness.JSON.readTree(line);
        } catch (IOException e) {
            throw new AssertionError("serve printed a line that is not JSON: " + line, e);
        }
    }

    private String next() {
        try {
            String line = lines.poll(60, TimeUnit.SECONDS);
            if (line == null) {
                throw new AssertionError("serve answered nothing within a minute; stderr: " + err());
            }
            return line;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        }
    }

    /** Closes standard input (end of input) and waits for the exit code; stdout must have nothing more. */
    int endInput() {
        try {
            stdin.close();
        } catch (IOException ignored) {
            // already closed
        }
        return awaitExit();
    }

    /** Waits for the process to end and returns its exit code, insisting it printed no line beyond the answers. */
    int awaitExit() {
        try {
            if (!process.waitFor(60, TimeUnit.SECONDS)) {
                throw new AssertionError("serve did not end; stderr: " + err());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        }
        String rest = next();
        if (rest != EOF) {
            throw new AssertionError("serve printed a line nobody asked for: " + rest);
        }
        return process.exitValue();
    }

    String err() {
        return RealCli.read(errFile);
    }

    @Override
    public void close() {
        ChildJvm.destroy(process);
    }
}
