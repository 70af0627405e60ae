package dev.sovereign.engine.cli;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.run.Assignment;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/**
 * {@code sovereign acknowledge ASSIGNMENT}: an operator says they have seen a FAILED or BLOCKED
 * assignment (typically a supervisor's {@code worker_lost} recovery) and will not retry it. Journalled
 * once; acknowledging again changes nothing.
 */
@Command(name = "acknowledge", description = "Acknowledge a FAILED or BLOCKED assignment instead of a retry.")
final class AcknowledgeCommand extends EngineCommand {
    @Parameters(paramLabel = "ASSIGNMENT", description = "The FAILED or BLOCKED assignment (asg_...).")
    String assignment;

    @Override
    protected int run(Engine engine, Output out) {
        Assignment a = engine.runs().acknowledge(assignment);
        AssignmentOutput.print(out, "Acknowledged.", AssignmentFacts.read(engine, a), null);
        return ExitCode.OK;
    }
}
