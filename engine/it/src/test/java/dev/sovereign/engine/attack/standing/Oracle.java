package dev.sovereign.engine.attack.standing;

import static dev.sovereign.engine.attack.standing.Facts.flag;
import static dev.sovereign.engine.attack.standing.Facts.integer;
import static dev.sovereign.engine.attack.standing.Facts.same;
import static dev.sovereign.engine.attack.standing.Facts.sameCell;

import dev.sovereign.engine.testing.Stripes;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Decides whether an attack got through (docs/decisions/0013). It compares the ledger's facts before the attack
 * with those after, knowing only whether the database refused the statements, who the attacker is and what the
 * true time is; the engines' behaviour afterwards is judged by {@link Probes}. Each violation is one line that
 * starts with its rule, e.g. {@code [lease.live-lost]}.
 *
 * <p>What it demands of every accepted attack, on both backends: a grant (lease, attempt, claim) live at the
 * attack keeps its holder and token; a new token anywhere is one minted for it (above the counter as it was);
 * every counter is one integer row that only rises, and by no more than any transaction mints; the journal, the
 * supervisor's ticks, the receipts, the ledger's mark and the migration record keep every row they had; an
 * attempt, an assignment and a message change only the way their fence allows (forward, by their own token or
 * attempt, a claim or a run taken only once expired, a retry of a FAILED or BLOCKED assignment, an
 * acknowledgement of one); every time is an integer, every TTL at most a year, every expiry within its TTL of the
 * write's own stamp; a process that a grant names keeps its row; and the schema has no object it did not have. A
 * refused attack must have left every row as it was.
 *
 * <p>What differs by backend is the clock. On PostgreSQL the server's clock (pinned to the test's) is the only
 * one, and the attacker is another host's worker login: it may not move another process's session row at all,
 * nor its own (the processes its login registered) but forward to the server's time; no live lease of another
 * login's process moves its expiry backwards (its holder's own login may shorten it), nothing is stamped ahead of the server's clock; attempts and claims it writes are in its own
 * processes' names; retries and acknowledgements are the operator's. On SQLite the file has no clock but its writers' and no logins (decision 0006, docs/schema.md): a
 * writer's own stamps are taken as the time, so the oracle judges time there only where no clock is needed —
 * types, an expiry against the row's own renewal plus its TTL, a claim's or an attempt's expiry never moving
 * backwards under the same grant — and liveness by the times the ledger states after the attack.
 */
final class Oracle {
    /** No transaction mints more tokens than this: a counter step beyond it is a wound counter (issue 32 item 2). */
    static final long MAX_STEP = 1L << 31;

    private final World world;
    private final Dialect d;
    private final Facts before;
    private final Facts after;
    private final long now;
    private final String attacker;
    /** The attacker's login on a server (null on SQLite): the processes it registers are its own too. */
    private final String attackerLogin;

    private final List<String> out = new ArrayList<>();

    private Oracle(World world, Facts before, Facts after) {
        this.world = world;
        this.d = world.dialect();
        this.before = before;
        this.after = after;
        this.now = world.now();
        this.attacker = world.b().processIdentity();
        this.attackerLogin = world.attackerLogin();
    }

    /** The violations of an attack the database accepted ({@code refused} false) or refused. */
    static List<String> judge(World world, Strike strike, Facts before, Facts after, boolean refused) {
        Oracle o = new Oracle(world, before, after);
        if (refused) {
            for (String diff : before.differences(after)) {
                o.v("refused.changed", "the database refused the attack, yet " + diff);
            }
            return o.out;
        }
        if (strike.form() != Strike.Form.DDL && !before.schema().equals(after.schema())) {
            o.v(
                    "schema.changed",
                    "the schema changed: " + before.differences(new Facts(o.d, before.tables(), after.schema())));
        }
        o.counters();
        o.leases();
        o.sessions();
        o.attempts();
        o.assignments();
        o.receipts();
        o.messages();
        o.journal();
        o.ticks();
        o.retention();
        o.contention();
        o.unchanged("ledger_mark", "mark");
        o.kept("schema_migrations", "migrations");
        if (o.pg()) {
            o.unchanged("server_clock", "clock");
        }
        o.unjudged();
        return o.out;
    }

    private void v(String rule, String what) {
        out.add("[" + rule + "] " + what);
    }

    private boolean pg() {
        return d == Dialect.POSTGRES;
    }

    /**
     * Whether a process is the attacker's own: its host's engine, or on a server any process its login registered
     * (the {@code login} a session row records from schema version 8 on), which it may write as its own.
     */
    private boolean ownedByAttacker(Object process) {
        if (attacker.equals(process)) {
            return true;
        }
        if (attackerLogin == null) {
            return false;
        }
        for (Facts f : List.of(before, after)) {
            Map<String, Object> p = f.row("processes", process);
            if (p != null && attackerLogin.equals(p.get("login"))) {
                return true;
            }
        }
        return false;
    }

    /** Whether a lease row's TTL, times and attachment are as they were (what its holder's writes move). */
    private static boolean sameFence(Map<String, Object> l0, Map<String, Object> l1) {
        for (String column : List.of("ttl_ms", "acquired_at", "renewed_at", "expires_at", "attached")) {
            if (!sameCell(l0.get(column), l1.get(column))) {
                return false;
            }
        }
        return true;
    }

    private String who(Object process) {
        if (process == null) {
            return "nobody";
        }
        if (process.equals(world.a().processIdentity())) {
            return "A";
        }
        if (process.equals(attacker)) {
            return "B";
        }
        return String.valueOf(process);
    }

    // ---- counters ----------------------------------------------------------------------------------------

    private void counters() {
        counter("token_counter", "last_token");
        counter("lease_change_counter", "last_change");
    }

    private void counter(String table, String column) {
        // one row (id 1); the token counter on PostgreSQL one per stripe, ids 0 to 63 (schema version 19)
        long rowsOwed = table.equals("token_counter") && pg() ? 64 : 1;
        List<Map<String, Object>> rows = after.rows(table);
        List<Map<String, Object>> was = before.rows(table);
        java.util.Set<Long> ids = new java.util.TreeSet<>();
        rows.forEach(r -> ids.add(integer(r.get("id"))));
        java.util.Set<Long> owed = new java.util.TreeSet<>();
        for (long id = rowsOwed == 1 ? 1 : 0; owed.size() < rowsOwed; id++) {
            owed.add(id);
        }
        if (rows.size() != rowsOwed || !ids.equals(owed) || was.size() != rowsOwed) {
            v(
                    "counter.rows",
                    table + " holds " + rows + " instead of its " + (rowsOwed == 1 ? "one row" : "rows " + owed));
            return;
        }
        for (Map<String, Object> row : rows) {
            Object id = row.get("id");
            Map<String, Object> old = was.stream()
                    .filter(r -> Objects.equals(integer(r.get("id")), integer(id)))
                    .findFirst()
                    .orElseThrow();
            counterRow(table + (rowsOwed == 1 ? "" : "[" + id + "]"), column, old.get(column), row.get(column));
            Long is = integer(row.get(column));
            if (rowsOwed > 1 && is != null && Math.floorMod(is, rowsOwed) != integer(id)) {
                // a stripe off its residue issues another stripe's tokens: a token issued twice
                v(
                        "counter.residue",
                        table + "[" + id + "]." + column + " holds " + is + ", not " + id + " modulo " + rowsOwed);
            }
        }
    }

