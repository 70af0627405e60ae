package dev.sovereign.engine.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sovereign.engine.Engine;
import dev.sovereign.engine.admin.LedgerSummary;
import java.nio.file.Files;
import picocli.CommandLine.Command;
import dev.sovereign.engine.base.LedgerLocation;

/** {@code sovereign init}: create the database, or migrate an older one to this code's schema. */
@Command(name = "init", description = "Create the database, or migrate it to this version's schema.")
final class InitCommand extends EngineCommand {
    private boolean existed;

    @Override
    protected boolean createsDatabase() {
        return true;
    }

    @Override
    protected void beforeOpen(LedgerLocation database) {
        existed = database.file().map(Files::exists).orElse(true); // a server database: created by its operator
    }

    @Override
    protected int run(Engine engine, Output out) {
        LedgerSummary s = engine.summary();
        if (out.json()) {
            ObjectNode o = JsonShapes.object();
            o.put("database", s.location().toString());
            o.put("created", !existed);
            o.put("schema_version", s.schemaVersion());
            out.emit(o);
        } else {
            out.line((existed ? "Ready: " : "Created ") + s.location() + " (schema version " + s.schemaVersion() + ").");
        }
        return ExitCode.OK;
    }
}
