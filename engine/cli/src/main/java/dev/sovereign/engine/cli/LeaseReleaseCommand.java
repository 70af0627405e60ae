package dev.sovereign.engine.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sovereign.engine.Engine;
import dev.sovereign.engine.base.Refusal;
import dev.sovereign.engine.base.RefusalCategory;
import dev.sovereign.engine.lease.Lease;
import dev.sovereign.engine.rules.ActorRules;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code sovereign lease release ACTOR --token N}. The engine's release is a compare-and-set on
 * (process, token) that answers true or false; the CLI turns false into an {@code actor_lease_lost}
 * refusal (exit 1), because the caller asked for something that did not happen.
 */
@Command(name = "release", description = "Release a lease you hold, presenting its token.")
final class LeaseReleaseCommand extends EngineCommand {
    @Parameters(paramLabel = "ACTOR", description = "The actor whose lease to release.")
    String actor;

    @Option(
            names = "--token",
            paramLabel = "N",
            required = true,
            converter = Converters.TokenConverter.class,
            description = "The lease's fencing token.")
    long token;

    @Option(
            names = "--keep-for",
            paramLabel = "DUR",
            converter = Converters.DurationConverter.class,
            description = "Keep the lease this much longer from now, then let it end: a minimum hold, in one write.")
    Duration keepFor;

    @Override
    protected int run(Engine engine, Output out) {
        if (engine.actors().find(actor).isEmpty()) {
            throw ActorRules.unknown(actor);
        }
        Instant keptUntil =
                keepFor == null ? null : Instant.ofEpochMilli(out.now()).plus(keepFor);
        boolean released = keptUntil == null
                ? engine.leases().release(actor, token)
                : engine.leases().releaseKeepingUntil(actor, token, keptUntil);
        if (!released) {
            // The release was refused (and journalled by the engine when a newer holder exists);
            // read the row only to say who holds it now.
            Optional<Lease> now = engine.leases().current(actor);
            String sentence = now.map(c -> "Release of actor " + actor + " with token " + token
                            + " was refused: the lease is held by " + c.process() + " with token " + c.token()
                            + "; nothing was released.")
                    .orElse("Actor " + actor + " has no lease to release with token " + token
                            + " (it was already released, or expired and was not taken again); nothing was released.");
            Refusal r = Refusal.of(RefusalCategory.ACTOR_LEASE_LOST, sentence)
                    .resource("actor", actor)
                    .actor(actor)
                    .presented(token)
                    .current(now.map(Lease::token).orElse(null))
                    .build();
            throw now.isPresent() && SovereignCommand.of(spec).process() == null
                    ? LeaseCommand.explainWithoutProcess(r)
                    : r;
        }
        if (out.json()) {
            ObjectNode o = JsonShapes.object();
            o.put("released", true);
            o.put("actor", actor);
            o.put("process", engine.processIdentity());
            o.put("token", token);
            if (keptUntil != null) {
                o.put("kept_until", keptUntil.toEpochMilli());
            }
            out.emit(o);
        } else {
            List<String[]> fields = new ArrayList<>(List.of(
                    new String[] {"actor", actor},
                    new String[] {"process", engine.processIdentity()},
                    new String[] {"token", Long.toString(token)}));
            if (keptUntil != null) {
                fields.add(new String[] {"kept until", out.times().at(keptUntil.toEpochMilli())});
            }
            out.fields(
                    keptUntil == null ? "Lease released." : "Lease released; nobody else can take it before it ends.",
                    fields);
        }
        return ExitCode.OK;
    }
}
