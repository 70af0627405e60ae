package dev.sovereign.engine.cli;

import dev.sovereign.engine.AboutSovereign;
import dev.sovereign.engine.Engine;
import dev.sovereign.engine.base.EngineConfig;
import dev.sovereign.engine.base.LedgerLocation;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.HelpCommand;
import picocli.CommandLine.IVersionProvider;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ScopeType;
import picocli.CommandLine.Spec;

/**
 * {@code sovereign}: the top-level command. It holds the global options, which are
 * {@link ScopeType#INHERIT inherited}, so they may be written before or after the subcommand
 * ({@code sovereign --json lease list} and {@code sovereign lease list --json} are the same); picocli
 * stores them here either way. Subcommands reach them through {@link #of(CommandSpec)}.
 *
 * <p>To add a command: write one class (usually extending {@link EngineCommand}) and list it in
 * {@link Tree}'s {@code subcommands} below (or in its group's).
 *
 * <p>Not thread-safe: picocli fills one instance per command line, and one command line runs one
 * command at a time ({@link Cli#create} makes a fresh one).
 */
@Command(
        name = "sovereign",
        mixinStandardHelpOptions = true,
        versionProvider = SovereignCommand.Version.class,
        scope = ScopeType.INHERIT,
        sortOptions = false,
        usageHelpAutoWidth = true,
        description = {
            "Lease fencing on a SQLite file or a PostgreSQL server: drives the Sovereign ledger headlessly,"
                    + " for operators, agents and scripts.",
            "",
            "The options --db, --json, --process and --debug may come before or after the command."
        },
        synopsisSubcommandLabel = "COMMAND",
        commandListHeading = "%nCommands:%n",
        optionListHeading = "%nOptions:%n",
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {
            "0:done",
            "1:refused by the ledger (the category is printed)",
            "2:bad usage or bad input",
            "3:storage or file error (busy past the bound, not ours, schema too new, missing, corrupt, workspace unusable)",
            "130:interrupted"
        })
public class SovereignCommand implements Callable<Integer> {
    static final Duration DEFAULT_BUSY_BOUND = Duration.ofSeconds(5);

    private final CliEnvironment environment;

    /** The engine of a {@code serve} process this command line runs one request on; null for a plain call. */
    private Engine host;

    @Spec
    private CommandSpec spec;

    @Option(
            names = "--db",
            paramLabel = "DB",
            scope = ScopeType.INHERIT,
            description = "Database file or jdbc:postgresql:// URL; default $SOVEREIGN_DB, else ./sovereign.db"
                    + " (for lab: a fresh sandbox database)")
    private String database;

    @Option(
            names = "--json",
            scope = ScopeType.INHERIT,
            description = "Print one JSON object per result on stdout (snake_case, stable field names).")
    private boolean json;

    @Option(
            names = "--process",
            paramLabel = "ID",
            scope = ScopeType.INHERIT,
            description = "Act as this process identity (proc_...) instead of a new one; the call neither"
                    + " stops it nor releases its leases.")
    private String process;

    @Option(names = "--debug", scope = ScopeType.INHERIT, description = "Show the stack trace when a command fails.")
    private boolean debug;

    @Option(
            names = "--busy-timeout",
            paramLabel = "DUR",
            scope = ScopeType.INHERIT,
            hidden = true,
            converter = Converters.DurationConverter.class,
            description = "How long a write waits for the database lock before it is a storage error.")
    private Duration busyTimeout = DEFAULT_BUSY_BOUND;

    public SovereignCommand(CliEnvironment environment) {
        this.environment = environment;
    }

    /** The top-level command of the tree {@code spec} belongs to. */
    static SovereignCommand of(CommandSpec spec) {
        return (SovereignCommand) spec.root().userObject();
    }

    /** {@code sovereign} alone: the list of commands, and exit 2 (a command was expected). */
    @Override
    public Integer call() {
        throw new ParameterException(spec.commandLine(), "Missing required subcommand");
    }

    CliEnvironment environment() {
        return environment;
    }

    /**
     * Makes this command line run its command on {@code engine}, the open engine of a {@code serve} process,
     * instead of opening one of its own (docs/decisions/0317).
     */
    void host(Engine engine) {
        this.host = engine;
    }

    /** The serving process's engine this call runs on, or null when the call opens its own. */
    Engine host() {
        return host;
    }

    boolean json() {
        return json;
    }

    boolean debug() {
        return debug;
    }

    Duration busyTimeout() {
        return busyTimeout;
    }

