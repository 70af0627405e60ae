package dev.sovereign.engine.cli;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.actor.Actor;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code sovereign actor add ID [--workspace-policy P]}. */
@Command(name = "add", description = "Add an actor: a durable identity a process may host.")
final class ActorAddCommand extends EngineCommand {
    @Parameters(paramLabel = "ID", description = "The actor's id, e.g. operator.")
    String id;

    @Option(
            names = "--workspace-policy",
            paramLabel = "P",
            defaultValue = "temporary",
            description = "What happens to a run's workspace afterwards: temporary (default) or persistent.")
    String workspacePolicy;

    @Override
    protected int run(Engine engine, Output out) {
        Actor a = engine.actors().add(id, workspacePolicy);
        if (out.json()) {
            out.emit(JsonShapes.actor(a));
        } else {
            out.fields(
                    "Actor added.",
                    List.of(new String[] {"actor", a.id()}, new String[] {"workspace policy", a.workspacePolicy()}));
        }
        return ExitCode.OK;
    }
}
