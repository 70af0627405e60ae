package dev.sovereign.engine.attack.standing;

import static dev.sovereign.engine.attack.standing.Facts.integer;
import static dev.sovereign.engine.attack.standing.Facts.sameCell;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.base.Refusal;
import dev.sovereign.engine.base.RefusalCategory;
import dev.sovereign.engine.lease.Beat;
import dev.sovereign.engine.lease.Lease;
import dev.sovereign.engine.supervisor.TickReport;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The engines' own next operations after an attack, at the same instant (docs/decisions/0013): a stranger's
 * acquire of a lease that is live is refused; the holder's renewal, beat and claim completion still succeed; the
 * supervisor recovers and sweeps only what had expired; the next grant gets a token above every token in the
 * ledger; and a lease row no grant or renewal could have written is refused by every engine as
 * {@code corrupt_lease_state} (decision 0112: detected, never acted on). Each finding is one violation line.
 */
final class Probes {
    private final World world;
    private final Facts before;
    private final Facts after;
    private final long now;
    private final List<String> out = new ArrayList<>();

    private Probes(World world, Facts before, Facts after) {
        this.world = world;
        this.before = before;
        this.after = after;
        this.now = world.now();
    }

    static List<String> run(World world, Facts before, Facts after, boolean accepted) throws SQLException {
        Probes p = new Probes(world, before, after);
        p.leases();
        if (accepted) {
            p.supervisor();
        }
        p.beats();
        p.claims();
        p.nextGrant();
        return p.out;
    }

    private void v(String rule, String what) {
        out.add("[" + rule + "] " + what);
    }

    private String who(Engine e) {
        return e == world.a() ? "A" : e == world.b() ? "B" : "the operator";
    }

    private void leases() {
        long counter = after.counterValue();
        List<Object> actors = new ArrayList<>();
        after.rows("actor_leases").forEach(l -> actors.add(l.get("actor_id")));
        before.rows("actor_leases").forEach(l -> {
            if (!actors.contains(l.get("actor_id"))) {
                actors.add(l.get("actor_id"));
            }
        });
        for (Object actor : actors) {
            Map<String, Object> l0 = before.row("actor_leases", actor);
            Map<String, Object> l1 = after.row("actor_leases", actor);
            String impossible = l1 == null ? null : Oracle.impossible(l1, counter, heartbeat(l1));
            boolean changed = l0 == null || !Facts.same(l0, l1);
            boolean wasLive = l0 != null && live(l0, true);
            boolean isLive = l1 != null && impossible == null && live(l1, false);
            boolean thisTrys = actor.equals(world.actor("w")) || actor.equals(world.actor("x"));
            if (!changed && (!wasLive || !thisTrys)) {
                continue; // untouched: an expired lease, or an earlier try's (its own probes asked already)
            }
            Engine holder = world.engineOf(l1 == null ? null : l1.get("process_identity"));
            Engine stranger = holder == world.a() ? world.b() : world.a();
            boolean strangerGranted = false;
            try {
                Lease granted = stranger.leases().acquire(actor.toString(), Op.TTL);
                strangerGranted = true;
                if (impossible != null) {
                    v(
                            "lease.impossible-undetected",
                            "the impossible lease row of " + actor + " (" + impossible + ") was"
                                    + " taken over by " + who(stranger) + " with token " + granted.token()
                                    + " instead of refused"
                                    + " as corrupt");
                } else if (isLive) {
                    v(
                            "probe.stranger-acquired",
                            who(stranger) + " was granted the live lease of " + actor + " (token " + granted.token()
                                    + ")");
                }
            } catch (Refusal r) {
                if (impossible != null
                        && r.category() != RefusalCategory.CORRUPT_LEASE_STATE
                        && r.category() != RefusalCategory.UNKNOWN_ACTOR) {
                    v(
                            "lease.impossible-undetected",
                            "the impossible lease row of " + actor + " (" + impossible + ") was not called corrupt by "
                                    + who(stranger) + "'s acquire: "
                                    + r.category().code());
                }
            } catch (RuntimeException e) {
                v("probe.storage-error", who(stranger) + "'s acquire of " + actor + " failed: " + e);
            }
            if (strangerGranted || holder == null || l1 == null) {
                continue;
            }
            Long token = integer(l1.get("token"));
            if (token == null) {
                continue;
            }
            try {
                holder.leases().renew(actor.toString(), token);
                if (impossible != null) {
                    v(
                            "lease.impossible-undetected",
                            who(holder) + " renewed the impossible lease row of " + actor + " (" + impossible
                                    + ") instead of refusing it as corrupt");
                }
            } catch (Refusal r) {
                if (impossible != null ? r.category() != RefusalCategory.CORRUPT_LEASE_STATE : isLive) {
                    v(
                            impossible != null ? "lease.impossible-undetected" : "probe.holder-refused",
                            who(holder)
                                    + "'s renewal of its "
                                    + (impossible != null ? "impossible (" + impossible + ")" : "live")
                                    + " lease of " + actor + " was refused: "
                                    + r.category().code() + " " + r.getMessage());
                }
            } catch (RuntimeException e) {
                v("probe.storage-error", who(holder) + "'s renewal of " + actor + " failed: " + e);
            }
        }
    }

