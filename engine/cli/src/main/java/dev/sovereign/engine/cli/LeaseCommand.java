package dev.sovereign.engine.cli;

import dev.sovereign.engine.base.Refusal;
import dev.sovereign.engine.lease.Lease;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Command;

/** {@code sovereign lease ...}: actor-hosting leases. */
@Command(
        name = "lease",
        description = "Actor leases: acquire, renew, release, list.",
        subcommands = {
            LeaseAcquireCommand.class,
            LeaseRenewCommand.class,
            LeaseReleaseCommand.class,
            LeaseListCommand.class
        })
final class LeaseCommand {

    private LeaseCommand() {}

    /** Prints one lease result: a headline and its fields, or its JSON object. */
    static void print(Output out, String headline, Lease l, String hint) {
        if (out.json()) {
            out.emit(JsonShapes.lease(l, out.now()));
            return;
        }
        Times t = out.times();
        List<String[]> fields = new ArrayList<>();
        fields.add(new String[] {"actor", l.actor()});
        fields.add(new String[] {"process", l.process()});
        fields.add(new String[] {"token", Long.toString(l.token())});
        fields.add(new String[] {"ttl", Times.span(Duration.ofMillis(l.ttlMs()))});
        fields.add(new String[] {"expires", t.at(l.expiresAt())});
        out.fields(headline, fields);
        if (hint != null) {
            out.line(hint);
        }
    }

    /**
     * A lost-lease refusal met by a call without {@code --process}: the engine's sentence speaks of
     * "this process", which for such a call is a brand-new one; say how to act as the holder.
     */
    static Refusal explainWithoutProcess(Refusal r) {
        String m = r.getMessage().strip();
        if (m.endsWith(".")) {
            m = m.substring(0, m.length() - 1);
        }
        return Refusal.of(
                        r.category(),
                        m + "; without --process this call ran as a new process that holds"
                                + " nothing, so pass the holder's identity with --process ID.")
                .resource(r.resourceType(), r.resourceId())
                .actor(r.actorId())
                .presented(r.presentedToken())
                .current(r.currentToken())
                .build();
    }
}
