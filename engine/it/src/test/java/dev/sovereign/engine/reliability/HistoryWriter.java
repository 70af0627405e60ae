package dev.sovereign.engine.reliability;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sovereign.engine.base.Refusal;
import dev.sovereign.engine.base.StorageException;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One process's history: a JSON object per line, written and flushed to the OS before the call it
 * describes goes on, so a SIGKILL loses at most the line of the call in flight (which the checker
 * then reads as "outcome unknown"). Line types:
 * <pre>
 *   {"type":"start","worker":"w0","incarnation":1,"process":"proc_...","pid":123,"fault":false,"wall_us":...}
 *   {"type":"invoke","id":7,"op":"complete","args":{"message":"msg_...","token":42},"clock":...,"wall_us":...}
 *   {"type":"ok","id":7,"result":{...},"wall_us":...}
 *   {"type":"fail","id":7,"category":"fencing_token_stale","resource_type":"message","resource_id":"msg_...",
 *    "presented":42,"current":57,"message":"...","wall_us":...}
 *   {"type":"info","id":7,"reason":"busy"|"storage_IO"|"exception","error":"...","wall_us":...}
 *   {"type":"clock","offset_ms":-5000,"wall_us":...}
 *   {"type":"stop","wall_us":...}
 * </pre>
 * {@code wall_us} is the real time (epoch microseconds, not the skewed engine clock): it orders calls
 * of different processes on one machine. Thread-safe.
 */
public final class HistoryWriter implements AutoCloseable {
    private static final ObjectMapper JSON = new ObjectMapper();

    private final OutputStream out;
    private long nextId = 1;

    private HistoryWriter(OutputStream out) {
        this.out = out;
    }

    public static HistoryWriter open(Path file) throws IOException {
        return new HistoryWriter(new FileOutputStream(file.toFile(), true));
    }

    public static long wallMicros() {
        return ChronoUnit.MICROS.between(Instant.EPOCH, Instant.now());
    }

    public void start(String worker, int incarnation, String process, boolean fault) {
        Map<String, Object> line = line("start");
        line.put("worker", worker);
        line.put("incarnation", incarnation);
        line.put("process", process);
        line.put("pid", ProcessHandle.current().pid());
        line.put("fault", fault);
        write(line);
    }

    /** Records the call about to be made and returns its id. */
    public synchronized long invoke(String op, Map<String, Object> args, long engineClock) {
        long id = nextId++;
        Map<String, Object> line = line("invoke");
        line.put("id", id);
        line.put("op", op);
        line.put("args", args);
        line.put("clock", engineClock);
        write(line);
        return id;
    }

    public void ok(long id, Map<String, Object> result) {
        Map<String, Object> line = line("ok");
        line.put("id", id);
        line.put("result", result);
        write(line);
    }

    public void fail(long id, Refusal r) {
        fail(
                id,
                r.category().code(),
                r.resourceType(),
                r.resourceId(),
                r.presentedToken(),
                r.currentToken(),
                r.getMessage(),
                r.warnings().stream().anyMatch(w -> w.contains("REJECTED journal row")));
    }

    public void fail(
            long id,
            String category,
            String resourceType,
            String resourceId,
            Long presented,
            Long current,
            String message) {
        fail(id, category, resourceType, resourceId, presented, current, message, false);
    }

    /**
     * @param journalMissing the refusal said its REJECTED row could not be written (busy past the bound):
     *     decision 0109 reports that to the caller instead of turning the refusal into a storage error
     */
    public void fail(
            long id,
            String category,
            String resourceType,
            String resourceId,
            Long presented,
            Long current,
            String message,
            boolean journalMissing) {
        Map<String, Object> line = line("fail");
        line.put("id", id);
        line.put("category", category);
        line.put("resource_type", resourceType);
        line.put("resource_id", resourceId);
        line.put("presented", presented);
        line.put("current", current);
        line.put("message", message);
        if (journalMissing) {
            line.put("journal_missing", true);
        }
        write(line);
    }

    /** The outcome is unknown: busy past the bound, another storage error, or an unexpected exception. */
    public void info(long id, RuntimeException e) {
        Map<String, Object> line = line("info");
        line.put("id", id);
        if (e instanceof StorageException s) {
            line.put("reason", s.problem() == StorageException.Problem.BUSY ? "busy" : "storage_" + s.problem());
        } else {
            line.put("reason", "exception");
        }
        line.put("error", describe(e));
        write(line);
    }

    public void clock(long offsetMillis) {
        Map<String, Object> line = line("clock");
        line.put("offset_ms", offsetMillis);
        write(line);
    }

    public void stop() {
        write(line("stop"));
    }

    private static Map<String, Object> line(String type) {
        Map<String, Object> line = new LinkedHashMap<>();
        line.put("type", type);
        line.put("wall_us", wallMicros());
        return line;
    }

    private static String describe(Throwable e) {
        StringBuilder b = new StringBuilder(e.toString());
        StackTraceElement[] trace = e.getStackTrace();
        for (int i = 0; i < Math.min(6, trace.length); i++) {
            b.append(" | at ").append(trace[i]);
        }
        if (e.getCause() != null) {
            b.append(" | caused by ").append(e.getCause());
        }
        return b.toString();
    }

    private synchronized void write(Map<String, Object> line) {
        try {
            out.write((JSON.writeValueAsString(line) + "\n").getBytes(StandardCharsets.UTF_8));
            out.flush();
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public synchronized void close() throws IOException {
        out.close();
    }
}
