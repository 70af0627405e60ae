package dev.sovereign.engine.cli;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.lease.Lease;
import java.time.Duration;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code sovereign lease acquire ACTOR [--ttl DUR]}. The lease outlives this call: it is held by
 * {@code --process ID}, or by a fresh identity that is printed so later calls can renew or release.
 */
@Command(name = "acquire", description = "Acquire an actor's lease (refused while another lease is live).")
final class LeaseAcquireCommand extends EngineCommand {
    @Parameters(paramLabel = "ACTOR", description = "The actor to host.")
    String actor;

    @Option(
            names = "--ttl",
            paramLabel = "DUR",
            converter = Converters.DurationConverter.class,
            description = "How long the lease lives unless renewed, e.g. 500ms, 30s, 5m (default: 10s).")
    Duration ttl;

    /** In a serve process the heartbeat keeps the lease alive: its TTL must span two beats. */
    @Override
    protected void checkArguments() {
        ServeRequests.requireTwoBeats(ttl, hostHeartbeat());
    }

    @Override
    protected Identity identity() {
        return Identity.DURABLE;
    }

    @Override
    protected int run(Engine engine, Output out) {
        Lease l = engine.leases()
                .acquire(actor, ttl != null ? ttl : engine.config().defaultTtl());
        String hint = SovereignCommand.of(spec).process() != null
                ? null
                : "This call's identity holds it; renew or release with: sovereign --process " + l.process()
                        + " lease renew " + actor + " --token " + l.token();
        LeaseCommand.print(out, "Lease acquired.", l, hint);
        return ExitCode.OK;
    }
}