    /** Whether the user named the database ({@code --db} or {@code $SOVEREIGN_DB}). */
    boolean databaseNamed() {
        return database != null
                || environment.variable(CliEnvironment.DB_VARIABLE).isPresent();
    }

    /**
     * {@code --db}, else {@code $SOVEREIGN_DB}, else {@code ./sovereign.db}: a {@code jdbc:} URL as typed (a
     * server, shown only with its secrets hidden), or a file resolved against the working directory.
     */
    LedgerLocation location() {
        String named = named();
        if (LedgerLocation.looksLikeUrl(named)) {
            try {
                return LedgerLocation.parse(named);
            } catch (IllegalArgumentException e) {
                throw new ParameterException(spec.commandLine(), e.getMessage().replaceFirst("\\.$", ""));
            }
        }
        return LedgerLocation.file(database());
    }

    /**
     * The database FILE: for the commands that work on a SQLite file only (the console's door, the lab).
     * A {@code jdbc:} URL is refused in one sentence.
     */
    Path database() {
        return database(null);
    }

    /** {@link #database()} for the subcommand {@code command}, which the refusal of a URL names. */
    Path database(String command) {
        String named = named();
        if (LedgerLocation.looksLikeUrl(named)) {
            throw new ParameterException(
                    spec.commandLine(),
                    (command == null ? "This command" : "'" + command + "'")
                            + " works on a SQLite file, not on a server: " + LedgerLocation.redact(named.strip())
                            + " is a " + (named.strip().regionMatches(true, 0, "jdbc:", 0, 5) ? "jdbc: " : "") + "URL");
        }
        try {
            return environment.workingDirectory().resolve(named).normalize();
        } catch (InvalidPathException e) {
            throw new ParameterException(spec.commandLine(), "'" + named + "' is not a usable file path");
        }
    }

    private String named() {
        String named = database != null
                ? database
                : environment.variable(CliEnvironment.DB_VARIABLE).orElse("sovereign.db");
        if (named.isBlank()) {
            throw new ParameterException(spec.commandLine(), "The database path given with --db is empty");
        }
        return named;
    }

    /** The identity given with {@code --process}, checked; null when none was given. */
    String process() {
        if (process != null && !EngineConfig.isValidProcessIdentity(process)) {
            throw new ParameterException(
                    spec.commandLine(),
                    "Invalid value for option '--process': '" + process
                            + "' is not a process identity; it must look like proc_ followed by letters, digits, - or _");
        }
        return process;
    }

    Output output(CommandSpec command) {
        return new Output(command.commandLine().getOut(), json, environment);
    }

    /**
     * The whole command tree: the top-level command with every command under it. Help that lists the commands,
     * an unknown or missing command, {@code help} and the build's completion script and man pages use it;
     * a call that names its command gets only that command's branch ({@link Cli#execute}), because picocli
     * instantiates and reflects every command of a tree it builds, which was most of a CLI call's start.
     * The list here is the one list of commands.
     */
    @Command(
            subcommands = {
                InitCommand.class,
                ActorCommand.class,
                LeaseCommand.class,
                SendCommand.class,
                InboxCommand.class,
                MessagesCommand.class,
                ClaimCommand.class,
                CompleteCommand.class,
                DeadLetterCommand.class,
                AssignCommand.class,
                RunCommand.class,
                RetryCommand.class,
                AcknowledgeCommand.class,
                StealFenceCommand.class,
                AssignmentsCommand.class,
                WorkerCommand.class,
                SupervisorCommand.class,
                StatusCommand.class,
                ProcessCommand.class,
                CopyCommand.class,
                BackupCommand.class,
                RestoreCommand.class,
                FenceCommand.class,
                EventsCommand.class,
                RejectionsCommand.class,
                MetricsCommand.class,
                RetentionCommand.class,
                PruneCommand.class,
                ServeCommand.class,
                LabCommand.class,
                ConsoleCommand.class,
                HelpCommand.class
            })
    public static final class Tree extends SovereignCommand {
        public Tree(CliEnvironment environment) {
            super(environment);
        }
    }

    /**
     * The version, the Git commit the build was made from and the schema version each backend writes:
     * the same lines as the console's About box ({@link AboutSovereign}).
     */
    static final class Version implements IVersionProvider {
        /** Read once: picocli asks for the lines once for every command it adds under the top-level command. */
        private static final class Lines {
            static final List<String> CURRENT = AboutSovereign.current().lines();
        }

        @Override
        public String[] getVersion() {
            return Lines.CURRENT.toArray(String[]::new);
        }
    }
}
