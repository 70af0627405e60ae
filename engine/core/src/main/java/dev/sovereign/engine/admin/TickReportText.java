package dev.sovereign.engine.admin;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;

/**
 * A stored supervisor tick report ({@link SupervisorTickRow#report()}, a JSON object written by the
 * engine's supervisor) put into sentences, one per thing the tick saw or did. A report that is not
 * JSON (written by something else) is returned line by line as it is. Pure and thread-safe.
 */
public final class TickReportText {
    /** At most this many sentences per kind of finding; the rest are counted in one more sentence. */
    public static final int MAX_PER_KIND = 5;
    /**
     * A stale process whose last heartbeat is older than this, at the tick, is "long dead" (a crash or a kill,
     * never stopped): every tick still reports it, but its sentence is not written again — the ticks of the
     * first minutes after it went silent named it — only counted (decision 0421).
     */
    public static final Duration LONG_DEAD = Duration.ofMinutes(5);

    private final DateTimeFormatter time;
    private final Function<String, String> processName;

    /**
     * @param zone        the zone times are shown in
     * @param processName names a process identity for people ({@code worker 7101 (proc_3f2a…)}); may
     *                    return null for an unknown one, then the short identity is used
     */
    public TickReportText(ZoneId zone, Function<String, String> processName) {
        this.time = DateTimeFormatter.ofPattern("HH:mm:ss", Locale.ROOT).withZone(zone);
        this.processName = processName;
    }

    /** The report's sentences, in the order the tick ran: leases, processes, claims, recoveries, failures. */
    public List<String> lines(String report) {
        if (report == null || report.isBlank()) {
            return List.of();
        }
        Object parsed;
        try {
            parsed = new Parser(report).parseDocument();
        } catch (IllegalArgumentException notJson) {
            return report.lines().toList();
        }
        if (!(parsed instanceof Map<?, ?> root)) {
            return report.lines().toList();
        }
        List<String> out = new ArrayList<>();
        List<Map<?, ?>> leases = objects(root.get("expired_leases"));
        for (Map<?, ?> l : capped(leases)) {
            out.add("The lease of actor " + str(l.get("actor")) + " (token " + str(l.get("token")) + ", held by "
                    + name(l.get("process")) + ") expired at " + at(l.get("expires_at"))
                    + ". Reported only: the next host takes it over.");
        }
        more(out, leases.size(), "expired leases");
        List<Map<?, ?>> stale = new ArrayList<>();
        int longDead = 0;
        Object tickAt = root.get("at");
        for (Map<?, ?> p : objects(root.get("stale_processes"))) {
            if (tickAt instanceof Number t
                    && p.get("heartbeat_at") instanceof Number beat
                    && t.longValue() - beat.longValue() > LONG_DEAD.toMillis()) {
                longDead++;
            } else {
                stale.add(p);
            }
        }
        for (Map<?, ?> p : capped(stale)) {
            Object label = p.get("label");
            String who = label == null ? name(p.get("process")) : label + " (" + shortId(str(p.get("process"))) + ")";
            out.add("Process " + who
                    + (p.get("pid") == null ? " is stale" : ", pid " + str(p.get("pid")) + ", is stale")
                    + ": its last heartbeat was at " + at(p.get("heartbeat_at")) + ".");
        }
        more(out, stale.size(), "stale processes");
        if (longDead > 0) {
            out.add((longDead == 1 ? "1 more process has" : longDead + " more processes have") + " been silent for"
                    + " more than " + LONG_DEAD.toMinutes() + " minutes (never stopped: a crash or a kill); not listed"
                    + " again. The Processes page shows " + (longDead == 1 ? "it" : "them") + "; Stop process marks "
                    + (longDead == 1 ? "it" : "them") + " stopped.");
        }
        List<?> swept = list(root.get("swept_claims"));
        for (Object m : capped(swept)) {
            out.add("The expired claim on message " + str(m) + " was swept back to new.");
        }
        more(out, swept.size(), "swept claims");
        for (Map<?, ?> r : objects(root.get("recovered"))) {
            boolean stolen = Boolean.TRUE.equals(r.get("fence_was_stolen"));
            out.add("Recovered assignment " + str(r.get("assignment")) + " as failed / worker_lost: attempt "
                    + str(r.get("attempt")) + " (token " + str(r.get("attempt_token")) + ") of "
                    + name(r.get("lost_process"))
                    + (stolen ? " lost its fence to an operator and expired" : " expired while its process was silent")
                    + "; receipt " + str(r.get("receipt"))
                    + " says the outcome is unknown.");
        }
        for (Map<?, ?> r : objects(root.get("retired"))) {
            out.add("Attempt " + str(r.get("attempt")) + " of assignment " + str(r.get("assignment"))
                    + " had expired and was no longer current: marked "
                    + str(r.get("state")).toLowerCase(Locale.ROOT)
                    + ".");
        }
        for (Map<?, ?> f : objects(root.get("failures"))) {
            out.add("Could not handle " + str(f.get("item")) + ": " + str(f.get("problem")));
        }
        if (out.isEmpty()) {
            out.add("Nothing to do: no expired leases, no stale processes, no expired claims, no abandoned attempts.");
        }
        return out;
    }

