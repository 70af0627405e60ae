package dev.sovereign.engine.cli;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.provider.CommandProvider;
import dev.sovereign.engine.run.Assignment;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code sovereign assign ACTOR --provider SPEC [--workspace-policy P]}: a CREATED assignment. Runs nothing. For a
 * {@code command:} spec it says that only a process started with a matching {@code --allow-command} runs it.
 */
@Command(name = "assign", description = "Create an assignment for an actor (it runs nothing yet).")
final class AssignCommand extends EngineCommand {
    @Parameters(paramLabel = "ACTOR", description = "The actor whose job it is.")
    String actor;

    @Option(
            names = "--provider",
            required = true,
            paramLabel = "SPEC",
            description = "What to run: scripted:ms=2000,outcome=completed|blocked|failed or command:<shell command>"
                    + " (a worker or 'sovereign run' runs a command only if started with a matching"
                    + " --allow-command PATTERN).")
    String provider;

    @Option(
            names = "--workspace-policy",
            paramLabel = "P",
            description = "temporary or persistent (default: the actor's own policy).")
    String workspacePolicy;

    @Override
    protected int run(Engine engine, Output out) {
        Assignment a = engine.runs().assign(actor, provider, workspacePolicy);
        boolean command = a.providerSpec().startsWith(CommandProvider.KIND + ":");
        String allow = command ? " --allow-command '<pattern>'" : "";
        AssignmentOutput.print(
                out,
                "Assignment created.",
                new AssignmentFacts(a, null, 0, null, null, null),
                "Run it with: sovereign run " + a.id() + allow + "   (or let 'sovereign worker --actor " + actor
                        + allow + "' pick it up)"
                        + (command
                                ? System.lineSeparator() + "Note: a shell command"
                                        + " runs only in a worker or run started with an --allow-command pattern that matches it;"
                                        + " any other process refuses it (command_not_allowed)."
                                : ""));
        return ExitCode.OK;
    }
}
