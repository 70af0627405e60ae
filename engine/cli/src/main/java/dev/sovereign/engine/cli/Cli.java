package dev.sovereign.engine.cli;

import java.io.PrintWriter;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * Builds the {@code sovereign} command line: the command tree, the one {@link ErrorMapper}, and the
 * output writers. Tests run it in-process with their own writers and environment; {@link Main} runs
 * it with the real ones.
 *
 * <p>A call that names its command builds only that command's branch under the top-level command
 * ({@link #forArguments}): picocli instantiates and reflects every command of the tree it is given, which
 * took most of a CLI call's start (docs/decisions/0321); {@code --version} alone gets the top-level command alone.
 * Anything else (no command, an unknown one, {@code help}, an argument file) gets the whole tree, so its help and its
 * errors are picocli's own.
 */
public final class Cli {
    /**
     * The top-level options that take a value as the next argument (they may come before the command); a test checks
     * this against {@link SovereignCommand}'s options.
     */
    static final Set<String> OPTIONS_WITH_A_VALUE = Set.of("--db", "--process", "--busy-timeout");

    private Cli() {}

    /** The whole command line for {@code environment}, printing to {@code out} and {@code err}. */
    public static CommandLine create(CliEnvironment environment, PrintWriter out, PrintWriter err) {
        return writingTo(configured(new CommandLine(new SovereignCommand.Tree(environment))), out, err);
    }

    /**
     * The command line that runs {@code args}: the top-level command with only the branch of the command
     * {@code args} names, or the whole tree when they name none of the commands.
     */
    static CommandLine forArguments(CliEnvironment environment, PrintWriter out, PrintWriter err, String... args) {
        Optional<Class<?>> command = commandNamed(args);
        if (command.isEmpty()
                && args.length > 0
                && Arrays.stream(args).allMatch(a -> a.equals("--version") || a.equals("-V"))) {
            // the version lines need no command at all
            return writingTo(configured(new CommandLine(new SovereignCommand(environment))), out, err);
        }
        if (command.isEmpty()) {
            return create(environment, out, err);
        }
        // Added before the settings: picocli applies them to the subcommands that exist when they are set.
        CommandLine cl = new CommandLine(new SovereignCommand(environment));
        cl.addSubcommand(command.get());
        helpOptionsLast(cl.getSubcommands().values().iterator().next());
        return writingTo(configured(cl), out, err);
    }

    /** Runs one command and returns its exit code. */
    public static int execute(CliEnvironment environment, PrintWriter out, PrintWriter err, String... args) {
        return forArguments(environment, out, err, args).execute(args);
    }

    /**
     * The command class the first word of {@code args} that is no option (nor an option's value) names, if it
     * names one of {@link SovereignCommand.Tree}'s commands other than {@code help}; empty when there is no such
     * word, or when what comes before it would make picocli answer from the whole tree: a help option (the
     * top-level help lists every command), an option's value that names a command (picocli refuses it), or an
     * argument this scan does not read as picocli does ({@code @file}, {@code --}).
     */
    static Optional<Class<?>> commandNamed(String... args) {
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            if (a.startsWith("@") || a.equals("--") || isHelpOption(a)) {
                return Optional.empty();
            }
            if (a.startsWith("-")) {
                int equals = a.indexOf('=');
                if (equals > 0 && command(a.substring(equals + 1)).isPresent()) {
                    return Optional.empty();
                }
                if (OPTIONS_WITH_A_VALUE.contains(a)
                        && ++i < args.length
                        && command(args[i]).isPresent()) {
                    return Optional.empty();
                }
                continue;
            }
            return command(a);
        }
        return Optional.empty();
    }

    /** {@code -h}, {@code --help}, or a cluster of short options with {@code h} in it ({@code -hV}). */
    private static boolean isHelpOption(String arg) {
        return arg.equals("--help") || (arg.startsWith("-") && !arg.startsWith("--") && arg.indexOf('h') > 0);
    }

    /**
     * The command {@code word} names. By the convention every command follows ({@code dead-letter} is
     * {@code DeadLetterCommand}, checked by a test), only that class's annotation is read: reading all of them was a
     * tenth of a call's start.
     */
    private static Optional<Class<?>> command(String word) {
        String simpleName = conventionalClassName(word);
        return commands().stream()
                .filter(c -> c.getSimpleName().equals(simpleName) && named(c, word))
                .findFirst();
    }

    /** {@code dead-letter} → {@code DeadLetterCommand}. */
    static String conventionalClassName(String word) {
        StringBuilder name = new StringBuilder();
        for (String part : word.split("-")) {
            if (!part.isEmpty()) {
                name.append(Character.toUpperCase(part.charAt(0))).append(part.substring(1));
            }
        }
        return name.append("Command").toString();
    }

    private static List<Class<?>> commands() {
        return List.of(SovereignCommand.Tree.class.getAnnotation(Command.class).subcommands());
    }

    private static boolean named(Class<?> command, String word) {
        Command c = command.getAnnotation(Command.class);
        return command != CommandLine.HelpCommand.class
                && (c.name().equals(word) || List.of(c.aliases()).contains(word));
    }

    /**
     * In the whole tree each command lists {@code -h} and {@code -V} after the options it inherits (picocli adds the
     * top-level command's options to its commands in their order, help options last); a command added to a built
     * top-level command gets them first. Moved to the end, so its help reads the same either way.
     */
    private static void helpOptionsLast(CommandLine branch) {
        CommandSpec spec = branch.getCommandSpec();
        List<OptionSpec> help = spec.options().stream()
                .filter(o -> o.usageHelp() || o.versionHelp())
                .toList();
        help.forEach(spec::remove);
        help.forEach(spec::addOption);
        branch.getSubcommands().values().forEach(Cli::helpOptionsLast);
    }

    private static CommandLine configured(CommandLine cl) {
        ErrorMapper errors = new ErrorMapper();
        return cl.setExecutionExceptionHandler(errors)
                .setParameterExceptionHandler(errors)
                .setCaseInsensitiveEnumValuesAllowed(true);
    }

    /** Set last: picocli hands writers down to the subcommands that exist at this moment. */
    private static CommandLine writingTo(CommandLine cl, PrintWriter out, PrintWriter err) {
        cl.setOut(out);
        cl.setErr(err);
        return cl;
    }
}
