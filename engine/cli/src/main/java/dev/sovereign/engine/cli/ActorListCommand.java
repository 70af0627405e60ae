package dev.sovereign.engine.cli;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.actor.Actor;
import java.util.List;
import picocli.CommandLine.Command;

/** {@code sovereign actor list}. */
@Command(name = "list", description = "List the actors.")
final class ActorListCommand extends EngineCommand {
    @Override
    protected int run(Engine engine, Output out) {
        List<Actor> actors = engine.actors().list();
        if (out.json()) {
            actors.forEach(a -> out.emit(JsonShapes.actor(a)));
            return ExitCode.OK;
        }
        if (actors.isEmpty()) {
            out.line("No actors yet; add one with 'sovereign actor add ID'.");
            return ExitCode.OK;
        }
        Times t = out.times();
        Table table = new Table("ACTOR", "WORKSPACE POLICY", "CREATED");
        actors.forEach(a -> table.row(a.id(), a.workspacePolicy(), t.at(a.createdAt())));
        out.table(table);
        return ExitCode.OK;
    }
}
