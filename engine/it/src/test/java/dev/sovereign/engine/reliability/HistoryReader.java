package dev.sovereign.engine.reliability;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads the history files written by {@link HistoryWriter}: one file per process incarnation. A
 * torn last line (the process was killed while writing it) is ignored; an invoke without a
 * completion becomes {@link HistoryOp.Outcome#UNKNOWN}.
 */
public final class HistoryReader {
    private static final ObjectMapper JSON = new ObjectMapper();

    private HistoryReader() {}

    /** What one incarnation of a worker recorded. */
    public record ProcessHistory(
            String worker,
            int incarnation,
            String process,
            boolean fault,
            List<HistoryOp> ops,
            int clockChanges,
            boolean stoppedCleanly) {}

    public static List<ProcessHistory> readAll(Path dir) throws IOException {
        List<ProcessHistory> out = new ArrayList<>();
        try (var files = Files.list(dir)) {
            for (Path f : files.filter(p -> p.getFileName().toString().startsWith("history-")
                            && p.getFileName().toString().endsWith(".jsonl"))
                    .sorted()
                    .toList()) {
                ProcessHistory h = read(f);
                if (h != null) {
                    out.add(h);
                }
            }
        }
        return out;
    }

    /** The history of one file, or null when the process died before it knew its identity. */
    public static ProcessHistory read(Path file) throws IOException {
        String worker = null;
        String process = null;
        int incarnation = 0;
        boolean fault = false;
        int clockChanges = 0;
        boolean stopped = false;
        Map<Long, Map<String, Object>> invokes = new LinkedHashMap<>();
        Map<Long, Map<String, Object>> ends = new LinkedHashMap<>();
        for (String text : Files.readAllLines(file)) {
            if (text.isBlank()) {
                continue;
            }
            Map<String, Object> line;
            try {
                line = JSON.readValue(text, new TypeReference<Map<String, Object>>() {});
            } catch (IOException torn) {
                continue; // the last line of a killed process may be cut short
            }
            switch (String.valueOf(line.get("type"))) {
                case "start" -> {
                    worker = (String) line.get("worker");
                    process = (String) line.get("process");
                    incarnation = ((Number) line.get("incarnation")).intValue();
                    fault = Boolean.TRUE.equals(line.get("fault"));
                }
                case "invoke" -> invokes.put(HistoryOp.toLong(line.get("id")), line);
                case "ok", "fail", "info" -> ends.put(HistoryOp.toLong(line.get("id")), line);
                case "clock" -> clockChanges++;
                case "stop" -> stopped = true;
                default -> throw new IllegalStateException("unknown history line in " + file + ": " + text);
            }
        }
        if (process == null) {
            return null;
        }
        List<HistoryOp> ops = new ArrayList<>();
        for (Map.Entry<Long, Map<String, Object>> e : invokes.entrySet()) {
            Map<String, Object> inv = e.getValue();
            Map<String, Object> end = ends.get(e.getKey());
            @SuppressWarnings("unchecked")
            Map<String, Object> args = (Map<String, Object>) inv.getOrDefault("args", Map.of());
            long invokedUs = HistoryOp.toLong(inv.get("wall_us"));
            if (end == null) {
                ops.add(new HistoryOp(
                        worker,
                        process,
                        e.getKey(),
                        (String) inv.get("op"),
                        args,
                        invokedUs,
                        HistoryOp.Outcome.UNKNOWN,
                        Map.of(),
                        Long.MAX_VALUE));
                continue;
            }
            String type = (String) end.get("type");
            Map<String, Object> detail;
            if ("ok".equals(type)) {
                @SuppressWarnings("unchecked")
                Map<String, Object> result = (Map<String, Object>) end.getOrDefault("result", Map.of());
                detail = result == null ? Map.of() : result;
            } else {
                detail = new LinkedHashMap<>(end);
                detail.remove("type");
                detail.remove("id");
                detail.remove("wall_us");
            }
            HistoryOp.Outcome outcome = switch (type) {
                case "ok" -> HistoryOp.Outcome.OK;
                case "fail" -> HistoryOp.Outcome.FAIL;
                default -> HistoryOp.Outcome.INFO;
            };
            ops.add(new HistoryOp(
                    worker,
                    process,
                    e.getKey(),
                    (String) inv.get("op"),
                    args,
                    invokedUs,
                    outcome,
                    detail,
                    HistoryOp.toLong(end.get("wall_us"))));
        }
        return new ProcessHistory(worker, incarnation, process, fault, ops, clockChanges, stopped);
    }
}
