package dev.sovereign.engine.cli;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.journal.FenceEvent;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code sovereign rejections [--limit N]}: refused writes from the journal, newest first. */
@Command(name = "rejections", description = "Show refused writes (stale or contested tokens).")
final class RejectionsCommand extends EngineCommand {
    @Option(
            names = "--limit",
            paramLabel = "N",
            defaultValue = "20",
            converter = Converters.LimitConverter.class,
            description = "Show at most N rejections (default: ${DEFAULT-VALUE}).")
    int limit;

    @Override
    protected int run(Engine engine, Output out) {
        List<FenceEvent> rejections = engine.journal().rejections(limit);
        if (out.json()) {
            rejections.forEach(e -> out.emit(JsonShapes.event(e)));
            return ExitCode.OK;
        }
        if (rejections.isEmpty()) {
            out.line("No rejections: no write has been refused.");
            return ExitCode.OK;
        }
        Times t = out.times();
        Table table = new Table("SEQ", "TIME", "CATEGORY", "RESOURCE", "PROCESS", "PRESENTED", "CURRENT", "WHY");
        for (FenceEvent e : rejections) {
            table.row(
                    e.seq(),
                    t.at(e.at()),
                    e.category(),
                    e.resourceType() + " " + e.resourceId(),
                    e.processIdentity(),
                    e.presentedToken(),
                    e.currentToken(),
                    e.detail());
        }
        out.table(table);
        return ExitCode.OK;
    }
}
