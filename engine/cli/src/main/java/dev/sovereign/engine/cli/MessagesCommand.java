package dev.sovereign.engine.cli;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.mailbox.Message;
import dev.sovereign.engine.mailbox.MessageState;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code sovereign messages [--state S] [--actor A] [--limit N]}: every message, newest first. */
@Command(name = "messages", description = "List every message: state, claim holder, token, claim expiry.")
final class MessagesCommand extends EngineCommand {
    @Option(names = "--state", paramLabel = "S", description = "Only messages in this state: NEW, CLAIMED, DONE, DEAD.")
    MessageState state;

    @Option(names = "--actor", paramLabel = "A", description = "Only messages addressed to this actor.")
    String actor;

    @Option(
            names = "--limit",
            paramLabel = "N",
            defaultValue = "50",
            converter = Converters.LimitConverter.class,
            description = "Show at most N messages, the newest (default: ${DEFAULT-VALUE}).")
    int limit;

    @Override
    protected int run(Engine engine, Output out) {
        List<Message> messages = engine.mailbox().list().stream()
                .filter(m -> state == null || m.state() == state)
                .filter(m -> actor == null || m.recipient().equals(actor))
                .limit(limit)
                .toList();
        long now = out.now();
        if (out.json()) {
            messages.forEach(m -> out.emit(JsonShapes.message(m, now)));
            return ExitCode.OK;
        }
        if (messages.isEmpty()) {
            out.line("No messages" + (state != null || actor != null ? " match" : "") + ".");
            return ExitCode.OK;
        }
        out.table(MessageOutput.table(messages, out.times(), true));
        return ExitCode.OK;
    }
}