    private void counterRow(String table, String column, Object before, Object value) {
        Long was = integer(before);
        Long is = integer(value);
        if (is == null) {
            v(
                    "counter.type",
                    table + "." + column + " holds " + describe(value) + ", not an integer (it was " + was + ")");
            return;
        }
        if (is < was) {
            v("counter.decreased", table + "." + column + " went down from " + was + " to " + is);
        } else if (is - was > MAX_STEP) {
            v(
                    "counter.jump",
                    table + "." + column + " jumped from " + was + " to " + is + " (" + (is - was)
                            + " at once: no transaction mints that many; a wound counter ends every later grant)");
        }
    }

    static String describe(Object value) {
        return value == null
                ? "NULL"
                : value.getClass().getSimpleName() + " "
                        + (value instanceof byte[] b ? HexFormat.of().formatHex(b) : value);
    }

    // ---- leases and the sessions they are attached to ------------------------------------------------------

    /** The holder's last beat as {@code facts} has it, or null when the holder has no row (or no integer beat). */
    private static Long beat(Facts facts, Object process) {
        Map<String, Object> p = facts.row("processes", process);
        return p == null ? null : integer(p.get("heartbeat_at"));
    }

    /**
     * A lease row's effective expiry (decision 0509) with the holder's beat {@code beat}: the later of its own
     * expiry and the beat plus its TTL for an attached row. Null when a cell it needs is not an integer.
     */
    static Long effectiveExpiry(Map<String, Object> lease, Long beat) {
        Long expires = integer(lease.get("expires_at"));
        Long ttl = integer(lease.get("ttl_ms"));
        Boolean attached = flag(lease.get("attached"));
        if (expires == null || ttl == null || attached == null) {
            return null;
        }
        return attached && beat != null ? Math.max(expires, beat + ttl) : expires;
    }

    /**
     * Whether a lease row of {@link #before} was live at the attack. On PostgreSQL by the facts before the attack
     * (the server's clock; a session row moved by another login is a violation of its own); on SQLite by the
     * holder's session as the ledger states it after the attack (a writer's stamp is the file's time).
     */
    boolean liveBefore(Map<String, Object> lease) {
        Object holder = lease.get("process_identity");
        Long beat = pg() || after.row("processes", holder) == null ? beat(before, holder) : beat(after, holder);
        Long eff = effectiveExpiry(lease, beat);
        return eff != null && eff > now;
    }

    /**
     * Why a lease row, as the engines read it, could not have been written by a grant or a renewal; null when it
     * could. The engines read an attached row's renewal and expiry through its holder's session (decision 0509: the
     * later of the row's own and the beat's, by SQL's ordering, in which on SQLite a text sorts after every number),
     * so a stray value the session covers is no fact at all, while one that wins over it is.
     */
    static String impossible(Map<String, Object> l, long counter, Object beat) {
        Boolean attached = flag(l.get("attached"));
        if (attached == null) {
            return "attached = " + describe(l.get("attached"));
        }
        Long token = integer(l.get("token"));
        Long ttl = integer(l.get("ttl_ms"));
        Long acquired = integer(l.get("acquired_at"));
        Object renewedCell = l.get("renewed_at");
        Object expiresCell = l.get("expires_at");
        Long beatMs = integer(beat);
        if (attached && beat != null) {
            renewedCell = sqlMax(renewedCell, beat);
            expiresCell = ttl == null || beatMs == null ? sqlMax(expiresCell, beat) : sqlMax(expiresCell, beatMs + ttl);
        }
        Long renewed = integer(renewedCell);
        Long expires = integer(expiresCell);
        if (token == null || ttl == null || renewed == null || expires == null || acquired == null) {
            return "a cell that is not an integer as the engines read it (token " + describe(l.get("token")) + ", ttl "
                    + describe(l.get("ttl_ms")) + ", renewed " + describe(renewedCell) + ", expires "
                    + describe(expiresCell) + ", acquired " + describe(l.get("acquired_at")) + ")";
        }
        if (token <= 0 || token > counter) {
            return "token " + token + " the counter (" + counter + ") never issued";
        }
        if (ttl <= 0 || expires > renewed + ttl) {
            return "expiry " + expires + " beyond its renewal " + renewed + " plus its TTL " + ttl;
        }
        return null;
    }

    /** SQLite's max() of two cells: NULL below numbers, numbers by value, then text, then blobs. */
    static Object sqlMax(Object x, Object y) {
        if (x == null || y == null) {
            return null; // max() of anything with NULL is NULL
        }
        int rx = rank(x);
        int ry = rank(y);
        if (rx != ry) {
            return rx > ry ? x : y;
        }
        if (x instanceof Number nx && y instanceof Number ny) {
            return Double.compare(nx.doubleValue(), ny.doubleValue()) >= 0 ? x : y;
        }
        return x.toString().compareTo(y.toString()) >= 0 ? x : y;
    }

    private static int rank(Object v) {
        return v instanceof Number || v instanceof Boolean ? 1 : v instanceof byte[] ? 3 : 2;
    }

