package dev.sovereign.engine.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sovereign.engine.Engine;
import dev.sovereign.engine.base.Refusal;
import dev.sovereign.engine.base.RefusalCategory;
import dev.sovereign.engine.rules.Arguments;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import picocli.CommandLine;

/**
 * The protocol of {@code serve --stdio}: one JSON request in, one JSON answer out. A request names an
 * {@code op} (a command's words joined by dots: {@code lease.acquire}, {@code dead-letter}) and the command's
 * arguments as fields (its parameter by name, {@code actor}, {@code message}, {@code assignment}; its options
 * without the dashes, snake_case: {@code ttl}, {@code token}, {@code workspace_policy}). The request becomes
 * the command line of that command and runs through the same command class, converters, rules and JSON
 * writers as a one-shot {@code sovereign --json} call, on the serving process's engine and identity
 * ({@link SovereignCommand#host(Engine)}): there is no second implementation of any command.
 *
 * <p>The answer is {@code {"id": <the request's id>, "ok": <bool>, "exit_code": <what the one-shot call would
 * exit with>, ...}} followed by the fields of the object the command prints (a list command's objects under
 * {@code results}); a refusal or failure carries the same fields as the CLI's refusal or error JSON. A line
 * that is not a usable request is answered with {@code "error": "bad_request"} and serving goes on.
 *
 * <p>What a request cannot do: name the database, the identity, {@code --allow-command} or {@code --debug} (they
 * belong to the serve process), or run a command that is not listed in {@link #OPS}. Values are placed where
 * picocli cannot read them as options ({@code --name=value}, also when the value looks like an option or a
 * command; parameters after {@code --}) and {@code @file} arguments are off, so a value is only ever a value.
 *
 * <p>Not thread-safe, except {@link #stopRuns()}: the serving loop answers one request at a time.
 */
final class ServeRequests {
    private static final ObjectMapper MAPPER =
            new ObjectMapper().enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

    /** A command a request may run: its words, its parameters by field name, its options, and whether it lists. */
    private record Op(List<String> words, List<String> parameters, List<String> options, boolean lists) {
        List<String> fields() {
            List<String> all = new ArrayList<>(parameters);
            all.addAll(options);
            return all;
        }
    }

    /** Every op a request may name, in the order the docs list them. */
    private static final Map<String, Op> OPS = new LinkedHashMap<>();

    static {
        op("actor.add", List.of("actor"), List.of("workspace_policy"), false);
        op("actor.list", List.of(), List.of(), true);
        op("lease.acquire", List.of("actor"), List.of("ttl"), false);
        op("lease.renew", List.of("actor"), List.of("token", "ttl"), false);
        op("lease.release", List.of("actor"), List.of("token"), false);
        op("lease.list", List.of(), List.of(), true);
        op("send", List.of(), List.of("from", "to", "subject", "body", "max_retries"), false);
        op("inbox", List.of("actor"), List.of(), true);
        op("messages", List.of(), List.of("state", "actor", "limit"), true);
        op("claim", List.of("message"), List.of("actor", "ttl"), false);
        op("complete", List.of("message"), List.of("token"), false);
        op("dead-letter", List.of("message"), List.of("token"), false);
        op("assign", List.of("actor"), List.of("provider", "workspace_policy"), false);
        op("run", List.of("assignment"), List.of("ttl"), false);
        op("retry", List.of("assignment"), List.of(), false);
        op("acknowledge", List.of("assignment"), List.of(), false);
        op("assignments", List.of(), List.of("actor", "state", "limit"), true);
        op("status", List.of(), List.of(), false);
        op("events", List.of(), List.of("since", "limit"), true);
        op("rejections", List.of(), List.of("limit"), true);
    }

    /** The op that answers with the serving process itself. */
    static final String IDENTITY = "identity";

    private static void op(String name, List<String> parameters, List<String> options, boolean lists) {
        OPS.put(name, new Op(List.of(name.split("\\.")), parameters, options, lists));
    }

    private final Engine engine;
    private final CliEnvironment requestEnvironment;
    private final Optional<PrintWriter> debug;
    private final Set<StopSignals.Stop> runStops = ConcurrentHashMap.newKeySet();
    private volatile boolean stopping;
    /** What a request's command prints, read back into its answer (emptied before each request). */
    private final StringWriter out = new StringWriter();

    private final StringWriter err = new StringWriter();
    /**
     * One command tree for every request: picocli sets each option and parameter back to its initial value
     * before it parses a command line, and building the tree again per request costs more than the request.
     */
    private final CommandLine commandLine;

