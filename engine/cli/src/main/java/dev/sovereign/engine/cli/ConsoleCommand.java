package dev.sovereign.engine.cli;

import dev.sovereign.engine.base.LedgerLocation;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * {@code sovereign console [--db PATH] [--no-demo]}: starts the desktop console (its own jar, named by the
 * launcher) as a child process with this terminal's input and output, and waits for it; exits with
 * the console's exit code. The console gets {@code --db} when a database was named ({@code --db} or
 * {@code $SOVEREIGN_DB}) or {@code ./sovereign.db} exists; otherwise none, and it opens its demo.
 * A server's URL is handed to the console as {@code $SOVEREIGN_DB}, never on its command line (decision 0423).
 * It does not open the database itself: the console reports a missing, locked or foreign file.
 */
@Command(name = "console", description = "Open the desktop console on the database.")
final class ConsoleCommand implements Callable<Integer> {
    /** The console JVM's compiler option (decision 0427); the packaged console's launcher has the same. */
    static final String CONSOLE_JIT = "-XX:TieredStopAtLevel=1";

    @Spec
    CommandSpec spec;

    @CommandLine.Option(
            names = "--no-demo",
            description = "With no database named or present, show the welcome page instead of the demo.")
    boolean noDemo;

    @Override
    public Integer call() throws InterruptedException {
        SovereignCommand root = SovereignCommand.of(spec);
        CliEnvironment env = root.environment();
        Path jar = env.consoleJar()
                .orElseThrow(() -> CliFailure.unavailable(
                        "This sovereign was not started by its launcher, so it does not know where the desktop console is;"
                                + " run './sovereign console' from the repository or pass -D"
                                + CliEnvironment.CONSOLE_JAR_PROPERTY + "=PATH"));
        if (!Files.isRegularFile(jar)) {
            throw CliFailure.unavailable("The desktop console is not built (" + jar + " does not exist); build it"
                    + " with 'mvn -B -ntp -DskipTests package' in the repository, which ./sovereign does on first use");
        }
        // C1 only: the C2 compiler's work was most of an idle console's CPU in its first minutes, and a live one's
        // CPU is lower without it too; its refresh stays within its targets (decision 0427)
        List<String> command = new ArrayList<>(List.of(env.java().toString(), CONSOLE_JIT, "-jar", jar.toString()));
        LedgerLocation location = root.location();
        ProcessBuilder builder = new ProcessBuilder(command);
        if (!location.isFile()) {
            // a server's URL goes by the environment, never the command line: a password in it would show in
            // every user's process list (decision 0423)
            builder.environment().put(CliEnvironment.DB_VARIABLE, location.text());
        } else if (root.databaseNamed() || Files.exists(location.file().orElseThrow())) {
            builder.environment().remove(CliEnvironment.DB_VARIABLE);
            command.add("--db");
            command.add(location.file().orElseThrow().toString());
        } else {
            builder.environment().remove(CliEnvironment.DB_VARIABLE);
        }
        if (noDemo) {
            command.add("--no-demo");
        }
        Process console;
        try {
            console = builder.command(command)
                    .directory(env.workingDirectory().toFile())
                    .inheritIO()
                    .start();
        } catch (IOException e) {
            throw CliFailure.unavailable(
                    "Could not start the desktop console with " + env.java() + ": " + e.getMessage());
        }
        // A SIGTERM or SIGINT to this process must not orphan the console (and, through it, a demo's
        // or the lab's worker processes): pass the end on to the console, which stops its own children.
        Thread endConsole = new Thread(
                () -> {
                    if (console.isAlive()) {
                        console.destroy();
                        try {
                            console.waitFor(15, TimeUnit.SECONDS);
                        } catch (InterruptedException ignored) {
                            Thread.currentThread().interrupt();
                        }
                    }
                },
                "end-console");
        Runtime.getRuntime().addShutdownHook(endConsole);
        try {
            return console.waitFor();
        } catch (InterruptedException e) {
            console.destroy();
            throw e;
        } finally {
            try {
                Runtime.getRuntime().removeShutdownHook(endConsole);
            } catch (IllegalStateException shuttingDown) {
                // the hook is already running: it ends the console
            }
        }
    }
}