    private void leases() {
        Set<Object> actors = new HashSet<>();
        for (Map<String, Object> l0 : before.rows("actor_leases")) {
            Object actor = l0.get("actor_id");
            actors.add(actor);
            Map<String, Object> l1 = after.row("actor_leases", actor);
            boolean live = liveBefore(l0);
            String was = "the live lease of " + actor + " (holder " + who(l0.get("process_identity")) + ", token "
                    + l0.get("token") + ")";
            if (live && l1 == null) {
                v("lease.live-lost", was + " was deleted" + journalNote(actor));
                continue;
            }
            if (l1 == null || same(l0, l1)) {
                continue;
            }
            boolean sameGrant = sameCell(l0.get("process_identity"), l1.get("process_identity"))
                    && sameCell(l0.get("token"), l1.get("token"));
            if (live && !sameGrant) {
                v(
                        "lease.live-lost",
                        was + " now names holder " + who(l1.get("process_identity")) + " with token "
                                + describe(l1.get("token")) + journalNote(actor));
            }
            if (!sameCell(l0.get("token"), l1.get("token"))) {
                freshToken("lease.token-not-minted", "the lease of " + actor, l1.get("token"), actor);
            }
            if (pg() && sameGrant && !ownedByAttacker(l0.get("process_identity")) && !sameFence(l0, l1)) {
                v(
                        "lease.written-by-another-login",
                        was + ": its times or attachment were rewritten by another host's"
                                + " login (schema version 12 binds a lease's writes to its holder's login)");
            }
            // the holder's own login may shorten its lease (a renewal with a shorter TTL, an abandon); another login
            // may not touch it at all (schema version 12, decision 0917)
            if (pg() && live && sameGrant && !ownedByAttacker(l0.get("process_identity"))) {
                Long eff0 = effectiveExpiry(l0, beat(before, l0.get("process_identity")));
                Long eff1 = effectiveExpiry(l1, beat(after, l1.get("process_identity")));
                if (eff1 != null && eff1 < eff0) {
                    v(
                            "lease.backwards",
                            was + ": its effective expiry moved back from " + eff0 + " to " + eff1 + " (now " + now
                                    + ")");
                }
            }
            leaseRow(actor, l1);
        }
        for (Map<String, Object> l1 : after.rows("actor_leases")) {
            if (!actors.contains(l1.get("actor_id"))) {
                freshToken(
                        "lease.token-not-minted",
                        "the new lease of " + l1.get("actor_id"),
                        l1.get("token"),
                        l1.get("actor_id"));
                leaseRow(l1.get("actor_id"), l1);
            }
        }
    }

    /** The limits a changed or new lease row must keep (its impossibility is judged by the engines: {@link Probes}). */
    private void leaseRow(Object actor, Map<String, Object> l1) {
        Long ttl = integer(l1.get("ttl_ms"));
        if (ttl != null && ttl > Value.YEAR) {
            v(
                    "lease.ttl-limit",
                    "the lease of " + actor + " has a TTL of " + ttl + " ms, beyond the 365 days the" + " API allows");
        }
        if (pg()) {
            Long renewed = integer(l1.get("renewed_at"));
            Long eff = effectiveExpiry(l1, beat(after, l1.get("process_identity")));
            if (renewed != null && renewed > now) {
                v(
                        "lease.ahead-of-clock",
                        "the lease of " + actor + " says it was renewed at " + renewed + ", after the server's clock ("
                                + now + ")");
            }
            if (eff != null && ttl != null && eff > now + ttl) {
                v(
                        "lease.beyond-ttl",
                        "the lease of " + actor + " lives until " + eff + ", more than its TTL " + ttl
                                + " after the server's clock (" + now + ")");
            }
        }
    }

    private String journalNote(Object actor) {
        boolean journalled = after.rows("fence_events").stream()
                .filter(e -> before.row("fence_events", e.get("seq")) == null)
                .anyMatch(e -> actor.equals(e.get("resource_id")));
        return journalled ? "" : "; the journal shows neither a release nor a takeover";
    }

    /**
     * {@code token}, carried by a resource of {@code actor}, was minted for it: above what the counter row that issues
     * it held before the strike and, on PostgreSQL, from the actor's own stripe (schema version 19, decision 0924).
     */
    private void freshToken(String rule, String what, Object token, Object actor) {
        Long t = integer(token);
        long counterBefore = t == null ? before.counterValue() : before.counterValueFor(t, pg());
        if (t == null || t <= counterBefore) {
            v(
                    rule,
                    what + " carries token " + describe(token) + ", not one minted for it (the counter was at "
                            + counterBefore + ")");
        } else if (pg() && actor != null && Math.floorMod(t, 64L) != Stripes.of(actor.toString())) {
            v(
                    rule,
                    what + " carries token " + t + ", minted on stripe " + Math.floorMod(t, 64L) + ", not on " + actor
                            + "'s stripe " + Stripes.of(actor.toString()));
        }
    }

    private void sessions() {
        Set<Object> named = new HashSet<>();
        before.rows("actor_leases").forEach(l -> named.add(l.get("process_identity")));
        before.rows("execution_attempts").stream()
                .filter(t -> "ACTIVE".equals(t.get("state")))
                .forEach(t -> named.add(t.get("process_identity")));
        before.rows("messages").stream()
                .filter(m -> "CLAIMED".equals(m.get("state")))
                .forEach(m -> named.add(m.get("claim_process")));
        for (Map<String, Object> p0 : before.rows("processes")) {
            Object id = p0.get("identity");
            Map<String, Object> p1 = after.row("processes", id);
            if (p1 == null) {
                if (named.contains(id)) {
                    v("session.gone", "the session row of " + who(id) + ", whose grants are alive on it, is gone");
                }
                continue;
            }
            if (integer(p1.get("heartbeat_at")) == null
                    || (p1.get("stopped_at") != null && integer(p1.get("stopped_at")) == null)) {
                v(
                        "session.type",
                        "the session row of " + who(id) + " holds heartbeat_at "
                                + describe(p1.get("heartbeat_at")) + ", stopped_at " + describe(p1.get("stopped_at"))
                                + ": a time that is not an integer");
                continue;
            }
            if (!pg() || same(p0, p1)) {
                continue;
            }
            boolean moved = !sameCell(p0.get("heartbeat_at"), p1.get("heartbeat_at"))
                    || !sameCell(p0.get("stopped_at"), p1.get("stopped_at"));
            if (!ownedByAttacker(id)) {
                if (moved) {
                    v(
                            "session.moved-by-another-login",
                            "another host's login moved the session row of " + who(id)
                                    + ": heartbeat_at " + p0.get("heartbeat_at") + " -> " + p1.get("heartbeat_at")
                                    + ", stopped_at " + p0.get("stopped_at") + " -> " + p1.get("stopped_at") + " (now "
                                    + now + ")");
                }
                continue;
            }
            long hb0 = integer(p0.get("heartbeat_at"));
            long hb1 = integer(p1.get("heartbeat_at"));
            if (hb1 < hb0 || hb1 > now) {
                // its own row: a beat, stamped by the server's clock, only forward (when it stops is its own affair)
                v(
                        "session.own-not-by-the-clock",
                        "the attacker's own session row moved other than forward to the"
                                + " server's clock: heartbeat_at " + hb0 + " -> " + hb1 + " (now " + now + ")");
            }
        }
    }

    // ---- attempts, assignments, receipts --------------------------------------------------------------------