    /**
     * @param engine the serving process's open engine; every request runs on it
     * @param environment the serving process's world; a request's {@code run} hears its stop through {@code serving}
     * @param debug where a request's stderr goes with {@code --debug}; without, the answer carries all there is
     */
    ServeRequests(Engine engine, CliEnvironment environment, StopSignals.Stop serving, Optional<PrintWriter> debug) {
        this.engine = engine;
        this.debug = debug;
        this.requestEnvironment = environment.withStopSignals(() -> {
            StopSignals.Stop stop = new StopSignals.Stop();
            runStops.add(stop);
            stop.onClose(() -> runStops.remove(stop));
            if (stopping || serving.isRequested()) {
                stop.request();
            }
            return stop;
        });
        this.commandLine = Cli.create(requestEnvironment, new PrintWriter(out, true), new PrintWriter(err, true));
        commandLine.setExpandAtFiles(false);
        // a value is attached to its option: one that looks like an option or a command is still only a value
        commandLine.setAllowOptionsAsOptionParameters(true);
        commandLine.setAllowSubcommandsAsOptionParameters(true);
        ((SovereignCommand) commandLine.getCommand()).host(engine);
    }

    /** The serving process was asked to stop: a run in progress cancels its provider and ends. Thread-safe. */
    void stopRuns() {
        stopping = true;
        runStops.forEach(StopSignals.Stop::request);
    }

    /** The answer to one line of input ({@code number} counts lines from 1, for the sentence of a bad one). */
    ObjectNode answer(String line, long number) {
        JsonNode parsed;
        try {
            parsed = MAPPER.readTree(line);
        } catch (JsonProcessingException e) {
            return badRequest(
                    null,
                    "Line " + number + " is not JSON (" + e.getOriginalMessage()
                            + "); send one JSON object per line, e.g. {\"id\": 1, \"op\": \"status\"}");
        }
        if (!(parsed instanceof ObjectNode request)) {
            return badRequest(
                    null,
                    "Line " + number + " is JSON but not an object; send one JSON object per line,"
                            + " e.g. {\"id\": 1, \"op\": \"status\"}");
        }
        JsonNode id = request.get("id");
        if (id != null && !id.isValueNode()) {
            return badRequest(
                    null, "Line " + number + ": \"id\" must be a number or a string, it is echoed in the" + " answer");
        }
        JsonNode op = request.get("op");
        if (op == null || !op.isTextual()) {
            return badRequest(id, "Line " + number + " has no \"op\"; it is one of: " + ops());
        }
        if (op.asText().equals(IDENTITY)) {
            List<String> extra = fieldsBeyond(request, List.of());
            return extra.isEmpty() ? identity(id) : badRequest(id, unknownFields(IDENTITY, extra, List.of()));
        }
        Op spec = OPS.get(op.asText());
        if (spec == null) {
            return badRequest(id, "Unknown op '" + op.asText() + "'; it is one of: " + ops());
        }
        List<String> extra = fieldsBeyond(request, spec.fields());
        if (!extra.isEmpty()) {
            return badRequest(id, unknownFields(op.asText(), extra, spec.fields()));
        }
        List<String> args = new ArrayList<>(List.of("--json", "--process", engine.processIdentity()));
        args.addAll(spec.words());
        for (String option : spec.options()) {
            JsonNode value = request.get(option);
            if (value != null && !value.isNull()) {
                if (!value.isTextual() && !value.isIntegralNumber()) {
                    return badRequest(
                            id,
                            "Field \"" + option + "\" of op '" + op.asText() + "' must be a string or a"
                                    + " whole number");
                }
                args.add("--" + option.replace('_', '-') + "=" + value.asText());
            }
        }
        List<String> parameters = new ArrayList<>();
        for (String parameter : spec.parameters()) {
            JsonNode value = request.get(parameter);
            if (value == null || value.isNull()) {
                return badRequest(id, "Op '" + op.asText() + "' needs the field \"" + parameter + "\"");
            }
            if (!value.isTextual() && !value.isIntegralNumber()) {
                return badRequest(id, "Field \"" + parameter + "\" of op '" + op.asText() + "' must be a string");
            }
            parameters.add(value.asText());
        }
        if (!parameters.isEmpty()) {
            args.add("--");
            args.addAll(parameters);
        }
        return execute(id, spec, args);
    }

