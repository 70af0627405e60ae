package dev.sovereign.engine.cli;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.run.Assignment;
import dev.sovereign.engine.run.AssignmentState;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code sovereign assignments [--actor A] [--state S] [--limit N]}: assignments, newest first, with
 * the current attempt's token, the receipt and whether a supervisor recovered them as worker_lost.
 */
@Command(name = "assignments", description = "List assignments: state, attempt token, receipt, worker_lost.")
final class AssignmentsCommand extends EngineCommand {
    @Option(names = "--actor", paramLabel = "A", description = "Only this actor's assignments.")
    String actor;

    @Option(
            names = "--state",
            paramLabel = "S",
            description = "Only assignments in this state: CREATED, RUNNING, COMPLETED, BLOCKED, FAILED.")
    AssignmentState state;

    @Option(
            names = "--limit",
            paramLabel = "N",
            defaultValue = "50",
            converter = Converters.LimitConverter.class,
            description = "Show at most N assignments, the newest (default: ${DEFAULT-VALUE}).")
    int limit;

    @Override
    protected int run(Engine engine, Output out) {
        List<Assignment> all = engine.runs().list();
        List<AssignmentFacts> rows = all.stream()
                .filter(a -> actor == null || a.actorId().equals(actor))
                .filter(a -> state == null || a.state() == state)
                .limit(limit)
                .map(a -> AssignmentFacts.read(engine, a, all))
                .toList();
        if (out.json()) {
            rows.forEach(f -> out.emit(JsonShapes.assignment(f)));
            return ExitCode.OK;
        }
        if (rows.isEmpty()) {
            out.line("No assignments" + (actor != null || state != null ? " match" : "") + ".");
            return ExitCode.OK;
        }
        out.table(AssignmentOutput.table(rows, out.times()));
        return ExitCode.OK;
    }
}