    private static final List<String> ATTEMPT_IDENTITY =
            List.of("assignment_id", "actor_id", "process_identity", "token", "lease_token", "started_at", "ttl_ms");

    private void attempts() {
        Set<Object> ids = new HashSet<>();
        for (Map<String, Object> t0 : before.rows("execution_attempts")) {
            Object id = t0.get("id");
            ids.add(id);
            Map<String, Object> t1 = after.row("execution_attempts", id);
            if (t1 == null) {
                v("attempt.deleted", "attempt " + id + " is gone");
                continue;
            }
            if (same(t0, t1)) {
                continue;
            }
            for (String c : ATTEMPT_IDENTITY) {
                if (!sameCell(t0.get(c), t1.get(c))) {
                    v(
                            "attempt.identity",
                            "attempt " + id + " changed its " + c + " from " + t0.get(c) + " to "
                                    + describe(t1.get(c)));
                }
            }
            if (!"ACTIVE".equals(t0.get("state"))) {
                v("attempt.ended-changed", "the ended attempt " + id + " (" + t0.get("state") + ") changed: " + t1);
                continue;
            }
            long expires0 = integer(t0.get("expires_at"));
            boolean live = expires0 > now;
            Long expires1 = integer(t1.get("expires_at"));
            Long renewed1 = integer(t1.get("renewed_at"));
            Long ttl = integer(t0.get("ttl_ms"));
            if (expires1 == null || renewed1 == null) {
                v(
                        "attempt.type",
                        "attempt " + id + " holds expires_at " + describe(t1.get("expires_at")) + ", renewed_at "
                                + describe(t1.get("renewed_at")));
                continue;
            }
            if (expires1 < expires0 || renewed1 < integer(t0.get("renewed_at"))) {
                v(
                        "attempt.backwards",
                        "attempt " + id + "'s expiry or renewal moved back: expires " + expires0 + " -> " + expires1
                                + ", renewed " + t0.get("renewed_at") + " -> " + renewed1);
            }
            if (!expires1.equals(expires0) && expires1 > renewed1 + ttl) {
                v(
                        "attempt.beyond-ttl",
                        "attempt " + id + " expires at " + expires1 + ", beyond its renewal " + renewed1
                                + " plus its TTL " + ttl);
            }
            if (pg() && renewed1 > Math.max(now, integer(t0.get("renewed_at")))) {
                v(
                        "attempt.ahead-of-clock",
                        "attempt " + id + " says it was renewed at " + renewed1 + ", after the" + " server's clock ("
                                + now + ")");
            }
            Object state = t1.get("state");
            if ("ACTIVE".equals(state)) {
                continue;
            }
            Map<String, Object> x1 = after.row("assignments", t0.get("assignment_id"));
            boolean endedByIt = x1 != null && id.equals(x1.get("ended_by_attempt"));
            boolean ok = switch (String.valueOf(state)) {
                case "DONE" -> endedByIt && "attempt".equals(x1.get("ended_via"));
                case "RECOVERED" ->
                    !live && endedByIt && "recovery".equals(x1.get("ended_via")) && "FAILED".equals(x1.get("state"));
                case "SUPERSEDED" -> !live;
                case "LOST" -> !live && x1 != null && !id.equals(x1.get("current_attempt"));
                default -> false;
            };
            if (!ok) {
                v(
                        "attempt.ended-outside-its-fence",
                        (live ? "the live" : "the expired") + " attempt " + id + " of "
                                + who(t0.get("process_identity")) + " became " + describe(state) + " (its assignment: "
                                + x1 + ")");
            }
        }
        for (Map<String, Object> t1 : after.rows("execution_attempts")) {
            if (ids.contains(t1.get("id"))) {
                continue;
            }
            freshToken(
                    "attempt.token-not-minted", "the new attempt " + t1.get("id"), t1.get("token"), t1.get("actor_id"));
            Map<String, Object> lease = after.row("actor_leases", t1.get("actor_id"));
            if (!"ACTIVE".equals(t1.get("state"))
                    || lease == null
                    || !sameCell(lease.get("token"), t1.get("lease_token"))
                    || !Objects.equals(lease.get("process_identity"), t1.get("process_identity"))) {
                v(
                        "attempt.forged",
                        "the new attempt " + t1.get("id") + " is not an ACTIVE one bound to its actor's"
                                + " current lease held by its process: " + t1 + " (lease " + lease + ")");
            }
            if (pg() && !ownedByAttacker(t1.get("process_identity"))) {
                v(
                        "attempt.in-another-process-name",
                        "another host's login started attempt " + t1.get("id") + " in the name of "
                                + who(t1.get("process_identity")));
            }
        }
    }

    private static final List<String> ASSIGNMENT_IDENTITY =
            List.of("actor_id", "provider_spec", "workspace_policy", "retry_of", "created_at");
    private static final Set<String> ENDED = Set.of("COMPLETED", "BLOCKED", "FAILED");

