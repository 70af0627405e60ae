package dev.sovereign.engine.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.PrintWriter;
import java.util.List;

/**
 * Where a command prints its results: picocli's stdout writer (so tests capture it), either as
 * human tables or, with {@code --json}, as one JSON object per line. Not thread-safe: one command
 * writes at a time.
 */
final class Output {
    private final PrintWriter out;
    private final boolean json;
    private final CliEnvironment environment;

    Output(PrintWriter out, boolean json, CliEnvironment environment) {
        this.out = out;
        this.json = json;
        this.environment = environment;
    }

    boolean json() {
        return json;
    }

    /** Times rendered against the CLI clock's reading now. */
    Times times() {
        return new Times(environment.zone(), environment.clock().millis());
    }

    long now() {
        return environment.clock().millis();
    }

    /** One JSON result, on its own line, flushed at once (followers read line by line). */
    void emit(ObjectNode node) {
        out.println(JsonShapes.line(node));
        out.flush();
    }

    void line(String text) {
        out.println(text);
        out.flush();
    }

    void table(Table table) {
        table.print(out);
    }

    /** A headline sentence followed by aligned {@code key  value} lines. */
    void fields(String headline, List<String[]> pairs) {
        out.println(headline);
        Table.fields(out, pairs);
    }
}
