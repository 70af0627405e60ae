package dev.sovereign.engine.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sovereign.engine.Engine;
import dev.sovereign.engine.admin.EpochStart;
import dev.sovereign.engine.base.FencingTokens;
import dev.sovereign.engine.base.LedgerLocation;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code sovereign fence bump}: starts a new epoch of the token counter (decision 0604) — after a PostgreSQL ledger
 * was brought back with pg_restore, or when an engine found the ledger gone backwards (decision 0605). Every lease is
 * voided; the journal says so ({@code FENCE_BUMPED}). On PostgreSQL only the ledger's owner may run it.
 */
@Command(
        name = "bump",
        description = {
            "Start a new epoch of the fencing-token counter, above every token issued or seen.",
            "Run it after a pg_restore (before any worker starts), or when status says the ledger went backwards. Every"
                    + " lease is voided (its holder must acquire it again); attempts and claims of older epochs can no longer"
                    + " finish and expire. Safe while workers run. On PostgreSQL only the ledger's owner may run it."
        })
final class FenceBumpCommand extends EngineCommand {
    @Option(
            names = "--above-epoch",
            paramLabel = "N",
            defaultValue = "-1",
            description = "Start an epoch above N too: the epoch a ledger this one replaced had reached.")
    long aboveEpoch;

    @Override
    protected void beforeOpen(LedgerLocation database) {
        if (aboveEpoch < -1 || aboveEpoch >= FencingTokens.MAX_EPOCH) {
            throw CliFailure.badInput("--above-epoch must be an epoch from 0 to " + (FencingTokens.MAX_EPOCH - 1)
                    + ", not " + aboveEpoch);
        }
    }

    @Override
    protected int run(Engine engine, Output out) {
        EpochStart s = engine.bumpFence(aboveEpoch);
        if (out.json()) {
            ObjectNode o = JsonShapes.object();
            o.put("epoch", s.epoch());
            o.put("from_token", s.fromToken());
            o.put("first_token", s.firstToken());
            o.put("voided_leases", s.voidedLeases());
            o.put("at", s.at());
            out.emit(o);
        } else {
            out.fields(
                    "Started epoch " + s.epoch() + " of the fencing-token counter.",
                    List.of(
                            new String[] {"counter was", FencingTokens.describe(s.fromToken())},
                            new String[] {"next token", Long.toString(s.firstToken())},
                            new String[] {"leases voided", s.voidedLeases() + " (their holders must acquire them again)"
                            }));
        }
        return ExitCode.OK;
    }
}
