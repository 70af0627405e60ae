package dev.sovereign.engine.cli;

import dev.sovereign.engine.mailbox.Claim;
import dev.sovereign.engine.mailbox.Message;
import dev.sovereign.engine.mailbox.MessageState;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;

/** How the mailbox commands print messages and claims. Stateless. */
final class MessageOutput {
    private MessageOutput() {}

    /** One message: a headline and its fields, or its JSON object. */
    static void print(Output out, String headline, Message m) {
        if (out.json()) {
            out.emit(JsonShapes.message(m, out.now()));
            return;
        }
        Times t = out.times();
        List<String[]> f = new ArrayList<>();
        f.add(new String[] {"message", m.id()});
        f.add(new String[] {"state", m.state().name()});
        f.add(new String[] {"from", m.sender()});
        f.add(new String[] {"to", m.recipient()});
        f.add(new String[] {"subject", m.subject()});
        if (m.body() != null) {
            f.add(new String[] {"body", m.body()});
        }
        f.add(new String[] {"retries", m.retryCount() + " of " + m.maxRetries()});
        Claim c = m.claim();
        if (c != null) {
            String by = c.process() + " for " + c.actor() + ", token " + c.token();
            f.add(new String[] {m.state() == MessageState.CLAIMED ? "claimed by" : "finished by", by});
            if (m.state() == MessageState.CLAIMED) {
                f.add(new String[] {"claim expires", t.at(c.expiresAt())});
            }
        }
        out.fields(headline, f);
    }

    /** A granted claim, with the command that finishes it. */
    static void printClaim(Output out, Claim c) {
        if (out.json()) {
            out.emit(JsonShapes.claim(c));
            return;
        }
        out.fields(
                "Message claimed.",
                List.of(
                        new String[] {"message", c.message()},
                        new String[] {"actor", c.actor()},
                        new String[] {"process", c.process()},
                        new String[] {"token", Long.toString(c.token())},
                        new String[] {"expires", out.times().at(c.expiresAt())}));
        out.line("Finish it with: sovereign --process " + c.process() + " complete " + c.message() + " --token "
                + c.token() + "   (or dead-letter)");
    }

    /** Messages as a table; the recipient column only when they may differ. */
    static Table table(List<Message> messages, Times t, boolean withRecipient) {
        List<String> headers = new ArrayList<>(List.of("MESSAGE", "STATE", "FROM"));
        if (withRecipient) {
            headers.add("TO");
        }
        headers.addAll(List.of("RETRIES", "CLAIMED BY", "TOKEN", "CLAIM EXPIRES", "SUBJECT"));
        Table table = new Table(headers.toArray(String[]::new));
        for (Message m : messages) {
            Claim c = m.claim();
            List<Object> row = new ArrayList<>(List.of(m.id(), m.state().name(), m.sender()));
            if (withRecipient) {
                row.add(m.recipient());
            }
            row.add(m.retryCount() + "/" + m.maxRetries());
            row.add(c == null ? null : c.process());
            row.add(c == null ? null : c.token());
            row.add(
                    c == null || m.state() != MessageState.CLAIMED
                            ? null
                            : c.isExpiredAt(t.now()) ? "expired " + t.relative(c.expiresAt()) : t.at(c.expiresAt()));
            row.add(m.subject());
            table.row(row.toArray());
        }
        return table;
    }

    /**
     * A claim and its finishing writes belong to the process hosting the actor; a call without
     * {@code --process} is a brand-new process that hosts nothing and holds no claim, so it could only
     * be refused (and journalled). Say so as bad usage, before anything is opened.
     */
    static void requireProcess(CommandSpec spec, String why) {
        if (SovereignCommand.of(spec).process() == null) {
            throw new ParameterException(
                    spec.commandLine(), "'" + spec.qualifiedName() + "' needs --process ID: " + why);
        }
    }
}
