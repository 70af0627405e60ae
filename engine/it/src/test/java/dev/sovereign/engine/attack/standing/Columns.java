package dev.sovereign.engine.attack.standing;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * What each column of the ledger means to an attacker, so that the values tried on it are the ones that could
 * matter (a token's neighbours, a time a year ahead, another host's identity), besides the type-confused ones
 * every column gets ({@link Value#CONFUSED}). A column not named here is plain text.
 */
final class Columns {
    private Columns() {}

    /** The kinds of column, as the values generated for them differ. */
    enum Kind {
        TOKEN,
        COUNTER,
        CHANGE,
        TIME,
        TTL,
        PROCESS,
        STATE,
        REF,
        FLAG,
        COUNT,
        TEXT
    }

    /** The columns of each table an attacker writes one at a time (keys included: a key change is an attack too). */
    static final Map<String, List<String>> ATTACKED = Map.ofEntries(
            Map.entry("token_counter", List.of("last_token", "id")),
            Map.entry("lease_change_counter", List.of("last_change", "id")),
            Map.entry(
                    "processes",
                    List.of("heartbeat_at", "stopped_at", "identity", "started_at", "heartbeat_interval_ms", "host")),
            Map.entry("actors", List.of("id", "workspace_policy")),
            Map.entry(
                    "actor_leases",
                    List.of(
                            "process_identity",
                            "token",
                            "expires_at",
                            "renewed_at",
                            "acquired_at",
                            "ttl_ms",
                            "attached",
                            "change_seq",
                            "presented_token",
                            "presented_change",
                            "actor_id",
                            "renewals")),
            Map.entry("lease_tombstones", List.of("change_seq", "actor_id")),
            Map.entry(
                    "assignments",
                    List.of(
                            "state",
                            "current_attempt",
                            "retry_of",
                            "acknowledged_at",
                            "ended_by_attempt",
                            "ended_via",
                            "updated_at",
                            "actor_id")),
            Map.entry(
                    "execution_attempts",
                    List.of(
                            "state",
                            "expires_at",
                            "renewed_at",
                            "ended_at",
                            "token",
                            "lease_token",
                            "process_identity",
                            "ttl_ms",
                            "assignment_id")),
            Map.entry(
                    "receipts",
                    List.of(
                            "status",
                            "attempt_token",
                            "process_identity",
                            "outcome_known",
                            "failure_category",
                            "attempt_id")),
            Map.entry(
                    "messages",
                    List.of(
                            "state",
                            "claim_expires_at",
                            "claim_process",
                            "claim_token",
                            "claim_actor",
                            "finished_with",
                            "retry_count",
                            "updated_at",
                            "recipient")),
            Map.entry("fence_events", List.of("kind", "token", "process_identity", "at", "detail", "seq")),
            Map.entry("supervisor_ticks", List.of("recovered", "report", "at", "seq")),
            Map.entry("ledger_mark", List.of("lab_sandbox", "id")),
            Map.entry("schema_migrations", List.of("sovereign_version", "schema_version")),
            Map.entry("server_clock", List.of("pinned_ms")),
            // decisions 0018 and 0019: the watermark and the policy first, then the counts
            Map.entry("retention", List.of("pruned_below", "keep_ms", "pruned_rows", "pruned_at", "kind")),
            Map.entry(
                    "lease_contention",
                    List.of(
                            "refusals",
                            "last_at",
                            "first_seq",
                            "first_at",
                            "window_start",
                            "actor_id",
                            "process_identity")));

    /**
     * The columns of {@code table} an attacker writes: those {@link #ATTACKED} names, fence columns first; for a
     * table it does not name (one a later migration added), every column the table has.
     */
    static List<String> attacked(Dialect d, String table) {
        List<String> named = ATTACKED.get(table);
        if (named != null) {
            return named;
        }
        LedgerTables.Table t = LedgerTables.of(d).get(table);
        return t == null ? List.of() : t.columns();
    }

    static Kind kind(String table, String column) {
        if (table.equals("token_counter") && column.equals("last_token")
                || table.equals("lease_change_counter") && column.equals("last_change")) {
            return Kind.COUNTER;
        }
        if (column.equals("state")
                || column.equals("status")
                || column.equals("kind")
                || column.equals("ended_via")
                || column.equals("workspace_policy")) {
            return Kind.STATE;
        }
        if (column.equals("change_seq") || column.equals("presented_change")) {
            return Kind.CHANGE;
        }
        if (column.endsWith("token") || column.equals("finished_with")) {
            return Kind.TOKEN;
        }
        if (column.endsWith("_at") || column.equals("pinned_ms") || column.equals("window_start")) {
            return Kind.TIME;
        }
        if (column.equals("ttl_ms") || column.equals("heartbeat_interval_ms") || column.equals("keep_ms")) {
            return Kind.TTL;
        }
        if (column.equals("process_identity") || column.equals("claim_process") || column.equals("identity")) {
            return Kind.PROCESS;
        }
        if (column.equals("current_attempt")
                || column.equals("retry_of")
                || column.equals("ended_by_attempt")
                || column.equals("attempt_id")
                || column.equals("assignment_id")
                || column.equals("actor_id")
                || column.equals("claim_actor")
                || column.equals("recipient")
                || column.equals("id")
                || column.equals("seq")
                || column.equals("first_seq")
                || column.equals("schema_version")) {
            return Kind.REF;
        }
        if (column.equals("attached") || column.equals("lab_sandbox") || column.equals("outcome_known")) {
            return Kind.FLAG;
        }
        if (column.equals("renewals")
                || column.equals("retry_count")
                || column.equals("recovered")
                || column.equals("pruned_below")
                || column.equals("pruned_rows")
                || column.equals("refusals")) {
            return Kind.COUNT;
        }
        return Kind.TEXT;
    }

    /** The meaningful values of a column (the confused ones come on top, {@link Value#CONFUSED}). */
    static List<Value> meaningful(String table, String column) {
        List<Value> v = new ArrayList<>();
        switch (kind(table, column)) {
            case COUNTER -> {
                for (long d : new long[] {1, 2, 10, -1}) {
                    v.add(Value.rowPlus(d));
                }
                v.add(Value.rowPlus(1L << 40));
                v.add(Value.literal(Long.toString(Value.INT64_MAX - 1)));
                v.add(Value.literal(Long.toString(1L << 62)));
                v.add(Value.literal("9007199254740993"));
            }
            case CHANGE, TOKEN -> {
                v.add(Value.rowPlus(1));
                v.add(Value.rowPlus(-1));
                v.add(Value.counterPlus(0));
                v.add(Value.counterPlus(1));
                v.add(Value.otherRow());
                v.add(Value.literal(Long.toString(1L << 62)));
            }
            case TIME -> {
                v.add(Value.nowPlus(0));
                v.add(Value.nowPlus(-1));
                v.add(Value.nowPlus(-60_000));
                v.add(Value.nowPlus(60_000));
                v.add(Value.nowPlus(Value.YEAR + 1));
                v.add(Value.rowPlus(-1));
                v.add(Value.rowPlus(1));
                v.add(Value.literal("4000000000000000"));
                v.add(Value.literal("9000000000000"));
            }
            case TTL -> {
                v.add(Value.literal("1"));
                v.add(Value.literal("120000"));
                v.add(Value.literal(Long.toString(Value.YEAR)));
                v.add(Value.literal(Long.toString(Value.YEAR + 1)));
                v.add(Value.literal("1000000000000"));
            }
            case PROCESS -> {
                v.add(Value.process("A"));
                v.add(Value.process("B"));
                v.add(Value.process("forged"));
            }
            case STATE -> {
                for (String s : states(table, column)) {
                    v.add(Value.literal("'" + s + "'"));
                }
            }
            case REF -> {
                v.add(Value.otherRow());
                v.add(Value.literal("'nope'"));
            }
            case FLAG -> {
                v.add(Value.literal("1"));
                v.add(Value.literal("2"));
                v.add(Value.literal("true"));
                v.add(Value.literal("false"));
            }
            case COUNT -> {
                v.add(Value.rowPlus(1));
                v.add(Value.rowPlus(100));
                if (column.equals("pruned_below") || column.equals("pruned_rows") || column.equals("refusals")) {
                    v.add(Value.rowPlus(-1)); // backwards
                    v.add(Value.literal("9000000000000"));
                }
            }
            case TEXT -> v.add(Value.literal("'by hand'"));
        }
        return v;
    }

    private static List<String> states(String table, String column) {
        return switch (table + "." + column) {
            case "assignments.state" -> List.of("CREATED", "RUNNING", "COMPLETED", "BLOCKED", "FAILED", "BOGUS");
            case "execution_attempts.state" -> List.of("ACTIVE", "DONE", "SUPERSEDED", "RECOVERED", "LOST", "BOGUS");
            case "messages.state" -> List.of("NEW", "CLAIMED", "DONE", "DEAD", "BOGUS");
            case "receipts.status" -> List.of("completed", "blocked", "failed", "bogus");
            case "fence_events.kind" -> List.of("LEASE_RELEASED", "REJECTED", "LEASE_TAKEN_OVER", "BOGUS");
            case "assignments.ended_via" -> List.of("attempt", "recovery", "bogus");
            case "actors.workspace_policy" -> List.of("temporary", "persistent", "bogus");
            case "retention.kind" -> List.of("journal", "runs");
            default -> List.of("BOGUS");
        };
    }

    /** Whether the column holds a time (a stamp or an expiry): the SQLite oracle leaves lies about time alone. */
    static boolean isTime(String table, String column) {
        return kind(table, column) == Kind.TIME || kind(table, column) == Kind.TTL;
    }
}
