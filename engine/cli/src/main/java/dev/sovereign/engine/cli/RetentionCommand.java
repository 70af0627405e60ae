package dev.sovereign.engine.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sovereign.engine.Engine;
import dev.sovereign.engine.admin.Retention;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code sovereign retention [--keep DUR] [--keep-runs DUR] [--keep-messages DUR] [--keep-processes DUR]}: the ledger's
 * retention policy and how far pruning went, shown, or set for every process of the ledger (decisions 0018, 0020).
 */
@Command(
        name = "retention",
        description = {
            "Show or set how long the ledger keeps each kind of row.",
            "One policy in the ledger, so every process agrees: what is older than it (measured from the newest journal"
                    + " row) may be pruned by 'sovereign prune' or the supervisor; what a live row needs never is."
                    + " Each at least 1h, at most 36500d; 30d unless set. On PostgreSQL setting it takes the operator"
                    + " role."
        })
final class RetentionCommand extends EngineCommand {
    @Option(
            names = "--keep",
            paramLabel = "DUR",
            converter = Converters.DurationConverter.class,
            description = "Keep the journal this long, e.g. 30d, 7d or 12h.")
    Duration keep;

    @Option(
            names = "--keep-runs",
            paramLabel = "DUR",
            converter = Converters.DurationConverter.class,
            description = "Keep a finished run (assignment, attempts, receipt, temporary run folder) this long after"
                    + " it ended and was settled.")
    Duration keepRuns;

    @Option(
            names = "--keep-messages",
            paramLabel = "DUR",
            converter = Converters.DurationConverter.class,
            description = "Keep a DONE or DEAD message this long.")
    Duration keepMessages;

    @Option(
            names = "--keep-processes",
            paramLabel = "DUR",
            converter = Converters.DurationConverter.class,
            description = "Keep a stopped process that holds nothing this long.")
    Duration keepProcesses;

    @Override
    protected int run(Engine engine, Output out) {
        Retention r = engine.retention();
        boolean set = false;
        Duration[] asked = {keep, keepRuns, keepMessages, keepProcesses};
        for (Retention.Kind kind : Retention.Kind.values()) {
            if (asked[kind.ordinal()] != null) {
                r = engine.keep(kind, asked[kind.ordinal()]);
                set = true;
            }
        }
        if (out.json()) {
            ObjectNode o = JsonShapes.object();
            o.put("keep_journal_ms", r.keepJournal().toMillis());
            o.put("keep_runs_ms", r.keepRuns().toMillis());
            o.put("keep_messages_ms", r.keepMessages().toMillis());
            o.put("keep_processes_ms", r.keepProcesses().toMillis());
            o.put("pruned_runs", r.prunedRuns());
            o.put("pruned_messages", r.prunedMessages());
            o.put("pruned_processes", r.prunedProcesses());
            o.put("default", r.isDefault());
            o.put("pruned_below_seq", r.prunedBelow());
            o.put("pruned_rows", r.prunedRows());
            putTime(o, "last_pruned_at", r.lastPrunedAt());
            putTime(o, "set_at", r.setAt());
            o.put("set_by", r.setBy());
            out.emit(o);
            return ExitCode.OK;
        }
        List<String[]> rows = new ArrayList<>();
        rows.add(new String[] {"journal kept", Times.span(r.keepJournal()) + (r.isDefault() ? " (the default)" : "")});
        rows.add(new String[] {"finished runs", Times.span(r.keepRuns())});
        rows.add(new String[] {"finished messages", Times.span(r.keepMessages())});
        rows.add(new String[] {"stopped processes", Times.span(r.keepProcesses())});
        if (!r.isDefault()) {
            rows.add(new String[] {"set", Instant.ofEpochMilli(r.setAt()) + " by " + r.setBy()});
        }
        rows.add(new String[] {
            "pruned",
            r.prunedRows() == 0
                    ? "nothing yet"
                    : String.format("%,d journal rows; kept from seq %,d", r.prunedRows(), r.prunedBelow())
        });
        if (r.prunedRuns() + r.prunedMessages() + r.prunedProcesses() > 0) {
            rows.add(new String[] {
                "pruned work",
                String.format(
                        "%,d runs, %,d messages, %,d processes",
                        r.prunedRuns(), r.prunedMessages(), r.prunedProcesses())
            });
        }
        if (r.lastPrunedAt() >= 0) {
            rows.add(new String[] {
                "last prune", Instant.ofEpochMilli(r.lastPrunedAt()).toString()
            });
        }
        out.fields(set ? "Retention set:" : "Retention:", rows);
        return ExitCode.OK;
    }

    private static void putTime(ObjectNode o, String field, long epochMs) {
        if (epochMs < 0) {
            o.putNull(field);
        } else {
            o.put(field, Instant.ofEpochMilli(epochMs).toString());
        }
    }
}
