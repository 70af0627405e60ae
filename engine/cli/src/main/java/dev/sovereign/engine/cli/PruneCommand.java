package dev.sovereign.engine.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sovereign.engine.Engine;
import dev.sovereign.engine.admin.PruneOptions;
import dev.sovereign.engine.admin.PruneReport;
import dev.sovereign.engine.base.LedgerLocation;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code sovereign prune [--dry-run] [--export DIR] [--batch N]}: removes what the ledger's retention policy lets go,
 * in short write transactions, and says what went and what the database kept (decision 0018).
 */
@Command(
        name = "prune",
        description = {
            "Remove what the retention policy lets go.",
            "Journal rows only below a watermark the database checks, and never what a live row needs: a current"
                    + " lease's grant, a run nobody settled, an unfinished message, the ledger's own events, the newest"
                    + " event of each actor, assignment, message and running process. Then finished runs (with their"
                    + " attempts, receipts and temporary run folders), finished messages and stopped processes that"
                    + " hold nothing, each older than its retention. Tokens are never reused. In batches of short"
                    + " write transactions, so workers keep writing. On PostgreSQL it takes the operator role."
        })
final class PruneCommand extends EngineCommand {
    /** Made on first use: picocli instantiates every command to build the command line, so a field here is paid by every call. */
    private static final class Json {
        static final ObjectMapper MAPPER = new ObjectMapper();
    }

    @Option(names = "--dry-run", description = "Count what would go; remove nothing.")
    boolean dryRun;

    @Option(
            names = "--export",
            paramLabel = "DIR",
            description = "Before removing, append each row as a JSON line to DIR/<table>-<day>.jsonl (UTC days);"
                    + " a batch whose rows cannot be written is not removed.")
    Path export;

    @Option(
            names = "--batch",
            paramLabel = "N",
            description = "Journal rows per write transaction (default ${DEFAULT-VALUE}).")
    int batch = PruneOptions.DEFAULT_BATCH_ROWS;

    private final TreeSet<Path> written = new TreeSet<>();

    @Override
    protected void beforeOpen(LedgerLocation database) {
        if (batch < 1 || batch > 100_000) {
            throw CliFailure.badInput("--batch takes a number of rows from 1 to 100000, not " + batch + ".");
        }
        if (export != null && dryRun) {
            throw CliFailure.badInput("--export and --dry-run together would export nothing; choose one.");
        }
        if (export != null) {
            try {
                Files.createDirectories(export);
            } catch (IOException e) {
                throw CliFailure.badInput("The export folder " + export + " cannot be made: " + e.getMessage() + ".");
            }
            if (!Files.isDirectory(export) || !Files.isWritable(export)) {
                throw CliFailure.badInput("The export folder " + export + " is not a folder this user can write.");
            }
        }
    }

    @Override
    protected int run(Engine engine, Output out) {
        PruneOptions options = new PruneOptions(batch, Integer.MAX_VALUE, dryRun, null);
        if (export != null) {
            options = options.exportingTo(this::write);
        }
        PruneReport r = engine.prune(options);
        if (out.json()) {
            ObjectNode o = JsonShapes.object();
            o.put("dry_run", r.dryRun());
            o.put("journal_rows", r.journalRows());
            o.put("supervisor_ticks", r.ticks());
            o.put("contention_windows", r.contentionRows());
            o.put("kept_below_watermark", r.keptBelowMark());
            o.put("watermark_before", r.watermarkBefore());
            o.put("watermark_after", r.watermarkAfter());
            o.put("batches", r.batches());
            o.put("longest_batch_ms", r.longestBatchMs());
            o.put("runs", r.runs());
            o.put("messages", r.messages());
            o.put("processes", r.processes());
            o.put("run_folders", r.runFolders());
            o.putArray("exported_files")
                    .addAll(written.stream()
                            .map(p -> Json.MAPPER.getNodeFactory().textNode(p.toString()))
                            .toList());
            out.emit(o);
            return ExitCode.OK;
        }
        String what = String.format(
                "%,d journal rows, %,d supervisor ticks and %,d contention windows",
                r.journalRows(), r.ticks(), r.contentionRows());
        List<String[]> rows = new ArrayList<>();
        rows.add(new String[] {
            "watermark",
            r.watermarkBefore() == r.watermarkAfter()
                    ? String.format("seq %,d (unchanged)", r.watermarkAfter())
                    : String.format("seq %,d -> %,d", r.watermarkBefore(), r.watermarkAfter())
        });
        rows.add(new String[] {
            "kept below it",
            String.format(
                    "%,d rows a live lease, an unsettled run, an unfinished message or the newest of each needs",
                    r.keptBelowMark())
        });
        rows.add(new String[] {
            "finished work",
            String.format(
                            "%,d runs (with their attempts and receipts), %,d messages, %,d stopped processes",
                            r.runs(), r.messages(), r.processes())
                    + (r.dryRun() ? "" : String.format("; %,d run folders removed", r.runFolders()))
        });
        if (!r.dryRun()) {
            rows.add(new String[] {
                "batches",
                String.format("%,d (the longest held the write lock %,d ms)", r.batches(), r.longestBatchMs())
            });
        }
        if (export != null) {
            rows.add(new String[] {
                "exported to",
                written.isEmpty() ? export + " (nothing to export)" : written.size() + " files in " + export
            });
        }
        out.fields((r.dryRun() ? "Would prune " : "Pruned ") + what + ".", rows);
        return ExitCode.OK;
    }

    /** Appends one batch's rows to their day files and forces them to disk before the batch's rows are deleted. */
    private void write(PruneOptions.PrunedRows batch) {
        String timeColumn = switch (batch.table()) {
            case "lease_contention" -> "window_start";
            case "assignments", "messages" -> "updated_at";
            case "execution_attempts" -> "started_at";
            case "receipts" -> "created_at";
            case "processes" -> "stopped_at";
            default -> "at";
        };
        Map<Path, StringBuilder> byFile = new LinkedHashMap<>();
        for (Map<String, Object> row : batch.rows()) {
            Object at = row.get(timeColumn);
            String day = at instanceof Number n
                    ? Instant.ofEpochMilli(n.longValue())
                            .atZone(ZoneOffset.UTC)
                            .toLocalDate()
                            .toString()
                    : "undated";
            StringBuilder lines = byFile.computeIfAbsent(
                    export.resolve(batch.table() + "-" + day + ".jsonl"), p -> new StringBuilder());
            try {
                lines.append(Json.MAPPER.writeValueAsString(row)).append('\n');
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        for (Map.Entry<Path, StringBuilder> f : byFile.entrySet()) {
            try (FileChannel ch = FileChannel.open(
                    f.getKey(), StandardOpenOption.CREATE, StandardOpenOption.APPEND, StandardOpenOption.WRITE)) {
                ByteBuffer bytes = ByteBuffer.wrap(f.getValue().toString().getBytes(StandardCharsets.UTF_8));
                while (bytes.hasRemaining()) {
                    ch.write(bytes);
                }
                ch.force(true);
            } catch (IOException e) {
                throw new UncheckedIOException(
                        "The export file " + f.getKey() + " could not be written (" + e.getMessage()
                                + "); this batch was not pruned.",
                        e);
            }
            written.add(f.getKey());
        }
    }
}