    /**
     * The ids the report's sentences name, for links: {@code process:<identity>} for the tick's own process,
     * the stale processes named (not the long dead) and the lost processes of recoveries, and
     * {@code assignment:<id>} for recovered and retired runs; in the order of the sentences, without repeats.
     * Empty for a report that is not the engine's JSON.
     */
    public List<String> idsNamed(String report) {
        LinkedHashSet<String> ids = new LinkedHashSet<>();
        Object parsed;
        try {
            parsed = report == null ? null : new Parser(report).parseDocument();
        } catch (IllegalArgumentException notJson) {
            return List.of();
        }
        if (!(parsed instanceof Map<?, ?> root)) {
            return List.of();
        }
        for (Map<?, ?> l : capped(objects(root.get("expired_leases")))) {
            if (l.get("process") != null) {
                ids.add("process:" + l.get("process"));
            }
        }
        Object tickAt = root.get("at");
        List<Map<?, ?>> named = new ArrayList<>();
        for (Map<?, ?> p : objects(root.get("stale_processes"))) {
            if (!(tickAt instanceof Number t
                    && p.get("heartbeat_at") instanceof Number beat
                    && t.longValue() - beat.longValue() > LONG_DEAD.toMillis())) {
                named.add(p);
            }
        }
        for (Map<?, ?> p : capped(named)) {
            ids.add("process:" + p.get("process"));
        }
        for (Map<?, ?> r : objects(root.get("recovered"))) {
            ids.add("assignment:" + r.get("assignment"));
            if (r.get("lost_process") != null) {
                ids.add("process:" + r.get("lost_process"));
            }
        }
        for (Map<?, ?> r : objects(root.get("retired"))) {
            ids.add("assignment:" + r.get("assignment"));
        }
        return List.copyOf(ids);
    }

    private static <T> List<T> capped(List<T> items) {
        return items.size() <= MAX_PER_KIND ? items : items.subList(0, MAX_PER_KIND - 1);
    }

    private static void more(List<String> out, int total, String what) {
        if (total > MAX_PER_KIND) {
            out.add("\u2026 and " + (total - MAX_PER_KIND + 1) + " more " + what + ".");
        }
    }

    private String name(Object identity) {
        if (identity == null) {
            return "an unknown process";
        }
        String n = processName.apply(identity.toString());
        return n != null ? n : shortId(identity.toString());
    }

    private static String shortId(String identity) {
        return identity.length() > 13 ? identity.substring(0, 13) + "\u2026" : identity;
    }

    private String at(Object millis) {
        return millis instanceof Number n ? time.format(Instant.ofEpochMilli(n.longValue())) : "?";
    }

    private static String str(Object o) {
        if (o instanceof Double d && d == Math.rint(d)) {
            return Long.toString(d.longValue());
        }
        return String.valueOf(o);
    }