    private void assignments() {
        Set<Object> ids = new HashSet<>();
        for (Map<String, Object> x0 : before.rows("assignments")) {
            Object id = x0.get("id");
            ids.add(id);
            Map<String, Object> x1 = after.row("assignments", id);
            if (x1 == null) {
                v("assignment.deleted", "assignment " + id + " is gone");
                continue;
            }
            if (same(x0, x1)) {
                continue;
            }
            for (String c : ASSIGNMENT_IDENTITY) {
                if (!sameCell(x0.get(c), x1.get(c))) {
                    v(
                            "assignment.identity",
                            "assignment " + id + " changed its " + c + " from " + x0.get(c) + " to "
                                    + describe(x1.get(c)));
                }
            }
            Object s0 = x0.get("state");
            Object s1 = x1.get("state");
            boolean forward = Objects.equals(s0, s1)
                    || ("CREATED".equals(s0) && "RUNNING".equals(s1))
                    || ("RUNNING".equals(s0) && ENDED.contains(s1));
            if (!forward) {
                v("assignment.state", "assignment " + id + " moved from " + s0 + " to " + describe(s1));
                continue;
            }
            if (ENDED.contains(s0)) {
                for (String c : List.of("state", "current_attempt", "ended_by_attempt", "ended_via")) {
                    if (!sameCell(x0.get(c), x1.get(c))) {
                        v(
                                "assignment.ended-changed",
                                "the ended assignment " + id + " changed its " + c + " from " + x0.get(c) + " to "
                                        + describe(x1.get(c)));
                    }
                }
            }
            acknowledgement(id, x0, x1);
            if ("RUNNING".equals(s0) && ENDED.contains(s1)) {
                terminal(id, x0, x1);
            }
            Object pointer = x1.get("current_attempt");
            if (pointer != null && !sameCell(pointer, x0.get("current_attempt"))) {
                Map<String, Object> old = before.row("execution_attempts", x0.get("current_attempt"));
                boolean oldLive =
                        old != null && "ACTIVE".equals(old.get("state")) && integer(old.get("expires_at")) > now;
                Map<String, Object> target = after.row("execution_attempts", pointer);
                if (oldLive
                        || target == null
                        || before.row("execution_attempts", pointer) != null
                        || ("RUNNING".equals(s0) && x0.get("current_attempt") == null)) {
                    v(
                            "assignment.pointer",
                            "assignment " + id + "'s current attempt moved from "
                                    + x0.get("current_attempt") + (oldLive ? " (live)" : "") + " to " + pointer
                                    + ", not to an attempt just started after the last one ended");
                }
            }
        }
        for (Map<String, Object> x1 : after.rows("assignments")) {
            if (ids.contains(x1.get("id"))) {
                continue;
            }
            if (!"CREATED".equals(x1.get("state"))
                    || x1.get("current_attempt") != null
                    || x1.get("ended_by_attempt") != null
                    || x1.get("acknowledged_at") != null) {
                v("assignment.forged", "the new assignment " + x1.get("id") + " is not a fresh CREATED one: " + x1);
            }
            Object retryOf = x1.get("retry_of");
            if (retryOf != null) {
                Map<String, Object> origin = before.row("assignments", retryOf);
                boolean retried = before.rows("assignments").stream().anyMatch(o -> retryOf.equals(o.get("retry_of")));
                if (origin == null || !Set.of("FAILED", "BLOCKED").contains(origin.get("state")) || retried) {
                    v(
                            "assignment.retry",
                            "the new assignment " + x1.get("id") + " retries " + retryOf + " ("
                                    + (origin == null ? "no such assignment" : origin.get("state"))
                                    + (retried ? ", already retried" : "")
                                    + "): only a FAILED or BLOCKED one is retried, once");
                } else if (pg()) {
                    v(
                            "assignment.retry-by-a-worker",
                            "a worker login retried " + retryOf + ": retries are the" + " operator's");
                }
            }
        }
    }

    private void acknowledgement(Object id, Map<String, Object> x0, Map<String, Object> x1) {
        if (sameCell(x0.get("acknowledged_at"), x1.get("acknowledged_at"))) {
            return;
        }
        Long ack = integer(x1.get("acknowledged_at"));
        Long failedAt = integer(x0.get("updated_at"));
        if (x0.get("acknowledged_at") != null
                || ack == null
                || !Set.of("FAILED", "BLOCKED").contains(x0.get("state"))
                || !Objects.equals(x0.get("state"), x1.get("state"))
                || ack < failedAt
                || (pg() && ack > now)) {
            v(
                    "assignment.acknowledged",
                    "assignment " + id + " (" + x0.get("state") + ", updated at " + failedAt
                            + ") got acknowledged_at " + describe(x1.get("acknowledged_at")) + " (was "
                            + x0.get("acknowledged_at")
                            + "): only a FAILED or BLOCKED one is acknowledged, once, not before it ended");
        } else if (pg()) {
            v(
                    "assignment.acknowledged-by-a-worker",
                    "a worker login acknowledged assignment " + id + ": acknowledgements are the operator's");
        }
    }

    /** A RUNNING assignment ended: by its current attempt under the lease, or a recovery of an expired one. */
    private void terminal(Object id, Map<String, Object> x0, Map<String, Object> x1) {
        Object by = x1.get("ended_by_attempt");
        Map<String, Object> t = before.row("execution_attempts", by);
        boolean ok = false;
        if (t != null
                && "ACTIVE".equals(t.get("state"))
                && id.equals(t.get("assignment_id"))
                && x1.get("current_attempt") == null) {
            Map<String, Object> lease = after.row("actor_leases", t.get("actor_id"));
            boolean leaseCarries = lease != null
                    && sameCell(lease.get("token"), t.get("lease_token"))
                    && Objects.equals(lease.get("process_identity"), t.get("process_identity"));
            boolean expired = integer(t.get("expires_at")) <= now;
            ok = ("attempt".equals(x1.get("ended_via")) && by.equals(x0.get("current_attempt")) && leaseCarries)
                    || ("recovery".equals(x1.get("ended_via"))
                            && "FAILED".equals(x1.get("state"))
                            && expired
                            && (by.equals(x0.get("current_attempt")) || x0.get("current_attempt") == null));
        }
        if (!ok) {
            v(
                    "assignment.ended-outside-its-fence",
                    "assignment " + id + " ended " + x1.get("state") + " by " + by
                            + " via " + x1.get("ended_via") + " (its current attempt was " + x0.get("current_attempt")
                            + ": "
                            + t + ")");
        }
    }

    private void receipts() {
        kept("receipts", "receipt");
        for (Map<String, Object> r1 : after.rows("receipts")) {
            if (before.rows("receipts").stream().anyMatch(r0 -> sameCell(r0.get("id"), r1.get("id")))) {
                continue;
            }
            Map<String, Object> x0 = before.row("assignments", r1.get("assignment_id"));
            Map<String, Object> x1 = after.row("assignments", r1.get("assignment_id"));
            Map<String, Object> t = after.row("execution_attempts", r1.get("attempt_id"));
            boolean ok = x0 != null
                    && "RUNNING".equals(x0.get("state"))
                    && x1 != null
                    && ENDED.contains(x1.get("state"))
                    && Objects.equals(x1.get("ended_by_attempt"), r1.get("attempt_id"))
                    && t != null
                    && sameCell(t.get("token"), r1.get("attempt_token"));
            if (!ok) {
                v(
                        "receipt.forged",
                        "a receipt appeared for " + r1.get("assignment_id") + " that no fenced end of it"
                                + " in the same transaction wrote: " + r1);
            }
        }
    }

    // ---- messages ---------------------------------------------------------------------------------------------

    private static final List<String> MESSAGE_IDENTITY =
            List.of("sender", "recipient", "subject", "body", "created_at");