    /** The beat of a lease row's holder as the facts after the attack have it (null: no session row). */
    private Object heartbeat(Map<String, Object> lease) {
        Map<String, Object> p = after.row("processes", lease.get("process_identity"));
        return p == null ? null : p.get("heartbeat_at");
    }

    /**
     * Whether a lease row is live: a row of the facts before the attack by the oracle's rule for "live at the
     * attack" ({@link Oracle#liveBefore}); a row of the facts after by the holder's session as it is now, as the
     * database itself would judge a takeover.
     */
    private boolean live(Map<String, Object> lease, boolean atTheAttack) {
        Object holder = lease.get("process_identity");
        Map<String, Object> p = after.row("processes", holder);
        if (atTheAttack && (world.dialect() == Dialect.POSTGRES || p == null)) {
            p = before.row("processes", holder);
        }
        Long beat = p == null ? null : integer(p.get("heartbeat_at"));
        Long eff = Oracle.effectiveExpiry(lease, beat);
        return eff != null && eff > now;
    }

    private void supervisor() {
        try {
            TickReport report = world.supervisor().supervisor().tick();
            for (TickReport.Recovery r : report.recovered()) {
                Map<String, Object> t = before.row("execution_attempts", r.attemptId());
                if (t != null
                        && integer(t.get("expires_at")) > now
                        && sameCell(
                                t.get("expires_at"),
                                after.row("execution_attempts", r.attemptId()).get("expires_at"))) {
                    v("probe.recovered-live", "the supervisor recovered the live attempt " + r.attemptId());
                }
            }
            for (String m : report.sweptClaims()) {
                Map<String, Object> m0 = before.row("messages", m);
                Map<String, Object> m1 = after.row("messages", m);
                if (m0 != null
                        && m1 != null
                        && sameCell(m0.get("claim_expires_at"), m1.get("claim_expires_at"))
                        && integer(m0.get("claim_expires_at")) != null
                        && integer(m0.get("claim_expires_at")) > now) {
                    v("probe.swept-live", "the supervisor swept the live claim on " + m);
                }
            }
            if (!report.failures().isEmpty()) {
                v("probe.supervisor-failed", "the supervisor's tick failed on " + report.failures());
            }
        } catch (Refusal r) {
            v(
                    "probe.supervisor-failed",
                    "the supervisor's tick was refused: " + r.category().code() + " " + r.getMessage());
        } catch (RuntimeException e) {
            v("probe.storage-error", "the supervisor's tick failed: " + e);
        }
    }

    /** Each host's beat keeps every lease and attempt it holds that the attack left as it was and alive. */
    private void beats() {
        for (Engine e : List.of(world.a(), world.b())) {
            Beat beat;
            try {
                beat = e.heartbeatNow();
            } catch (RuntimeException ex) {
                v("probe.beat-failed", who(e) + "'s beat failed: " + ex);
                continue;
            }
            for (String actor : beat.lostLeases().keySet()) {
                Map<String, Object> l0 = before.row("actor_leases", actor);
                Map<String, Object> l1 = after.row("actor_leases", actor);
                if (l0 != null
                        && Facts.same(l0, l1)
                        && live(l0, true)
                        && e.processIdentity().equals(l0.get("process_identity"))
                        && Oracle.impossible(l1, after.counterValue(), heartbeat(l1)) == null) {
                    v(
                            "probe.beat-lost-a-lease",
                            who(e) + "'s beat lost its live lease of " + actor + ", which the"
                                    + " attack left as it was");
                }
            }
            for (String attempt : beat.lostAttempts().keySet()) {
                Map<String, Object> t0 = before.row("execution_attempts", attempt);
                Map<String, Object> t1 = after.row("execution_attempts", attempt);
                if (t0 != null
                        && Facts.same(t0, t1)
                        && "ACTIVE".equals(t0.get("state"))
                        && integer(t0.get("expires_at")) > now
                        && stillBound(t0)
                        && leaseLeftAsItWas(t0)) {
                    v(
                            "probe.beat-lost-an-attempt",
                            who(e) + "'s beat lost its live attempt " + attempt + ", which the"
                                    + " attack left as it was, and the lease it runs under too");
                }
            }
        }
    }

