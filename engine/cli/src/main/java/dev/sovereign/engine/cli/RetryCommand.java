package dev.sovereign.engine.cli;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.run.Assignment;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/** {@code sovereign retry ASSIGNMENT}: a new CREATED assignment retrying a FAILED or BLOCKED one. Runs nothing. */
@Command(name = "retry", description = "Create a new assignment retrying a FAILED or BLOCKED one.")
final class RetryCommand extends EngineCommand {
    @Parameters(paramLabel = "ASSIGNMENT", description = "The FAILED or BLOCKED assignment (asg_...).")
    String assignment;

    @Override
    protected int run(Engine engine, Output out) {
        Assignment a = engine.runs().retry(assignment);
        AssignmentOutput.print(
                out,
                "Retry created.",
                new AssignmentFacts(a, null, 0, null, null, null),
                "Run it with: sovereign run " + a.id());
        return ExitCode.OK;
    }
}