    private void messages() {
        for (Map<String, Object> m0 : before.rows("messages")) {
            Object id = m0.get("id");
            Map<String, Object> m1 = after.row("messages", id);
            if (m1 == null) {
                v("message.deleted", "message " + id + " is gone");
                continue;
            }
            if (same(m0, m1)) {
                continue;
            }
            for (String c : MESSAGE_IDENTITY) {
                if (!sameCell(m0.get(c), m1.get(c))) {
                    v("message.identity", "message " + id + " changed its " + c);
                }
            }
            Object s0 = m0.get("state");
            Object s1 = m1.get("state");
            if ("DONE".equals(s0) || "DEAD".equals(s0)) {
                v("message.final-changed", "the finished message " + id + " changed: " + m1);
                continue;
            }
            boolean forward = Objects.equals(s0, s1)
                    || ("NEW".equals(s0) && "CLAIMED".equals(s1))
                    || ("CLAIMED".equals(s0) && Set.of("NEW", "DONE", "DEAD").contains(s1));
            if (!forward) {
                v("message.state", "message " + id + " moved from " + s0 + " to " + describe(s1));
                continue;
            }
            Long expires0 = integer(m0.get("claim_expires_at"));
            boolean live = "CLAIMED".equals(s0) && expires0 != null && expires0 > now;
            boolean sameClaim = "CLAIMED".equals(s1) && sameCell(m0.get("claim_token"), m1.get("claim_token"));
            if ("CLAIMED".equals(s1) && sameClaim) {
                claimKept(id, m0, m1);
            } else if ("CLAIMED".equals(s1)) {
                newClaim(id, m0, m1, live);
            } else if ("CLAIMED".equals(s0)) {
                boolean finish =
                        Set.of("DONE", "DEAD").contains(s1) || !sameCell(m0.get("retry_count"), m1.get("retry_count"));
                if (finish) {
                    Map<String, Object> lease = after.row("actor_leases", m0.get("claim_actor"));
                    boolean hosts =
                            lease != null && Objects.equals(lease.get("process_identity"), m0.get("claim_process"));
                    if (!sameCell(m1.get("finished_with"), m0.get("claim_token")) || !hosts) {
                        v(
                                "claim.finished-outside-its-fence",
                                "message " + id + " became " + s1 + " presenting "
                                        + describe(m1.get("finished_with")) + " (its claim token is "
                                        + m0.get("claim_token")
                                        + (hosts ? "" : "; its claimant no longer hosts the actor") + ")");
                    }
                } else if (live) {
                    v(
                            "claim.swept-live",
                            "the live claim of " + who(m0.get("claim_process")) + " on message " + id + " (until "
                                    + expires0 + ", now " + now + ") was swept back to NEW");
                }
            }
        }
    }

    private void claimKept(Object id, Map<String, Object> m0, Map<String, Object> m1) {
        if (!Objects.equals(m0.get("claim_process"), m1.get("claim_process"))
                || !Objects.equals(m0.get("claim_actor"), m1.get("claim_actor"))) {
            v(
                    "claim.holder-changed",
                    "the claim on message " + id + " kept its token " + m0.get("claim_token") + " but now names "
                            + who(m1.get("claim_process")) + " for " + m1.get("claim_actor"));
        }
        Long e0 = integer(m0.get("claim_expires_at"));
        Long e1 = integer(m1.get("claim_expires_at"));
        if (sameCell(m0.get("claim_expires_at"), m1.get("claim_expires_at"))) {
            return;
        }
        if (e1 == null) {
            v("claim.type", "the claim on message " + id + " expires at " + describe(m1.get("claim_expires_at")));
            return;
        }
        if (e1 < e0) {
            v(
                    "claim.backwards",
                    "the claim of " + who(m0.get("claim_process")) + " on message " + id
                            + " had its expiry moved back from " + e0 + " to " + e1 + " (now " + now + ")");
        }
        Long stamp = pg() ? Long.valueOf(now) : integer(m1.get("updated_at"));
        if (stamp == null || e1 > stamp + Value.YEAR) {
            v(
                    "claim.beyond-limit",
                    "the claim on message " + id + " now lasts until " + e1 + ", more than a year after "
                            + (pg() ? "the server's clock (" : "its own write (") + stamp + ")");
        }
    }

    private void newClaim(Object id, Map<String, Object> m0, Map<String, Object> m1, boolean live) {
        if (live) {
            v(
                    "claim.taken-live",
                    "the live claim of " + who(m0.get("claim_process")) + " on message " + id
                            + " (until " + m0.get("claim_expires_at") + ", now " + now + ") was replaced by one for "
                            + who(m1.get("claim_process")));
        }
        freshToken(
                "claim.token-not-minted", "the new claim on message " + id, m1.get("claim_token"), m1.get("recipient"));
        Map<String, Object> lease = after.row("actor_leases", m1.get("recipient"));
        if (lease == null
                || !Objects.equals(lease.get("process_identity"), m1.get("claim_process"))
                || !Objects.equals(m1.get("claim_actor"), m1.get("recipient"))) {
            v(
                    "claim.not-a-host",
                    "message " + id + " was claimed for " + who(m1.get("claim_process"))
                            + ", which does not host its recipient " + m1.get("recipient"));
        }
        Long e1 = integer(m1.get("claim_expires_at"));
        Long stamp = pg() ? Long.valueOf(now) : integer(m1.get("updated_at"));
        if (e1 == null || stamp == null || e1 > stamp + Value.YEAR) {
            v(
                    "claim.beyond-limit",
                    "the new claim on message " + id + " expires at " + describe(m1.get("claim_expires_at"))
                            + ", more than a year after " + stamp);
        }
        if (pg() && !ownedByAttacker(m1.get("claim_process"))) {
            v(
                    "claim.in-another-process-name",
                    "another host's login claimed message " + id + " in the name of " + who(m1.get("claim_process")));
        }
    }

    // ---- what only grows, and what never changes ------------------------------------------------------------

    /**
     * The tables this oracle knows the rules of (the actors and the tombstones are judged by what they do to the
     * grants: the probes). A table a later migration added, that no rule covers yet, must not change under a
     * strike: an accepted write to it is reported until someone teaches the oracle what may change there.
     */
    static final Set<String> JUDGED = Set.of(
            "token_counter",
            "lease_change_counter",
            "processes",
            "actors",
            "actor_leases",
            "lease_tombstones",
            "assignments",
            "execution_attempts",
            "receipts",
            "messages",
            "fence_events",
            "supervisor_ticks",
            "retention",
            "lease_contention",
            "ledger_mark",
            "schema_migrations",
            "server_clock");

    private void unjudged() {
        for (String table : after.tables().keySet()) {
            if (JUDGED.contains(table)) {
                continue;
            }
            List<Map<String, Object>> rows0 = before.rows(table);
            List<Map<String, Object>> rows1 = after.rows(table);
            boolean changed = rows0.size() != rows1.size();
            for (int i = 0; !changed && i < rows0.size(); i++) {
                changed = !same(rows0.get(i), rows1.get(i));
            }
            if (changed) {
                v(
                        "table.unjudged",
                        "an accepted strike changed " + table + ", a table the oracle has no rules for yet"
                                + " (teach it: CONTRIBUTING.md): " + rows0.size() + " rows before, " + rows1.size()
                                + " after");
            }
        }
    }

