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
 * {@code sovereign retention [--keep DUR]}: the ledger's retention policy and how far pruning went, shown, or the
 * journal's retention set for every process of the ledger (decision 0018).
 */
@Command(
        name = "retention",
        description = {
            "Show or set how long the journal is kept.",
            "One policy in the ledger, so every process agrees: journal rows, supervisor ticks and contention counts"
                    + " older than it (measured from the newest journal row) may be pruned by 'sovereign prune' or the"
                    + " supervisor. At least 1h, at most 36500d. On PostgreSQL setting it takes the operator role."
        })
final class RetentionCommand extends EngineCommand {
    @Option(
            names = "--keep",
            paramLabel = "DUR",
            converter = Converters.DurationConverter.class,
            description = "Keep the journal this long, e.g. 30d, 7d or 12h.")
    Duration keep;

    @Override
    protected int run(Engine engine, Output out) {
        Retention r = keep == null ? engine.retention() : engine.keepJournalFor(keep);
        if (out.json()) {
            ObjectNode o = JsonShapes.object();
            o.put("keep_journal_ms", r.keepJournal().toMillis());
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
        if (!r.isDefault()) {
            rows.add(new String[] {"set", Instant.ofEpochMilli(r.setAt()) + " by " + r.setBy()});
        }
        rows.add(new String[] {
            "pruned",
            r.prunedRows() == 0
                    ? "nothing yet"
                    : String.format("%,d journal rows; kept from seq %,d", r.prunedRows(), r.prunedBelow())
        });
        if (r.lastPrunedAt() >= 0) {
            rows.add(new String[] {
                "last prune", Instant.ofEpochMilli(r.lastPrunedAt()).toString()
            });
        }
        out.fields(keep == null ? "Retention:" : "Retention set:", rows);
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
