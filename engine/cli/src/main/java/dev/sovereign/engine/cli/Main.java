package dev.sovereign.engine.cli;

import java.io.PrintWriter;

/** The {@code sovereign} executable: the only place that ends the JVM. */
public final class Main {
    private Main() {}

    public static void main(String[] args) {
        // sqlite-jdbc logs through SLF4J; with no provider on the class path SLF4J would print three
        // warning lines on stderr, where the CLI promises one sentence per failure and nothing else.
        if (System.getProperty("slf4j.internal.verbosity") == null) {
            System.setProperty("slf4j.internal.verbosity", "ERROR");
        }
        PrintWriter out = new PrintWriter(System.out, true);
        PrintWriter err = new PrintWriter(System.err, true);
        int code = Cli.execute(CliEnvironment.system(), out, err, args);
        out.flush();
        err.flush();
        System.exit(code);
    }
}
