package dev.sovereign.engine.cli;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.mailbox.Mailbox;
import dev.sovereign.engine.mailbox.Message;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code sovereign send --from A --to B --subject S [--body B] [--max-retries N]}. */
@Command(name = "send", description = "Send a message to an actor's mailbox.")
final class SendCommand extends EngineCommand {
    @Option(
            names = "--from",
            required = true,
            paramLabel = "A",
            description = "Who sends it (any name; senders need not be actors).")
    String from;

    @Option(names = "--to", required = true, paramLabel = "B", description = "The recipient actor.")
    String to;

    @Option(names = "--subject", required = true, paramLabel = "S", description = "The subject.")
    String subject;

    @Option(names = "--body", paramLabel = "B", description = "The body (optional).")
    String body;

    @Option(
            names = "--max-retries",
            paramLabel = "N",
            converter = Converters.RetriesConverter.class,
            description = "How often a dead-lettered message is re-queued before it is DEAD (default: "
                    + Mailbox.DEFAULT_MAX_RETRIES + ").")
    Integer maxRetries;

    @Override
    protected int run(Engine engine, Output out) {
        Message m = engine.mailbox()
                .send(from, to, subject, body, maxRetries != null ? maxRetries : Mailbox.DEFAULT_MAX_RETRIES);
        MessageOutput.print(out, "Message sent.", m);
        return ExitCode.OK;
    }
}
