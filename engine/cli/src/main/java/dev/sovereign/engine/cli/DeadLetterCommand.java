package dev.sovereign.engine.cli;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.base.LedgerLocation;
import dev.sovereign.engine.mailbox.Message;
import dev.sovereign.engine.mailbox.MessageState;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code sovereign --process ID dead-letter MSG --token N}: gives a claimed message back. It is NEW
 * again with one more retry counted while retries remain, else DEAD. Fenced exactly like
 * {@code complete}.
 */
@Command(name = "dead-letter", description = "Give a claimed message back: re-queued, or DEAD at max retries.")
final class DeadLetterCommand extends EngineCommand {
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
                "only the process holding the claim may dead-letter message " + message
                        + ", and a call without --process is a new process that holds no claim; pass the identity that"
                        + " claimed it");
    }

    @Override
    protected int run(Engine engine, Output out) {
        Message m = engine.mailbox().deadLetter(message, token);
        String headline = m.state() == MessageState.DEAD
                ? "Message is DEAD: it was re-queued " + m.retryCount() + " time" + (m.retryCount() == 1 ? "" : "s")
                        + ", its maximum."
                : "Message re-queued (retry " + m.retryCount() + " of " + m.maxRetries() + "): it is NEW again.";
        MessageOutput.print(out, headline, m);
        return ExitCode.OK;
    }
}