    private static List<?> list(Object o) {
        return o instanceof List<?> l ? l : List.of();
    }

    private static List<Map<?, ?>> objects(Object o) {
        List<Map<?, ?>> out = new ArrayList<>();
        for (Object x : list(o)) {
            if (x instanceof Map<?, ?> m) {
                out.add(m);
            }
        }
        return out;
    }

    /** Just enough JSON for the engine's own reports: objects, arrays, strings, numbers, booleans, null. */
    private static final class Parser {
        private final String s;
        private int i;

        Parser(String s) {
            this.s = s;
        }

        Object parseDocument() {
            Object v = value();
            skipSpace();
            if (i != s.length()) {
                throw error();
            }
            return v;
        }

        private Object value() {
            skipSpace();
            if (i >= s.length()) {
                throw error();
            }
            char c = s.charAt(i);
            switch (c) {
                case '{':
                    return object();
                case '[':
                    return array();
                case '"':
                    return string();
                case 't':
                    return literal("true", Boolean.TRUE);
                case 'f':
                    return literal("false", Boolean.FALSE);
                case 'n':
                    return literal("null", null);
                default:
                    return number();
            }
        }

        private Map<String, Object> object() {
            Map<String, Object> m = new LinkedHashMap<>();
            i++;
            skipSpace();
            if (peek('}')) {
                i++;
                return m;
            }
            while (true) {
                skipSpace();
                String key = string();
                skipSpace();
                expect(':');
                m.put(key, value());
                skipSpace();
                if (peek(',')) {
                    i++;
                } else {
                    expect('}');
                    return m;
                }
            }
        }

        private List<Object> array() {
            List<Object> l = new ArrayList<>();
            i++;
            skipSpace();
            if (peek(']')) {
                i++;
                return l;
            }
            while (true) {
                l.add(value());
                skipSpace();
                if (peek(',')) {
                    i++;
                } else {
                    expect(']');
                    return l;
                }
            }
        }

        private String string() {
            expect('"');
            StringBuilder sb = new StringBuilder();
            while (i < s.length()) {
                char c = s.charAt(i++);
                if (c == '"') {
                    return sb.toString();
                }
                if (c != '\\') {
                    sb.append(c);
                    continue;
                }
                if (i >= s.length()) {
                    break;
                }
                char e = s.charAt(i++);
                switch (e) {
                    case 'n' -> sb.append('\n');
                    case 't' -> sb.append('\t');
                    case 'r' -> sb.append('\r');
                    case 'b' -> sb.append('\b');
                    case 'f' -> sb.append('\f');
                    case 'u' -> {
                        if (i + 4 > s.length()) {
                            throw error();
                        }
                        sb.append((char) Integer.parseInt(s.substring(i, i + 4), 16));
                        i += 4;
                    }
                    default -> sb.append(e);
                }
            }
            throw error();
        }

        private Object number() {
            int start = i;
            while (i < s.length() && "+-0123456789.eE".indexOf(s.charAt(i)) >= 0) {
                i++;
            }
            String n = s.substring(start, i);
            if (n.isEmpty()) {
                throw error();
            }
            try {
                return n.contains(".") || n.contains("e") || n.contains("E")
                        ? (Object) Double.parseDouble(n)
                        : (Object) Long.parseLong(n);
            } catch (NumberFormatException e) {
                throw error();
            }
        }

        private Object literal(String word, Object value) {
            if (!s.startsWith(word, i)) {
                throw error();
            }
            i += word.length();
            return value;
        }

        private void skipSpace() {
            while (i < s.length() && Character.isWhitespace(s.charAt(i))) {
                i++;
            }
        }

        private boolean peek(char c) {
            return i < s.length() && s.charAt(i) == c;
        }

        private void expect(char c) {
            if (!peek(c)) {
                throw error();
            }
            i++;
        }

        private IllegalArgumentException error() {
            return new IllegalArgumentException("not JSON at offset " + i);
        }
    }
}
