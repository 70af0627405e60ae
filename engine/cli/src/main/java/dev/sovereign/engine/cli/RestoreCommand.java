package dev.sovereign.engine.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sovereign.engine.base.FencingTokens;
import dev.sovereign.engine.base.LedgerLocation;
import dev.sovereign.engine.spi.tools.LedgerBackups;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code sovereign restore BACKUP [--db TARGET]}: puts a backup in place so that no token is ever issued twice
 * (decision 0604): the restored ledger starts a new epoch above the backup's, the replaced ledger's, every earlier
 * restore of this backup's (recorded in {@code BACKUP.restores}) and {@code --above-epoch}; every lease of the
 * backup is voided; the journal says so. Refused while processes are live on the target. Not an engine command.
 */
@Command(
        name = "restore",
        description = {
            "Put a backup in place, in a new epoch of tokens.",
            "Every lease the backup held is voided (its holder must acquire it again), and its attempts and claims can no"
                    + " longer finish: they expire and the supervisor recovers them. Stop the workers first: a restore over a"
                    + " ledger with live processes is refused. Each restore is recorded beside the backup (BACKUP.restores);"
                    + " keep that file with the backup."
        },
        footer = {"", "Example:", "  sovereign restore /backups/sovereign-2026-12-01.db --db ./sovereign.db"})
final class RestoreCommand implements Callable<Integer> {
    static final String ON_A_SERVER = "A PostgreSQL ledger is restored with pg_restore into a new database, then its"
            + " owner runs 'sovereign fence bump --db <URL>' (with --above-epoch N if the lost ledger had reached epoch"
            + " N) before any worker starts (docs/postgres.md)";

    @Spec
    CommandSpec spec;

    @Parameters(paramLabel = "BACKUP", description = "A backup made by 'sovereign backup' (only read).")
    String backup;

    @Option(
            names = "--above-epoch",
            paramLabel = "N",
            defaultValue = "-1",
            description =
                    "Start an epoch above N too: the epoch the lost ledger had reached, when it is not at the target.")
    long aboveEpoch;

    @Override
    public Integer call() {
        SovereignCommand root = SovereignCommand.of(spec);
        Output out = root.output(spec);
        LedgerLocation target = root.location();
        if (!target.isFile()) {
            throw CliFailure.badInput(ON_A_SERVER);
        }
        if (aboveEpoch < -1 || aboveEpoch >= FencingTokens.MAX_EPOCH) {
            throw CliFailure.badInput("--above-epoch must be an epoch from 0 to " + (FencingTokens.MAX_EPOCH - 1)
                    + ", not " + aboveEpoch);
        }
        LedgerBackups.Restore r = LedgerBackups.restore(
                BackupCommand.path(spec, root, backup),
                target,
                aboveEpoch,
                root.environment().clock());
        if (out.json()) {
            ObjectNode o = JsonShapes.object();
            o.put("backup", r.backup().toString());
            o.put("ledger", r.target().toString());
            o.put("backup_token", r.takenToken());
            if (r.takenAt() < 0) {
                o.putNull("backup_taken_at");
            } else {
                o.put("backup_taken_at", r.takenAt());
            }
            if (r.replacedEpoch() < 0) {
                o.putNull("replaced_epoch");
            } else {
                o.put("replaced_epoch", r.replacedEpoch());
            }
            o.put("epoch", r.start().epoch());
            o.put("first_token", r.start().firstToken());
            o.put("voided_leases", r.start().voidedLeases());
            o.put("restores_file", r.restores().toString());
            out.emit(o);
        } else {
            List<String[]> f = new ArrayList<>();
            f.add(new String[] {
                "backup",
                (r.takenAt() < 0
                                ? "a copy not made by 'sovereign backup'"
                                : "taken " + out.times().wall(r.takenAt())) + ", at token "
                        + FencingTokens.describe(r.takenToken())
            });
            f.add(new String[] {
                "replaced",
                r.replacedEpoch() < 0 ? "nothing (a new file)" : "a ledger that had reached epoch " + r.replacedEpoch()
            });
            f.add(new String[] {
                "epoch",
                r.start().epoch() + ": the next grant gets token " + r.start().firstToken()
            });
            f.add(new String[] {"leases voided", Integer.toString(r.start().voidedLeases())});
            f.add(new String[] {"recorded in", r.restores().toString()});
            out.fields("Restored " + r.backup() + " as " + r.target() + ":", f);
        }
        return ExitCode.OK;
    }
}