    /** Runs the command line on this process's engine and turns what it printed into one answer. */
    private ObjectNode execute(JsonNode id, Op spec, List<String> args) {
        out.getBuffer().setLength(0);
        err.getBuffer().setLength(0);
        int code = commandLine.execute(args.toArray(String[]::new));
        debug.ifPresent(d -> {
            d.print(err);
            d.flush();
        });
        List<ObjectNode> printed = new ArrayList<>();
        for (String line : out.toString().lines().filter(l -> !l.isBlank()).toList()) {
            try {
                printed.add((ObjectNode) MAPPER.readTree(line));
            } catch (JsonProcessingException | ClassCastException e) {
                throw new IllegalStateException("a command printed a line that is not a JSON object: " + line, e);
            }
        }
        Optional<ObjectNode> failure =
                printed.stream().filter(o -> o.has("refused") || o.has("error")).findFirst();
        if (failure.isPresent()) {
            return merge(head(id, false, code), failure.get());
        }
        if (code != ExitCode.OK && code != ExitCode.INTERRUPTED && printed.isEmpty()) {
            String sentence = err.toString()
                    .lines()
                    .filter(l -> !l.isBlank())
                    .findFirst()
                    .orElse("The request failed without saying why");
            return merge(head(id, false, code), JsonShapes.error("failed", ErrorMapper.sentence(sentence)));
        }
        ObjectNode answer = head(id, true, code);
        if (spec.lists()) {
            ArrayNode results = answer.putArray("results");
            printed.forEach(results::add);
            return answer;
        }
        if (code == ExitCode.INTERRUPTED) {
            answer.put("interrupted", true);
        }
        return printed.isEmpty() ? answer : merge(answer, printed.get(printed.size() - 1));
    }

    /** {@code id, ok, exit_code, process, pid, kind, label, database, heartbeat_ms, ttl_ms}. */
    private ObjectNode identity(JsonNode id) {
        ObjectNode o = head(id, true, ExitCode.OK);
        o.put("process", engine.processIdentity());
        o.put("pid", ProcessHandle.current().pid());
        o.put("kind", engine.config().processKind());
        o.put("label", engine.config().processLabel());
        o.put("database", engine.config().location().toString());
        o.put("heartbeat_ms", engine.config().heartbeatInterval().toMillis());
        o.put("ttl_ms", engine.config().defaultTtl().toMillis());
        return o;
    }

    /**
     * A TTL a request gives for a lease this process's heartbeat keeps alive: at least two of its beats, else
     * {@code invalid_argument} (the lease would expire between two beats while the agent still counts on it).
     */
    static void requireTwoBeats(Duration ttl, Duration heartbeat) {
        if (ttl != null
                && heartbeat != null
                && ttl.compareTo(heartbeat.multipliedBy(Arguments.RUN_TTL_MIN_BEATS)) < 0) {
            throw Refusal.of(
                            RefusalCategory.INVALID_ARGUMENT,
                            "A lease TTL must be at least "
                                    + Arguments.RUN_TTL_MIN_BEATS
                                    + " heartbeat intervals of this serve process (it beats every "
                                    + Arguments.shown(heartbeat) + "), got " + Arguments.shown(ttl)
                                    + ": the lease would expire"
                                    + " between two beats; give a longer TTL or start serve with a shorter --ttl.")
                    .build();
        }
    }

    private static ObjectNode head(JsonNode id, boolean ok, int exitCode) {
        ObjectNode o = JsonShapes.object();
        o.set("id", id);
        o.put("ok", ok);
        o.put("exit_code", exitCode);
        return o;
    }

    private static ObjectNode merge(ObjectNode answer, ObjectNode printed) {
        for (Iterator<String> names = printed.fieldNames(); names.hasNext(); ) {
            String name = names.next();
            if (!answer.has(name)) {
                answer.set(name, printed.get(name));
            }
        }
        return answer;
    }

    private static ObjectNode badRequest(JsonNode id, String sentence) {
        return merge(
                head(id, false, ExitCode.BAD_INPUT), JsonShapes.error("bad_request", ErrorMapper.sentence(sentence)));
    }

    private static List<String> fieldsBeyond(ObjectNode request, List<String> known) {
        List<String> extra = new ArrayList<>();
        for (Iterator<String> names = request.fieldNames(); names.hasNext(); ) {
            String name = names.next();
            if (!name.equals("id") && !name.equals("op") && !known.contains(name)) {
                extra.add(name);
            }
        }
        return extra;
    }

    private static String unknownFields(String op, List<String> extra, List<String> known) {
        return "Op '" + op + "' takes no field "
                + String.join(", ", extra.stream().map(f -> "\"" + f + "\"").toList())
                + (known.isEmpty() ? " (only id and op)" : "; its fields are id, op, " + String.join(", ", known));
    }

    private static String ops() {
        return IDENTITY + ", " + String.join(", ", OPS.keySet());
    }
}
