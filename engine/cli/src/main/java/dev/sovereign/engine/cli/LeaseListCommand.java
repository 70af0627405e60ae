package dev.sovereign.engine.cli;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.lease.Lease;
import java.time.Duration;
import java.util.List;
import picocli.CommandLine.Command;

/** {@code sovereign lease list}: every lease row, live or expired. */
@Command(name = "list", description = "List every actor lease: holder, token, expiry.")
final class LeaseListCommand extends EngineCommand {
    @Override
    protected int run(Engine engine, Output out) {
        List<Lease> leases = engine.leases().list();
        long now = out.now();
        if (out.json()) {
            leases.forEach(l -> out.emit(JsonShapes.lease(l, now)));
            return ExitCode.OK;
        }
        if (leases.isEmpty()) {
            out.line("No leases.");
            return ExitCode.OK;
        }
        out.table(table(leases, out.times()));
        return ExitCode.OK;
    }

    static Table table(List<Lease> leases, Times t) {
        Table table = new Table("ACTOR", "HOLDER", "TOKEN", "TTL", "ACQUIRED", "EXPIRES", "STATE");
        for (Lease l : leases) {
            table.row(
                    l.actor(),
                    l.process(),
                    l.token(),
                    Times.span(Duration.ofMillis(l.ttlMs())),
                    t.at(l.acquiredAt()),
                    t.at(l.expiresAt()),
                    l.isExpiredAt(t.now()) ? "expired" : "live");
        }
        return table;
    }
}