    /**
     * Whether the attack left the lease an attempt runs under as it was: a write presenting the lease's token (on
     * SQLite anyone who can read the file can present it) may end the lease, and the attempt then ends with it.
     */
    private boolean leaseLeftAsItWas(Map<String, Object> t) {
        return Facts.same(before.row("actor_leases", t.get("actor_id")), after.row("actor_leases", t.get("actor_id")));
    }

    /** Whether an attempt's assignment still points at it and its actor's lease still carries its token and holder. */
    private boolean stillBound(Map<String, Object> t) {
        Map<String, Object> x = after.row("assignments", t.get("assignment_id"));
        Map<String, Object> l = after.row("actor_leases", t.get("actor_id"));
        return x != null
                && Objects.equals(x.get("current_attempt"), t.get("id"))
                && l != null
                && sameCell(l.get("token"), t.get("lease_token"))
                && Objects.equals(l.get("process_identity"), t.get("process_identity"));
    }

    /** The holder of a live claim the attack left as it was completes it with its token. */
    private void claims() {
        for (Map<String, Object> m0 : before.rows("messages")) {
            Map<String, Object> m1 = after.row("messages", m0.get("id"));
            Long expires = integer(m0.get("claim_expires_at"));
            if (!"CLAIMED".equals(m0.get("state"))
                    || expires == null
                    || expires <= now
                    || !Facts.same(m0, m1)
                    || integer(m0.get("claim_token")) == null) {
                continue;
            }
            Engine holder = world.engineOf(m0.get("claim_process"));
            Map<String, Object> lease = after.row("actor_leases", m0.get("claim_actor"));
            if (holder == null
                    || lease == null
                    || !Objects.equals(lease.get("process_identity"), m0.get("claim_process"))) {
                continue;
            }
            try {
                holder.mailbox().complete(String.valueOf(m0.get("id")), integer(m0.get("claim_token")));
            } catch (Refusal r) {
                v(
                        "probe.holder-refused",
                        who(holder) + " could not complete its live claim on " + m0.get("id") + ": "
                                + r.category().code() + " " + r.getMessage());
            } catch (RuntimeException e) {
                v("probe.storage-error", who(holder) + "'s completion of " + m0.get("id") + " failed: " + e);
            }
        }
    }

    /**
     * Each host's next grant, of an actor nobody holds, succeeds with a token above every token the ledger has
     * seen: the counter still mints, and neither host was shut out of writing (its session row renamed, say).
     */
    private void nextGrant() throws SQLException {
        boolean stripes = world.dialect() == Dialect.POSTGRES; // schema version 19: each actor mints from its stripe
        long above = Math.max(Math.max(before.counterValue(), after.maxToken()), before.maxToken());
        for (Engine e : List.of(world.b(), world.a())) {
            String actor = world.freshActor();
            if (stripes) {
                int s = dev.sovereign.engine.testing.Stripes.of(actor);
                above = Math.max(
                        Math.max(before.counterValueFor(s, true), after.maxToken(64, s)), before.maxToken(64, s));
            }
            try {
                Lease l = e.leases().acquire(actor, Op.TTL);
                if (l.token() <= above) {
                    v("probe.next-grant", who(e) + "'s next grant got token " + l.token() + ", not above " + above);
                }
                above = Math.max(above, l.token());
            } catch (Refusal r) {
                v(
                        "probe.next-grant",
                        who(e) + "'s next grant of a free actor was refused: "
                                + r.category().code() + " " + r.getMessage());
            } catch (RuntimeException ex) {
                v("probe.next-grant", who(e) + "'s next grant of a free actor failed: " + ex);
            }
        }
    }
}
