package dev.sovereign.engine.cli;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.mailbox.Message;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/** {@code sovereign inbox ACTOR}: the actor's unfinished messages (NEW and CLAIMED), oldest first. Read-only. */
@Command(name = "inbox", description = "List an actor's unfinished messages (NEW and CLAIMED).")
final class InboxCommand extends EngineCommand {
    @Parameters(paramLabel = "ACTOR", description = "The recipient actor.")
    String actor;

    @Override
    protected int run(Engine engine, Output out) {
        List<Message> inbox = engine.mailbox().inbox(actor);
        long now = out.now();
        if (out.json()) {
            inbox.forEach(m -> out.emit(JsonShapes.message(m, now)));
            return ExitCode.OK;
        }
        if (inbox.isEmpty()) {
            out.line("The inbox of " + actor + " is empty.");
            return ExitCode.OK;
        }
        out.table(MessageOutput.table(inbox, out.times(), false));
        return ExitCode.OK;
    }
}
