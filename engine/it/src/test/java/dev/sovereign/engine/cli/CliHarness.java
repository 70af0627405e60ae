package dev.sovereign.engine.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sovereign.engine.testing.SettableClock;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;

/**
 * Runs {@code sovereign} in-process through picocli, on a real database file in a temp directory,
 * with captured stdout/stderr and a settable clock (so "in 30s" and expiry are exact).
 */
final class CliHarness {
    static final ObjectMapper JSON = new ObjectMapper();

    private final Path dir;
    private final SettableClock clock;
    private UnaryOperator<CliEnvironment.Builder> customise = b -> b;

    CliHarness(Path dir, SettableClock clock) {
        this.dir = dir;
        this.clock = clock;
    }

    Path dir() {
        return dir;
    }

    SettableClock clock() {
        return clock;
    }

    /** Changes the environment of later runs (variables, console jar, stop signals). */
    CliHarness with(UnaryOperator<CliEnvironment.Builder> change) {
        UnaryOperator<CliEnvironment.Builder> before = customise;
        customise = b -> change.apply(before.apply(b));
        return this;
    }

    CliEnvironment environment() {
        return customise
                .apply(CliEnvironment.builder()
                        .variables(Map.of())
                        .workingDirectory(dir)
                        .clock(clock)
                        .zone(ZoneOffset.UTC))
                .build();
    }

    Result run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = Cli.execute(environment(), new PrintWriter(out, true), new PrintWriter(err, true), args);
        return new Result(code, out.toString(), err.toString());
    }

    /** Runs and insists on exit 0, showing stderr when it is not. */
    Result ok(String... args) {
        Result r = run(args);
        assertThat(r.exit())
                .as("exit of %s; stderr: %s", Arrays.toString(args), r.err())
                .isZero();
        return r;
    }

    record Result(int exit, String out, String err) {
        List<String> errLines() {
            return nonEmptyLines(err);
        }

        List<String> outLines() {
            return nonEmptyLines(out);
        }

        /** Every stdout line parsed as one JSON object. */
        List<JsonNode> json() {
            List<JsonNode> nodes = new ArrayList<>();
            for (String line : outLines()) {
                try {
                    nodes.add(JSON.readTree(line));
                } catch (IOException e) {
                    throw new UncheckedIOException("not JSON: " + line, e);
                }
            }
            return nodes;
        }

        JsonNode onlyJson() {
            List<JsonNode> nodes = json();
            assertThat(nodes).as("stdout: %s", out).hasSize(1);
            return nodes.get(0);
        }

        private static List<String> nonEmptyLines(String text) {
            return text.lines().filter(l -> !l.isBlank()).toList();
        }
    }

    /** The field names of a JSON object, in order. */
    static List<String> fieldNames(JsonNode node) {
        List<String> names = new ArrayList<>();
        node.fieldNames().forEachRemaining(names::add);
        return names;
    }
}
