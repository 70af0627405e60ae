package dev.sovereign.engine.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sovereign.engine.Engine;
import dev.sovereign.engine.base.LedgerLocation;
import java.util.Locale;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/**
 * {@code sovereign actor workers-may-add [on|off]}: whether worker logins may add actors (decision 0116), shown, or
 * switched by the ledger's owner. A SQLite ledger has no logins, so there is nothing to switch.
 */
@Command(
        name = "workers-may-add",
        description = {
            "Show whether worker logins may add actors (an embedded agent's or a lock's names met at run time), or,"
                    + " as the ledger's owner, switch it on or off.",
            "On PostgreSQL only the operator role and the owner add actors unless this is on. A SQLite ledger has no"
                    + " logins: every process that can write the file adds actors."
        })
final class ActorWorkersMayAddCommand extends EngineCommand {
    @Parameters(arity = "0..1", paramLabel = "on|off", description = "Switch it (the ledger's owner only).")
    String value;

    private Boolean wanted;

    @Override
    protected void beforeOpen(LedgerLocation database) {
        if (value != null) {
            wanted = switch (value.toLowerCase(Locale.ROOT)) {
                case "on" -> true;
                case "off" -> false;
                default -> throw CliFailure.badInput("workers-may-add takes on or off, not '" + value + "'.");
            };
        }
    }

    @Override
    protected int run(Engine engine, Output out) {
        if (wanted != null) {
            engine.setWorkersMayAddActors(wanted);
        }
        boolean may = engine.workersMayAddActors();
        if (out.json()) {
            ObjectNode o = JsonShapes.object();
            o.put("workers_may_add_actors", may);
            out.emit(o);
        } else {
            out.line(
                    may
                            ? "Worker logins may add actors."
                            : "Worker logins may not add actors: the operator role or the ledger's owner adds them.");
        }
        return ExitCode.OK;
    }
}
