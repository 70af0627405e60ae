package dev.sovereign.engine.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sovereign.engine.Engine;
import dev.sovereign.engine.base.EngineConfig;
import dev.sovereign.engine.base.LedgerLocation;
import dev.sovereign.engine.process.ProcessInfo;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;

/**
 * {@code sovereign process stop ID}: an operator marks a process stopped, as its own clean close would, and
 * the engine journals it ({@code PROCESS_STOPPED}). Nothing it holds is released. An unknown identity is
 * {@code unknown_process} (exit 2), one already stopped {@code process_stopped} (exit 1).
 */
@Command(
        name = "stop",
        description = {
            "Mark a process stopped (as its own clean close would) and journal it.",
            "Its leases, claims and attempts are NOT released: they expire on their own, and the fence keeps a stale"
                    + " holder out of anything it lost. Refused for an unknown process (exit 2) or one already stopped"
                    + " (exit 1)."
        })
final class ProcessStopCommand extends EngineCommand {
    @Parameters(paramLabel = "ID", description = "The process identity to mark stopped (proc_...).")
    String identity;

    @Override
    protected void beforeOpen(LedgerLocation database) {
        if (!EngineConfig.isValidProcessIdentity(identity)) {
            throw new ParameterException(
                    spec.commandLine(),
                    "Invalid value for parameter 'ID': '" + identity
                            + "' is not a process identity; it must look like proc_ followed by letters, digits, - or _");
        }
    }

    @Override
    protected int run(Engine engine, Output out) {
        ProcessInfo was = engine.stopProcess(identity);
        if (out.json()) {
            ObjectNode o = JsonShapes.object();
            o.put("stopped", true);
            o.put("process", was.identity());
            o.put("kind", was.kind());
            o.put("label", was.label());
            o.put("by", engine.processIdentity());
            out.emit(o);
        } else {
            out.fields(
                    "Process marked stopped.",
                    List.of(
                            new String[] {"process", was.identity()},
                            new String[] {
                                "was",
                                was.kind() + " '" + was.label() + "' (pid " + was.pid() + " on " + was.host() + ")"
                            },
                            new String[] {"by", engine.processIdentity()}));
            out.line("Its leases were not released: they expire on their own, and the fence keeps a stale holder out.");
        }
        return ExitCode.OK;
    }
}