    // ---- retention (decision 0018) and contention (decision 0019) ------------------------------------------------

    private static final long WINDOW_MS = 600_000L;
    private static final long MIN_KEEP_MS = 3_600_000L;
    private static final long MAX_KEEP_MS = 3_153_600_000_000L;

    /** The journal's retention row as the facts hold it (kind 'journal'), or null. */
    private static Map<String, Object> policy(Facts f) {
        return f.row("retention", "journal");
    }

    /**
     * The time the retention rules measure from: the newest row's time of {@code table}, never past the server's
     * clock on PostgreSQL; on SQLite the writer's times are believed (as every time there), so a strike that dates a
     * row in the future may make the rest old in the same transaction: the later of before and after.
     */
    private Long retentionNow(String table) {
        Long b = newestAt(before, table);
        if (pg()) {
            return b == null ? null : Long.valueOf(Math.min(b, now));
        }
        Long a = newestAt(after, table);
        if (a == null || b == null) {
            return a == null ? b : a;
        }
        return Long.valueOf(Math.max(a, b));
    }

    /** The newest row's time of {@code table} in {@code f}. */
    private static Long newestAt(Facts f, String table) {
        return f.rows(table).stream()
                .max(java.util.Comparator.comparing(
                        r -> integer(r.get("seq")), java.util.Comparator.nullsFirst(Long::compare)))
                .map(r -> integer(r.get("at")))
                .orElse(null);
    }

    /**
     * The journal: rows stay as they were and new rows come after the last one, except that a row may go when it is
     * below the watermark, older than the policy and needed by no live row (decision 0018's rules, judged here on the
     * facts before the strike, independently of the database's guards).
     */
    private void journal() {
        Map<String, Object> p = policy(before);
        Long mark = p == null ? null : integer(p.get("pruned_below"));
        Long keep = p == null ? null : integer(p.get("keep_ms"));
        Long newest = retentionNow("fence_events");
        long last = lastSeq(before, "fence_events");
        for (Map<String, Object> r0 : before.rows("fence_events")) {
            Map<String, Object> r1 = after.row("fence_events", r0.get("seq"));
            if (r1 != null) {
                if (!same(r0, r1)) {
                    v("journal.changed", "fence_events row " + r0 + " became " + r1);
                }
                continue;
            }
            Long seq = integer(r0.get("seq"));
            Long at = integer(r0.get("at"));
            String why = mark == null || seq == null || seq >= mark
                    ? "it was not below the watermark " + mark
                    : at == null || keep == null || newest == null || at > newest - keep
                            ? "it was younger than the policy"
                            : neededBy(r0);
            if (why != null) {
                v("journal.pruned", "the journal row " + r0 + " is gone, but " + why);
            }
        }
        onlyAfterTheLast("fence_events", "journal", last);
    }

    /** Why a journal row below the watermark must stay (a live row needs it), or null when it may go. */
    private String neededBy(Map<String, Object> e) {
        Object type = e.get("resource_type");
        Object id = e.get("resource_id");
        if ("ledger".equals(type)) {
            return "it was one of the ledger's own events";
        }
        Long token = integer(e.get("token"));
        if (token != null && ("LEASE_ACQUIRED".equals(e.get("kind")) || "LEASE_TAKEN_OVER".equals(e.get("kind")))) {
            for (Map<String, Object> l : before.rows("actor_leases")) {
                if (sameCell(l.get("actor_id"), e.get("actor_id")) && token.equals(integer(l.get("token")))) {
                    return "it was the grant of " + e.get("actor_id") + "'s current lease";
                }
            }
        }
        Object assignment = "assignment".equals(type) ? id : null;
        if ("attempt".equals(type)) {
            Map<String, Object> t = before.row("execution_attempts", id);
            assignment = t == null ? null : t.get("assignment_id");
        }
        Map<String, Object> a = assignment == null ? null : before.row("assignments", assignment);
        if (a != null) {
            Object state = a.get("state");
            boolean retried =
                    before.rows("assignments").stream().anyMatch(r -> sameCell(r.get("retry_of"), a.get("id")));
            boolean unsettled = "CREATED".equals(state)
                    || "RUNNING".equals(state)
                    || (("FAILED".equals(state) || "BLOCKED".equals(state))
                            && a.get("acknowledged_at") == null
                            && !retried);
            if (unsettled) {
                return "its run " + a.get("id") + " was not settled";
            }
        }
        if ("message".equals(type)) {
            Map<String, Object> m = before.row("messages", id);
            if (m != null && !"DONE".equals(m.get("state")) && !"DEAD".equals(m.get("state"))) {
                return "its message was not finished";
            }
        }
        boolean keepsNewest = "actor".equals(type)
                || ("assignment".equals(type) && before.row("assignments", id) != null)
                || ("message".equals(type) && before.row("messages", id) != null)
                || ("process".equals(type)
                        && before.row("processes", id) != null
                        && before.row("processes", id).get("stopped_at") == null);
        if (keepsNewest) {
            Long seq = integer(e.get("seq"));
            boolean newer = before.rows("fence_events").stream()
                    .anyMatch(n -> sameCell(n.get("resource_type"), type)
                            && sameCell(n.get("resource_id"), id)
                            && integer(n.get("seq")) != null
                            && seq != null
                            && integer(n.get("seq")) > seq);
            if (!newer) {
                return "it was the newest event of " + type + " " + id;
            }
        }
        return null;
    }

    /** The ticks: append-only, except that a tick older than the policy may go, never the newest. */
    private void ticks() {
        Map<String, Object> p = policy(before);
        Long keep = p == null ? null : integer(p.get("keep_ms"));
        Long newest = retentionNow("supervisor_ticks");
        long last = lastSeq(before, "supervisor_ticks");
        for (Map<String, Object> r0 : before.rows("supervisor_ticks")) {
            Map<String, Object> r1 = after.row("supervisor_ticks", r0.get("seq"));
            if (r1 == null) {
                Long seq = integer(r0.get("seq"));
                Long at = integer(r0.get("at"));
                if (seq == null || seq >= last || keep == null || newest == null || at == null || at > newest - keep) {
                    v("ticks.pruned", "the tick " + r0 + " is gone, but it was the newest or younger than the policy");
                }
            } else if (!same(r0, r1)) {
                v("ticks.changed", "supervisor_ticks row " + r0 + " became " + r1);
            }
        }
        onlyAfterTheLast("supervisor_ticks", "ticks", last);
    }

