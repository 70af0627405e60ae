package dev.sovereign.engine.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sovereign.engine.base.FencingTokens;
import dev.sovereign.engine.base.LedgerLocation;
import dev.sovereign.engine.spi.tools.LedgerBackups;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code sovereign backup FILE}: a consistent copy of the ledger file, taken while workers run, that records in
 * itself when and at which token it was taken (decision 0604). Only reads the ledger; registers no process. On a
 * PostgreSQL ledger it says, in one sentence, that pg_dump is the tool and what must follow a pg_restore (exit 2).
 */
@Command(
        name = "backup",
        description = {
            "Copy the ledger file to a new file while workers run.",
            "The copy records when and at which token it was taken. It is not a ledger until 'sovereign restore' puts it"
                    + " in place: never copy it (or any copy of the file) back by hand, or tokens are issued twice."
        },
        footer = {"", "Example:", "  sovereign backup /backups/sovereign-$(date +%F).db"})
final class BackupCommand implements Callable<Integer> {
    static final String ON_A_SERVER = "A PostgreSQL ledger is backed up with pg_dump (e.g. pg_dump -Fc -f ledger.dump"
            + " <database>), not 'sovereign backup'; after a pg_restore its owner must run 'sovereign fence bump --db"
            + " <URL>' before any worker starts, so that no token is issued twice (docs/postgres.md)";

    @Spec
    CommandSpec spec;

    @Parameters(paramLabel = "FILE", description = "The new file to write the copy to (it must not exist).")
    String file;

    @Override
    public Integer call() {
        SovereignCommand root = SovereignCommand.of(spec);
        Output out = root.output(spec);
        LedgerLocation ledger = root.location();
        if (!ledger.isFile()) {
            throw CliFailure.badInput(ON_A_SERVER);
        }
        LedgerBackups.Backup b = LedgerBackups.backup(
                ledger, path(spec, root, file), root.environment().clock());
        if (out.json()) {
            ObjectNode o = JsonShapes.object();
            o.put("ledger", b.ledger().toString());
            o.put("backup", b.copy().toString());
            o.put("backup_id", b.backupId());
            o.put("epoch", b.epoch());
            o.put("last_token", b.token());
            o.put("last_seq", b.lastSeq());
            o.put("at", b.at());
            out.emit(o);
        } else {
            out.fields(
                    "Backed up " + b.ledger() + " to " + b.copy() + ":",
                    List.of(
                            new String[] {"taken", out.times().wall(b.at())},
                            new String[] {"last token", FencingTokens.describe(b.token())},
                            new String[] {"journal", "last seq " + b.lastSeq()},
                            new String[] {"backup id", b.backupId()}));
            out.line("Put it back only with 'sovereign restore " + b.copy() + "': a copy put back by hand issues tokens"
                    + " again.");
        }
        return ExitCode.OK;
    }

    /** A file path as typed, resolved against the working directory. */
    static Path path(CommandSpec spec, SovereignCommand root, String typed) {
        if (typed == null || typed.isBlank()) {
            throw new ParameterException(spec.commandLine(), "The file path is empty");
        }
        if (LedgerLocation.looksLikeUrl(typed)) {
            throw new ParameterException(
                    spec.commandLine(),
                    "'" + LedgerLocation.redact(typed.strip()) + "' is a URL," + " not a file path");
        }
        try {
            return root.environment().workingDirectory().resolve(typed).normalize();
        } catch (InvalidPathException e) {
            throw new ParameterException(spec.commandLine(), "'" + typed + "' is not a usable file path");
        }
    }
}
