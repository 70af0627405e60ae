package dev.sovereign.engine.cli;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.base.Refusal;
import dev.sovereign.engine.base.RefusalCategory;
import dev.sovereign.engine.lease.Lease;
import java.time.Duration;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code sovereign lease renew ACTOR --token N [--ttl DUR]}: extend a lease this identity holds. */
@Command(name = "renew", description = "Renew a lease you hold, presenting its token (keeps the token).")
final class LeaseRenewCommand extends EngineCommand {
    @Parameters(paramLabel = "ACTOR", description = "The actor whose lease to renew.")
    String actor;

    @Option(
            names = "--token",
            paramLabel = "N",
            required = true,
            converter = Converters.TokenConverter.class,
            description = "The lease's fencing token.")
    long token;

    @Option(
            names = "--ttl",
            paramLabel = "DUR",
            converter = Converters.DurationConverter.class,
            description = "A new TTL from now (default: the lease's own).")
    Duration ttl;

    @Option(
            names = "--only-if-live",
            description = "Refuse a lease that has expired, even when nobody has taken it yet (what a lock with a"
                    + " deadline wants; without it a renewal brings such a lease back).")
    boolean onlyIfLive;

    /** In a serve process the heartbeat keeps the lease alive: its TTL must span two beats. */
    @Override
    protected void checkArguments() {
        ServeRequests.requireTwoBeats(ttl, hostHeartbeat());
    }

    @Override
    protected int run(Engine engine, Output out) {
        Lease l;
        try {
            if (onlyIfLive) {
                Duration own = ttl != null
                        ? ttl
                        : engine.leases()
                                .current(actor)
                                .map(c -> Duration.ofMillis(c.ttlMs()))
                                .orElse(Duration.ofMillis(1));
                l = engine.leases().extend(actor, token, own);
            } else {
                l = ttl != null
                        ? engine.leases().renew(actor, token, ttl)
                        : engine.leases().renew(actor, token);
            }
        } catch (Refusal r) {
            if (r.category() == RefusalCategory.ACTOR_LEASE_LOST
                    && SovereignCommand.of(spec).process() == null) {
                throw LeaseCommand.explainWithoutProcess(r);
            }
            throw r;
        }
        LeaseCommand.print(out, "Lease renewed.", l, null);
        return ExitCode.OK;
    }
}
