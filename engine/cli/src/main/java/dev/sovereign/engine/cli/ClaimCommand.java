package dev.sovereign.engine.cli;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.base.LedgerLocation;
import dev.sovereign.engine.mailbox.Claim;
import java.time.Duration;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code sovereign --process ID claim MSG --actor A [--ttl DUR]}. Only a process hosting the recipient
 * actor may claim, so the call must act as that process ({@code --process}, the identity that acquired
 * the lease); the claim outlives the call until its TTL. Claiming again within the TTL returns the same
 * token and extends the claim; an expired claim is taken over with a fresh, greater token.
 */
@Command(name = "claim", description = "Claim a message as the --process that hosts its actor.")
final class ClaimCommand extends EngineCommand {
    @Parameters(paramLabel = "MSG", description = "The message id (msg_...).")
    String message;

    @Option(
            names = "--actor",
            required = true,
            paramLabel = "A",
            description = "The recipient actor, hosted by --process.")
    String actor;

    @Option(
            names = "--ttl",
            paramLabel = "DUR",
            converter = Converters.DurationConverter.class,
            description = "How long the claim lives unless claimed again (default: 10s).")
    Duration ttl;

    @Override
    protected void beforeOpen(LedgerLocation database) {
        MessageOutput.requireProcess(
                spec,
                "only the process hosting actor " + actor + " may claim its messages,"
                        + " and a call without --process is a new process that hosts nothing; acquire the lease with"
                        + " 'sovereign --process ID lease acquire " + actor + "' and claim with the same --process ID");
    }

    @Override
    protected int run(Engine engine, Output out) {
        Claim c = ttl != null
                ? engine.mailbox().claim(message, actor, ttl)
                : engine.mailbox().claim(message, actor);
        MessageOutput.printClaim(out, c);
        return ExitCode.OK;
    }
}
