package dev.sovereign.engine.cli;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.base.LedgerLocation;
import dev.sovereign.engine.mailbox.Message;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code sovereign --process ID complete MSG --token N}: finishes a message as DONE. The token is
 * checked in the same statement as the write, with state CLAIMED, the claiming process and that this
 * process still hosts the actor: a stale token is {@code fencing_token_stale}, a lost lease
 * {@code actor_lease_lost} (both exit 1, both journalled).
 */
@Command(name = "complete", description = "Finish a claimed message as DONE, presenting its claim token.")
final class CompleteCommand extends EngineCommand {
    @Parameters(paramLabel = "MSG", description = "The message id (msg_...).")
    String message;

    @Option(
            names = "--token",
            paramLabel = "N",
            required = true,
            converter = Converters.TokenConverter.class,
            description = "The claim's fencing token.")
    long token;

    @Override
    protected void beforeOpen(LedgerLocation database) {
        MessageOutput.requireProcess(
                spec,
                "only the process holding the claim may finish message " + message
                        + ", and a call without --process is a new process that holds no claim; pass the identity that"
                        + " claimed it");
    }

    @Override
    protected int run(Engine engine, Output out) {
        Message m = engine.mailbox().complete(message, token);
        MessageOutput.print(out, "Message done.", m);
        return ExitCode.OK;
    }
}