    /** The policy row: one, kind fixed, a sane policy, a watermark that moves only forward and only over old rows. */
    private void retention() {
        if (after.rows("retention").size() != before.rows("retention").size()) {
            v(
                    "retention.rows",
                    "retention has " + after.rows("retention").size() + " rows instead of "
                            + before.rows("retention").size());
        }
        Map<String, Object> p0 = policy(before);
        Map<String, Object> p1 = policy(after);
        if (p0 == null || p1 == null || same(p0, p1)) {
            if (p0 != null && p1 == null) {
                v("retention.rows", "the journal's retention row is gone");
            }
            return;
        }
        Long keep = integer(p1.get("keep_ms"));
        if (keep == null || keep < MIN_KEEP_MS || keep > MAX_KEEP_MS) {
            v("retention.keep", "the journal's retention became " + describe(p1.get("keep_ms")));
        }
        for (String c : List.of("pruned_below", "pruned_rows")) {
            Long x0 = integer(p0.get(c));
            Long x1 = integer(p1.get(c));
            if (x1 == null || (x0 != null && x1 < x0)) {
                v("retention.backwards", "retention." + c + " moved from " + x0 + " to " + describe(p1.get(c)));
            }
        }
        Long at0 = integer(p0.get("pruned_at"));
        Long at1 = integer(p1.get("pruned_at"));
        if (at0 != null && (at1 == null || at1 < at0)) {
            v("retention.backwards", "retention.pruned_at moved from " + at0 + " to " + describe(p1.get("pruned_at")));
        }
        Long m0 = integer(p0.get("pruned_below"));
        Long m1 = integer(p1.get("pruned_below"));
        if (m0 != null && m1 != null && m1 > m0 && keep != null) {
            Long newest = retentionNow("fence_events");
            long last = lastSeq(before, "fence_events");
            if (m1 > last) {
                v("retention.past-the-newest", "the watermark moved to " + m1 + ", past the newest row " + last);
            }
            for (Map<String, Object> e : before.rows("fence_events")) {
                Long seq = integer(e.get("seq"));
                Long at = integer(e.get("at"));
                if (seq != null && seq >= m0 && seq < m1 && (newest == null || at == null || at > newest - keep)) {
                    v("retention.young", "the watermark moved over the row " + seq + ", younger than the policy");
                    break;
                }
            }
        }
    }

    /** Contention windows: open with one refusal, count by one, keep their identity, go only when old. */
    private void contention() {
        Map<String, Map<String, Object>> w0 = windows(before);
        Map<String, Map<String, Object>> w1 = windows(after);
        Map<String, Object> p = policy(before);
        Long keep = p == null ? null : integer(p.get("keep_ms"));
        Long newest = retentionNow("fence_events");
        for (Map.Entry<String, Map<String, Object>> e : w0.entrySet()) {
            Map<String, Object> c0 = e.getValue();
            Map<String, Object> c1 = w1.get(e.getKey());
            if (c1 == null) {
                Long last = integer(c0.get("last_at"));
                if (last == null || keep == null || newest == null || last > newest - keep) {
                    v(
                            "contention.pruned",
                            "the contention window " + c0 + " is gone, but it was younger than the policy");
                }
                continue;
            }
            if (same(c0, c1)) {
                continue;
            }
            Long n0 = integer(c0.get("refusals"));
            Long n1 = integer(c1.get("refusals"));
            Long l0 = integer(c0.get("last_at"));
            Long l1 = integer(c1.get("last_at"));
            if (!sameCell(c0.get("first_at"), c1.get("first_at"))
                    || !sameCell(c0.get("first_seq"), c1.get("first_seq"))
                    || n0 == null
                    || n1 == null
                    || n1 != n0 + 1
                    || l0 == null
                    || l1 == null
                    || l1 < l0
                    || l1 >= integer(c0.get("window_start")) + WINDOW_MS) {
                v("contention.count", "the contention window " + c0 + " became " + c1);
            }
        }
        for (Map.Entry<String, Map<String, Object>> e : w1.entrySet()) {
            if (w0.containsKey(e.getKey())) {
                continue;
            }
            Map<String, Object> c = e.getValue();
            Long window = integer(c.get("window_start"));
            Long first = integer(c.get("first_at"));
            boolean opens = window != null
                    && first != null
                    && Math.floorMod(window, WINDOW_MS) == 0
                    && first >= window
                    && first < window + WINDOW_MS
                    && Objects.equals(integer(c.get("refusals")), 1L)
                    && sameCell(c.get("last_at"), c.get("first_at"))
                    && integer(c.get("last_at")) != null
                    && integer(c.get("last_at")) < window + WINDOW_MS;
            if (!opens) {
                v("contention.opened", "a contention window opened as " + c);
            }
        }
    }

    /** The contention rows by their whole key (actor, process, window): the table has a key of three columns. */
    private static Map<String, Map<String, Object>> windows(Facts f) {
        Map<String, Map<String, Object>> out = new java.util.LinkedHashMap<>();
        for (Map<String, Object> r : f.rows("lease_contention")) {
            out.put(r.get("actor_id") + "|" + r.get("process_identity") + "|" + r.get("window_start"), r);
        }
        return out;
    }

    /** The largest seq of {@code table} in {@code f}; 0 when it has none. */
    private static long lastSeq(Facts f, String table) {
        return f.rows(table).stream()
                .map(r -> integer(r.get("seq")))
                .filter(Objects::nonNull)
                .max(Long::compare)
                .orElse(0L);
    }

    /** New rows of {@code table} only after its {@code last} seq before the strike. */
    private void onlyAfterTheLast(String table, String name, long last) {
        for (Map<String, Object> r : after.rows(table)) {
            if (before.row(table, r.get("seq")) == null) {
                Long seq = integer(r.get("seq"));
                if (seq == null || seq <= last) {
                    v(name + ".before-the-last", "a row was written into " + table + " before its last one: " + r);
                }
            }
        }
    }

    /** Every row of {@code table} is still there, unchanged (new ones are judged elsewhere or allowed). */
    private void kept(String table, String name) {
        for (Map<String, Object> r0 : before.rows(table)) {
            Map<String, Object> r1 = after.row(table, r0.get(d.key(table)));
            if (!same(r0, r1)) {
                v(name + ".changed", table + " row " + r0 + (r1 == null ? " is gone" : " became " + r1));
            }
        }
    }

    private void unchanged(String table, String name) {
        kept(table, name);
        if (after.rows(table).size() != before.rows(table).size()) {
            v(
                    name + ".changed",
                    table + " has " + after.rows(table).size() + " rows instead of "
                            + before.rows(table).size());
        }
    }
}
