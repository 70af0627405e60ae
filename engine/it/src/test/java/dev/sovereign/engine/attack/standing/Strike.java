package dev.sovereign.engine.attack.standing;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One strike of an attack: ONE transaction of hand-written SQL from the attacker's connection against one row of
 * one table, in one statement form, with one generated value. Its SQL is written only when it runs
 * ({@link #statements}), from the rows the ledger has then, so a failure report shows the exact statements sent.
 * Immutable.
 *
 * @param table     the attacked table
 * @param column    the attacked column (the one an UPDATE sets, the one a forged row carries the value in)
 * @param value     the value written into it
 * @param form      the statement form
 * @param pick      which row: negative = the victim's (A's) newest live grant in the table if it has one, else
 *                  row {@code -pick - 1}; otherwise row {@code pick} (modulo the rows there are)
 * @param variant   a form's variant (which REPLACE; which DDL object; whose name a forged row carries)
 * @param recursive {@code recursive_triggers} on the attacker's SQLite connection
 */
record Strike(String table, String column, Value value, Form form, int pick, int variant, boolean recursive) {

    /** The statement forms. */
    enum Form {
        /** {@code UPDATE t SET column = value WHERE key = ...}: one column, nothing else stated. */
        UPDATE,
        /**
         * The same UPDATE, also stating what the table's guard asks a legitimate write to state (the row's own
         * token, a raised change marker, the claim token a finish presents, the write's own time): a guard must
         * refuse the VALUE, not only a write that states nothing.
         */
        UPDATE_STATED,
        /** {@code DELETE FROM t WHERE key = ...}. */
        DELETE,
        /** In one transaction: mint a token, raise the change marker, delete the row, insert a forged one in its place. */
        DELETE_INSERT,
        /** A forged new row beside the others (a new key), with a freshly minted token. */
        INSERT,
        /** REPLACE INTO / INSERT OR REPLACE / upsert (SQLite); INSERT ... ON CONFLICT DO UPDATE (PostgreSQL). */
        REPLACE,
        /** The UPDATE, then in the same transaction the takeover (a lease, a claim, a run) the changed row allows. */
        UPDATE_THEN_TAKE,
        /** A trigger, view or index (on PostgreSQL also a rule, a policy, a function) the schema did not create. */
        DDL
    }

    /** The objects a DDL attack adds, by {@link #variant}: the first three on both backends. */
    static final List<String> DDL_KINDS = List.of("trigger", "view", "index", "rule", "policy", "function");

    /** The row of {@link #table} this attack targets, in the rows {@code facts} holds; null when the table is empty. */
    Map<String, Object> target(Scene world, Facts facts) {
        List<Map<String, Object>> rows = facts.rows(table);
        if (rows.isEmpty()) {
            return null;
        }
        if (pick < 0) {
            Map<String, Object> live = victimsGrant(world, facts);
            if (live != null) {
                return live;
            }
            return rows.get((-pick - 1) % rows.size());
        }
        return rows.get(pick % rows.size());
    }

    /**
     * The victim's live row in the table — its lease, session, claim, running attempt or assignment — of this
     * try's actors if it has one there, else of an earlier try's.
     */
    private Map<String, Object> victimsGrant(Scene world, Facts facts) {
        String victim = world.victim();
        long now = world.now();
        Map<String, Object> found = null;
        Map<String, Object> earlier = null;
        List<String> mine = List.of(world.actor("w"), world.actor("x"));
        for (Map<String, Object> r : facts.rows(table)) {
            Object actor = r.containsKey("recipient") ? r.get("recipient") : r.get("actor_id");
            boolean victims = switch (table) {
                case "actor_leases" -> victim.equals(r.get("process_identity"));
                case "processes" -> victim.equals(r.get("identity"));
                case "messages" -> victim.equals(r.get("claim_process")) && live(r.get("claim_expires_at"), now);
                case "execution_attempts" ->
                    victim.equals(r.get("process_identity")) && "ACTIVE".equals(r.get("state"));
                case "assignments" -> "RUNNING".equals(r.get("state")) || "FAILED".equals(r.get("state"));
                default -> false;
            };
            if (victims && (actor == null || mine.contains(actor))) {
                found = r;
            } else if (victims) {
                earlier = r;
            }
        }
        return found != null ? found : earlier;
    }

    private static boolean live(Object expiresAt, long now) {
        Long e = Facts.integer(expiresAt);
        return e != null && e > now;
    }

    /**
     * The attack's statements, in order, as sent in one transaction (the dialect's BEGIN/COMMIT around them on
     * SQLite; a JDBC transaction on PostgreSQL). Empty when the table has no row to attack.
     */
    List<String> statements(Scene world, Facts facts) throws SQLException {
        Dialect d = world.dialect();
        Map<String, Object> row = target(world, facts);
        if (form == Form.DDL) {
            return ddl(d, row);
        }
        if (row == null && form != Form.INSERT) {
            return List.of();
        }
        String key = d.key(table);
        String where = row == null ? "" : " WHERE " + key + " = " + Literals.of(d, row.get(key));
        String v = value.render(world, column, row, facts.rows(table));
        List<String> out = new ArrayList<>();
        switch (form) {
            case UPDATE -> out.add("UPDATE " + table + " SET " + column + " = " + v + where);
            case UPDATE_STATED -> out.addAll(stated(world, row, v, where));
            case DELETE -> out.add("DELETE FROM " + table + where);
            case DELETE_INSERT -> {
                out.addAll(mintAndBump(d));
                out.add("DELETE FROM " + table + where);
                out.add(forged(world, facts, row, v, false, -1));
            }
            case INSERT -> {
                out.addAll(mintAndBump(d));
                out.add(forged(
                        world,
                        facts,
                        row == null ? facts.rows(table).stream().findFirst().orElse(null) : row,
                        v,
                        true,
                        -1));
            }
            case REPLACE -> {
                out.addAll(mintAndBump(d));
                out.add(forged(world, facts, row, v, false, variant % 3));
            }
            case UPDATE_THEN_TAKE -> {
                out.add("UPDATE " + table + " SET " + column + " = " + v + where);
                out.addAll(take(world, facts, row));
            }
            default -> throw new IllegalStateException(form.toString());
        }
        out.removeIf(s -> s == null);
        return out;
    }

    private static List<String> mintAndBump(Dialect d) {
        return List.of(d.mint(), "UPDATE lease_change_counter SET last_change = last_change + 1 WHERE id = 1");
    }

    /** The UPDATE that also states what the table's guard asks for, from the row's own values. */
    private List<String> stated(Scene world, Map<String, Object> row, String v, String where) {
        Dialect d = world.dialect();
        String now = Long.toString(world.now());
        Map<String, String> set = new LinkedHashMap<>();
        List<String> first = new ArrayList<>();
        switch (table) {
            case "actor_leases" -> {
                first.add("UPDATE lease_change_counter SET last_change = last_change + 1 WHERE id = 1");
                set.put("change_seq", d.changeMarker());
                set.put("presented_change", d.changeMarker());
                set.put("presented_token", Literals.of(d, row.get("token")));
            }
            case "messages" -> {
                set.put("finished_with", Literals.of(d, row.get("claim_token")));
                set.put("updated_at", now);
            }
            case "assignments" -> {
                if (column.equals("state")) {
                    set.put("current_attempt", "NULL");
                    set.put("ended_by_attempt", Literals.of(d, row.get("current_attempt")));
                    set.put("ended_via", "'attempt'");
                }
                set.put("updated_at", now);
            }
            case "execution_attempts" -> {
                if (column.equals("state")) {
                    set.put("ended_at", now);
                }
                if (column.equals("expires_at")) {
                    set.put("renewed_at", now);
                }
            }
            case "token_counter", "lease_change_counter" -> first.addAll(mintAndBump(d));
            default -> {
                // the tables with no fence to state: the plain UPDATE
            }
        }
        set.put(column, v); // the attacked value last: it wins over what the guard asked for
        List<String> assignments = new ArrayList<>();
        set.forEach((c, x) -> assignments.add(c + " = " + x));
        List<String> out = new ArrayList<>(first);
        out.add("UPDATE " + table + " SET " + String.join(", ", assignments) + where);
        return out;
    }

    /**
     * A forged row: the target row with its ownership switched — a holder or claimant (B, or A when
     * {@link #variant} is odd: a grant in the victim's name), the token just minted, the change marker just
     * raised, the row's own token presented, the true time for every stamp and a 60 s expiry — and the attacked
     * column set to the value. {@code newKey}: beside the row (a new key) rather than in its place;
     * {@code replace} ≥ 0: written by the dialect's replacing form of that number.
     */
    private String forged(Scene world, Facts facts, Map<String, Object> row, String v, boolean newKey, int replace)
            throws SQLException {
        if (row == null) {
            return null;
        }
        Dialect d = world.dialect();
        long now = world.now();
        String owner = variant % 2 == 1 ? world.victim() : world.attacker();
        List<String> identity = Dialect.identityColumns(world.owner(), d, table);
        List<String> columns = new ArrayList<>();
        List<String> values = new ArrayList<>();
        String key = d.key(table);
        for (Map.Entry<String, Object> cell : row.entrySet()) {
            String c = cell.getKey();
            Object old = cell.getValue();
            String x = Literals.of(d, old);
            if (identity.contains(c) && (newKey || !c.equals(key))) {
                continue; // drawn by the database
            }
            if (c.equals(key) && newKey) {
                if (d.numericKey(table)) {
                    continue;
                }
                x = Literals.of(d, newKey(facts, old));
            } else if (c.equals("process_identity") || c.equals("claim_process")) {
                x = old == null ? x : Literals.of(d, owner);
            } else if ((c.equals("token") && !table.equals("fence_events")) || c.equals("claim_token")) {
                Object actor = row.containsKey("recipient") ? row.get("recipient") : row.get("actor_id");
                x = old == null ? x : d.token(Literals.of(d, actor));
            } else if (c.equals("presented_token")) {
                x = Literals.of(d, row.get("token"));
            } else if (c.equals("change_seq") || c.equals("presented_change")) {
                x = d.changeMarker();
            } else if (c.equals("expires_at") || c.equals("claim_expires_at")) {
                x = old == null ? x : Long.toString(now + 60_000);
            } else if (c.endsWith("_at")
                    && old != null
                    && !c.equals("ended_at")
                    && !c.equals("acknowledged_at")
                    && !c.equals("stopped_at")) {
                x = Long.toString(now);
            }
            columns.add(c);
            values.add(x);
        }
        int at = columns.indexOf(column);
        if (at >= 0 && !(newKey && column.equals(key))) {
            values.set(at, v);
        }
        return replace >= 0
                ? d.replace(table, columns, values, replace, identity)
                : d.insert(table, columns, values, identity);
    }

    /**
     * The key of a forged row beside the others: for a lease (or its tombstone) an actor that has none, so the
     * forged grant is one the engines would meet; otherwise the row's own key with a suffix.
     */
    private String newKey(Facts facts, Object old) {
        if (table.equals("actor_leases") || table.equals("lease_tombstones")) {
            for (Map<String, Object> actor : facts.rows("actors")) {
                if (facts.row(table, actor.get("id")) == null) {
                    return String.valueOf(actor.get("id"));
                }
            }
        }
        return (old == null ? "" : old) + "_forged";
    }

    /**
     * What the changed row would let through, attempted in the same transaction: the actor's lease taken over by
     * B (a minted token, the old one presented, the true time); a claim re-minted in the name of the process that
     * hosts its recipient; an attempt superseded and a forged one started and pointed at.
     */
    private List<String> take(Scene world, Facts facts, Map<String, Object> row) {
        Dialect d = world.dialect();
        long now = world.now();
        List<String> out = new ArrayList<>();
        switch (table) {
            case "messages" -> {
                String recipient = Literals.of(d, row.get("recipient"));
                out.add(d.mint());
                out.add("UPDATE messages SET state = 'CLAIMED', claim_actor = " + recipient + ", claim_process ="
                        + " (SELECT process_identity FROM actor_leases WHERE actor_id = " + recipient
                        + "), claim_token = "
                        + d.token(recipient) + ", claim_expires_at = " + (now + 60_000) + ", updated_at = " + now
                        + " WHERE id = "
                        + Literals.of(d, row.get("id")));
            }
            case "execution_attempts", "assignments" -> {
                String assignment =
                        Literals.of(d, table.equals("assignments") ? row.get("id") : row.get("assignment_id"));
                String actor = Literals.of(d, row.get("actor_id"));
                out.add("UPDATE execution_attempts SET state = 'SUPERSEDED', ended_at = " + now
                        + " WHERE assignment_id = " + assignment + " AND state = 'ACTIVE'");
                out.add(d.mint());
                out.add(
                        "INSERT INTO execution_attempts (id, assignment_id, actor_id, process_identity, token, lease_token,"
                                + " state, ttl_ms, started_at, renewed_at, expires_at) SELECT 'att_forged', "
                                + assignment + ", "
                                + actor + ", l.process_identity, " + d.token(actor) + ", l.token, 'ACTIVE', 60000, "
                                + now + ", "
                                + now
                                + ", " + (now + 60_000) + " FROM actor_leases l WHERE l.actor_id = " + actor);
                out.add("UPDATE assignments SET state = 'RUNNING', current_attempt = 'att_forged', updated_at = " + now
                        + " WHERE id = " + assignment);
            }
            default -> {
                String w = world.actor("w");
                Map<String, Object> lease = facts.row("actor_leases", w);
                if (lease == null) {
                    return out;
                }
                out.addAll(mintAndBump(d));
                out.add("UPDATE actor_leases SET token = " + d.token(Literals.of(d, w)) + ", process_identity = "
                        + Literals.of(d, world.attacker()) + ", acquired_at = " + now + ", renewed_at = " + now
                        + ", expires_at = " + (now + 60_000) + ", renewals = 0, renewal_journalled_at = " + now
                        + ", presented_token = token, change_seq = " + d.changeMarker() + ", presented_change = "
                        + d.changeMarker()
                        + ", attached = " + d.bool(true) + " WHERE actor_id = " + Literals.of(d, w));
            }
        }
        return out;
    }

    /** The name of the object a DDL attack adds, which the next open must name. */
    String ddlName() {
        return "zz_attack_" + DDL_KINDS.get(variant % DDL_KINDS.size());
    }

    private List<String> ddl(Dialect d, Map<String, Object> row) {
        String kind = DDL_KINDS.get(variant % DDL_KINDS.size());
        String name = ddlName();
        String col = column;
        return switch (kind) {
            case "trigger" ->
                List.of(
                        d == Dialect.SQLITE
                                ? "CREATE TRIGGER " + name + " BEFORE INSERT ON " + table
                                        + " BEGIN SELECT RAISE(IGNORE); END"
                                : "CREATE TRIGGER " + name + " BEFORE UPDATE ON " + table
                                        + " FOR EACH ROW EXECUTE FUNCTION suppress_redundant_updates_trigger()");
            case "view" -> List.of("CREATE VIEW " + name + " AS SELECT * FROM " + table);
            case "index" -> List.of("CREATE INDEX " + name + " ON " + table + " (" + col + ")");
            case "rule" -> List.of("CREATE RULE " + name + " AS ON INSERT TO " + table + " DO INSTEAD NOTHING");
            case "policy" ->
                List.of(
                        "ALTER TABLE " + table + " ENABLE ROW LEVEL SECURITY",
                        "CREATE POLICY " + name + " ON " + table + " USING (false)");
            default -> List.of("CREATE FUNCTION " + name + "() RETURNS integer LANGUAGE sql AS 'SELECT 1'");
        };
    }

    /** The statements that take the object a DDL strike added away again (so its ledger can serve the next try). */
    List<String> undo(Dialect d) {
        String kind = DDL_KINDS.get(variant % DDL_KINDS.size());
        String name = ddlName();
        return switch (kind) {
            case "trigger" -> List.of("DROP TRIGGER IF EXISTS " + name + (d == Dialect.POSTGRES ? " ON " + table : ""));
            case "view" -> List.of("DROP VIEW IF EXISTS " + name);
            case "index" -> List.of("DROP INDEX IF EXISTS " + name);
            case "rule" -> List.of("DROP RULE IF EXISTS " + name + " ON " + table);
            case "policy" ->
                List.of(
                        "DROP POLICY IF EXISTS " + name + " ON " + table,
                        "ALTER TABLE " + table + " DISABLE ROW LEVEL SECURITY");
            default -> List.of("DROP FUNCTION IF EXISTS " + name + "()");
        };
    }

    /** The DDL kinds a backend has (SQLite: trigger, view, index). */
    static int ddlKinds(Dialect d) {
        return d == Dialect.SQLITE ? 3 : DDL_KINDS.size();
    }

    @Override
    public String toString() {
        if (form == Form.DDL) {
            return "DDL: a " + DDL_KINDS.get(variant % DDL_KINDS.size()) + " " + ddlName() + " on " + table
                    + (variant % DDL_KINDS.size() == 2 ? " (" + column + ")" : "");
        }
        return form + " " + table + (form == Form.DELETE ? "" : "." + column + " = " + value)
                + " (row " + (pick < 0 ? "the victim's live one" : "#" + pick) + ", variant " + variant
                + (recursive ? ", recursive_triggers" : "") + ")";
    }
}
