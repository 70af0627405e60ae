package dev.sovereign.engine.cli;

import java.io.PrintWriter;
import picocli.CommandLine;

/**
 * Builds the {@code sovereign} command line: the command tree, the one {@link ErrorMapper}, and the
 * output writers. Tests run it in-process with their own writers and environment; {@link Main} runs
 * it with the real ones.
 */
public final class Cli {
    private Cli() {}

    /** The command line for {@code environment}, printing to {@code out} and {@code err}. */
    public static CommandLine create(CliEnvironment environment, PrintWriter out, PrintWriter err) {
        ErrorMapper errors = new ErrorMapper();
        CommandLine cl = new CommandLine(new SovereignCommand(environment))
                .setExecutionExceptionHandler(errors)
                .setParameterExceptionHandler(errors)
                .setCaseInsensitiveEnumValuesAllowed(true);
        // Set last: picocli hands writers down to the subcommands that exist at this moment.
        cl.setOut(out);
        cl.setErr(err);
        return cl;
    }

    /** Runs one command and returns its exit code. */
    public static int execute(CliEnvironment environment, PrintWriter out, PrintWriter err, String... args) {
        return create(environment, out, err).execute(args);
    }
}
