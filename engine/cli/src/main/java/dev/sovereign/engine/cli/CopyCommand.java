package dev.sovereign.engine.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sovereign.engine.base.LedgerLocation;
import dev.sovereign.engine.spi.tools.LedgerCopy;
import dev.sovereign.engine.spi.tools.LedgerCopyReport;
import java.nio.file.InvalidPathException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code sovereign copy --from FILE --to URL}: moves a whole ledger from a SQLite file into a new, empty
 * PostgreSQL ledger in one transaction, keeping every token and the whole journal (decision 0907). The
 * source is only read. Not an engine command: it registers no process on either ledger.
 */
@Command(
        name = "copy",
        description = {
            "Copy a ledger file into an empty PostgreSQL ledger.",
            "The rows go in one transaction: it commits whole or leaves the target without them (a new database keeps the empty schema the copy created first). Every row is kept (every token, the whole journal with its seq values); the target's counters are raised"
                    + " past the highest copied values. Stop the workers first.",
            "The file's write lock is held while the rows are copied, and once the server has committed the file is RETIRED: it records where the ledger went and refuses every"
                    + " later write, so the two can never both mint a token or finish the same work. --keep-source leaves it live (unsafe)."
        },
        footer = {
            "",
            "Example:",
            "  sovereign copy --from ./sovereign.db --to 'jdbc:postgresql://db.example/ledger?user=owner'"
        })
final class CopyCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(
            names = "--from",
            required = true,
            paramLabel = "FILE",
            description = "The SQLite ledger file to copy (only read).")
    String from;

    @Option(
            names = "--to",
            required = true,
            paramLabel = "URL",
            description = "The jdbc:postgresql:// URL of an empty database (or an empty ledger) owned by this login.")
    String to;

    @Option(
            names = "--keep-source",
            description = "Only read the file and leave it live. UNSAFE unless its workers are"
                    + " stopped for good: a worker still using the file would mint tokens the server mints too.")
    boolean keepSource;

    @Override
    public Integer call() {
        SovereignCommand root = SovereignCommand.of(spec);
        Output out = root.output(spec);
        LedgerCopyReport r = LedgerCopy.copy(location("--from", from, root), location("--to", to, root), keepSource);
        if (out.json()) {
            ObjectNode o = JsonShapes.object();
            o.put("from", r.from().toString());
            o.put("to", r.to().toString());
            ObjectNode rows = o.putObject("rows");
            r.rows().forEach(rows::put);
            o.put("highest_token", r.highestToken());
            o.put("last_journal_seq", r.lastJournalSeq());
            o.put("live_processes", r.liveProcesses());
            o.put("source_retired", r.sourceRetired());
            if (r.retirementProblem() != null) {
                o.put("retirement_problem", r.retirementProblem());
            }
            out.emit(o);
        } else {
            List<String[]> pairs = new ArrayList<>();
            for (Map.Entry<String, Long> t : r.rows().entrySet()) {
                pairs.add(new String[] {t.getKey(), t.getValue() + (t.getValue() == 1 ? " row" : " rows")});
            }
            pairs.add(new String[] {"highest token", r.highestToken() + " (the next grant mints a greater one)"});
            pairs.add(new String[] {
                "journal", r.rows().getOrDefault("fence_events", 0L) + " rows, last seq " + r.lastJournalSeq()
            });
            pairs.add(new String[] {
                "source",
                r.sourceRetired()
                        ? "retired: it takes no more writes and names " + r.to()
                        : "still live (" + (keepSource ? "--keep-source" : "retiring it failed") + ")"
            });
            out.fields("Copied " + r.from() + " to " + r.to() + " in one transaction:", pairs);
        }
        if (r.retirementProblem() != null) {
            spec.commandLine()
                    .getErr()
                    .println("warning: the copy committed, but the file could not be retired (" + r.retirementProblem()
                            + "); it is still live: stop every worker using it now, and move it away.");
        } else if (keepSource) {
            spec.commandLine()
                    .getErr()
                    .println("warning: --keep-source: the file is still live; a worker still using it"
                            + " mints tokens the server mints too. Stop its workers for good.");
        }
        if (r.liveProcesses() > 0) {
            spec.commandLine()
                    .getErr()
                    .println("warning: " + r.liveProcesses() + " process(es) of the source had not"
                            + " stopped; "
                            + (r.sourceRetired()
                                    ? "the file now refuses their writes: point them at " + r.to()
                                    : "if a worker is still writing to the file, what it writes now is not in the copy")
                            + " (stop the workers first next time).");
        }
        spec.commandLine().getErr().flush();
        return ExitCode.OK;
    }

    private LedgerLocation location(String option, String typed, SovereignCommand root) {
        if (typed.isBlank()) {
            throw new ParameterException(spec.commandLine(), "The value of " + option + " is empty");
        }
        if (LedgerLocation.looksLikeUrl(typed)) {
            try {
                return LedgerLocation.parse(typed);
            } catch (IllegalArgumentException e) {
                throw new ParameterException(spec.commandLine(), e.getMessage().replaceFirst("\\.$", ""));
            }
        }
        try {
            return LedgerLocation.file(
                    root.environment().workingDirectory().resolve(typed).normalize());
        } catch (InvalidPathException e) {
            throw new ParameterException(spec.commandLine(), "'" + typed + "' is not a usable file path");
        }
    }
}
