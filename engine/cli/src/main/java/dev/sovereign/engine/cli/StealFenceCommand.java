package dev.sovereign.engine.cli;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.run.Attempt;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/**
 * {@code sovereign steal-fence ASSIGNMENT}: an operator or lab action that clears a RUNNING
 * assignment's attempt pointer, so the attempt's holder can no longer commit (its terminal write is
 * refused and journalled). Journalled as {@code ATTEMPT_STOLEN}.
 */
@Command(name = "steal-fence", description = "Lab/operator: take a RUNNING assignment's fence from its attempt.")
final class StealFenceCommand extends EngineCommand {
    @Parameters(paramLabel = "ASSIGNMENT", description = "The RUNNING assignment (asg_...).")
    String assignment;

    @Override
    protected int run(Engine engine, Output out) {
        Attempt stolen = engine.runs().stealFence(assignment);
        AssignmentOutput.printStolen(out, stolen);
        return ExitCode.OK;
    }
}
