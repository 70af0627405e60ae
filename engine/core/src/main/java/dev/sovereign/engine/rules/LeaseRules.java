package dev.sovereign.engine.rules;

import static dev.sovereign.engine.base.RefusalCategory.ACTOR_LEASE_HELD;
import static dev.sovereign.engine.base.RefusalCategory.ACTOR_LEASE_LOST;
import static dev.sovereign.engine.base.RefusalCategory.CORRUPT_LEASE_STATE;
import static dev.sovereign.engine.base.RefusalCategory.INVALID_ARGUMENT;

import dev.sovereign.engine.base.Refusal;
import dev.sovereign.engine.lease.Lease;
import java.time.Instant;

/**
 * The actor lease rules (contract §3, 4): who may take a lease, who may renew and release it, and the row a
 * backend must refuse to act under. A backend reads the actor's lease row and the counter's last issued
 * token inside its write transaction, asks these, and only then performs its one compare-and-set.
 */
public final class LeaseRules {
    private LeaseRules() {}

    /**
     * Why a lease row cannot have been written by the engine, or null when it is sane: a token the
     * counter never minted, or an expiry beyond what its TTL allows. A renewal stamped before the
     * acquisition is NOT corruption: the holder's clock stepped back between the two (decision 0600).
     */
    public static String corruption(Lease l, long lastIssuedToken) {
        if (l.token() <= 0 || l.token() > lastIssuedToken) {
            return "its token " + l.token() + " was never issued by the counter (last issued " + lastIssuedToken + ")";
        }
        if (l.ttlMs() <= 0 || l.expiresAt() > l.renewedAt() + l.ttlMs()) {
            return "its expiry " + l.expiresAt() + " is impossible for a " + l.ttlMs() + " ms lease renewed at "
                    + l.renewedAt();
        }
        return null;
    }

    /** Fails closed ({@code corrupt_lease_state}) on a lease row the engine cannot have written (decision 0112). */
    public static void requireSane(Lease l, long lastIssuedToken) {
        String problem = corruption(l, lastIssuedToken);
        if (problem != null) {
            throw Refusal.of(
                            CORRUPT_LEASE_STATE,
                            "The lease row of actor " + l.actor() + " is corrupt (" + problem
                                    + "); refusing to grant, renew, release or write under it until an operator repairs the ledger.")
                    .resource("actor", l.actor())
                    .actor(l.actor())
                    .current(l.token())
                    .build();
        }
    }

    /**
     * May {@code me} take the actor's lease now? Yes when there is no row or the row has expired at
     * {@code now} (a takeover); a live lease, even this process's own, is {@code actor_lease_held}.
     */
    public static void requireFree(String actor, Lease current, long now, String me) {
        if (current != null && !current.isExpiredAt(now)) {
            String whose = current.process().equals(me) ? "this process itself" : current.process();
            throw Refusal.of(
                            ACTOR_LEASE_HELD,
                            "Actor " + actor + " is hosted by " + whose + " with token "
                                    + current.token() + " until " + Instant.ofEpochMilli(current.expiresAt())
                                    + "; wait for it to be released or to expire.")
                    .resource("actor", actor)
                    .actor(actor)
                    .current(current.token())
                    .build();
        }
    }

    /** Whether {@code acquireOrRenew} renews (the row is this process's) rather than acquires. */
    public static boolean heldBy(Lease current, String me) {
        return current != null && current.process().equals(me);
    }

    /** The {@code actor_lease_lost} refusal for a write that presented {@code token} and matched no row. */
    public static Refusal lost(String actor, long token, Lease current, String what) {
        String now = current == null
                ? "no process holds it now"
                : "it is now held by " + current.process() + " with token " + current.token();
        return Refusal.of(
                        ACTOR_LEASE_LOST,
                        "Cannot " + what + " actor " + actor + " with token " + token
                                + ": this process no longer holds that lease (" + now + "); acquire it again.")
                .resource("actor", actor)
                .actor(actor)
                .presented(token)
                .current(current == null ? null : current.token())
                .build();
    }

    /**
     * The refusal of an extension (decision 0116): for a lease that is still this process's under {@code token} but
     * expired at {@code now}, says so; otherwise the lease was lost as for a renewal.
     */
    public static Refusal notExtended(String actor, long token, Lease current, String me, long now) {
        if (current != null && current.token() == token && current.process().equals(me) && current.isExpiredAt(now)) {
            return Refusal.of(
                            ACTOR_LEASE_LOST,
                            "Cannot extend actor " + actor + " with token " + token + ": the lease expired at "
                                    + Instant.ofEpochMilli(current.expiresAt())
                                    + " and an expired lease is not extended, even before another process takes"
                                    + " it; acquire it again.")
                    .resource("actor", actor)
                    .actor(actor)
                    .presented(token)
                    .current(token)
                    .build();
        }
        return lost(actor, token, current, "extend");
    }

    /**
     * The TTL of a lease kept until {@code until} from {@code now} (decision 0116), or {@code invalid_argument} past
     * the longest TTL.
     */
    public static long keptUntilTtl(long until, long now) {
        if (until - now > Arguments.LONGEST.toMillis()) {
            throw Refusal.of(
                            INVALID_ARGUMENT,
                            "A lease can be kept at most 365 days from now, asked until " + Instant.ofEpochMilli(until)
                                    + ".")
                    .build();
        }
        return until - now;
    }

    /** The journal's note on a release that keeps its lease until {@code until} (a {@code LEASE_RENEWED} row). */
    public static String keptUntilNote(long until) {
        return KEPT_UNTIL + Instant.ofEpochMilli(until);
    }

    /** How {@link #keptUntilNote} begins: a reader tells such a renewal from a plain one by it. */
    public static final String KEPT_UNTIL = "released by its holder, kept until ";

    /** Whether a release presenting {@code token} may delete the row {@code current}. */
    public static boolean mayRelease(Lease current, long token, String me) {
        return current != null && current.token() == token && current.process().equals(me);
    }

    /**
     * The refusal of a release whose token was stale, whether a newer holder has the row or the row is gone
     * (decision 0005): journalled, nothing released.
     */
    public static Refusal lostRelease(String actor, long token, Lease current) {
        String now = current == null
                ? "no process holds the lease now (it was released or taken over and" + " released)"
                : "the lease is now held by " + current.process() + " with token " + current.token();
        return Refusal.of(
                        ACTOR_LEASE_LOST,
                        "Release of actor " + actor + " with token " + token + " was refused: " + now
                                + "; nothing was released.")
                .resource("actor", actor)
                .actor(actor)
                .presented(token)
                .current(current == null ? null : current.token())
                .build();
    }

    /**
     * A heartbeat renewal of a lease that matched no row, or null when nothing was refused: the row is this
     * process's with that token and sane (renewed by another path meanwhile), or the row is gone because this
     * process released it ({@code releasedByMe}; a release racing the beat is not a refusal).
     */
    public static Refusal beatRefused(
            String actor, long token, Lease current, String me, long lastIssuedToken, boolean releasedByMe) {
        if (current != null && current.process().equals(me) && current.token() == token) {
            try {
                requireSane(current, lastIssuedToken);
                return null;
            } catch (Refusal corrupt) {
                return corrupt;
            }
        }
        if (current == null && releasedByMe) {
            return null;
        }
        return lost(actor, token, current, "renew (heartbeat)");
    }

    /** The text of a takeover's journal row: whom it took the lease from. */
    public static String takeoverNote(Lease old, long ttlMs) {
        return "taken over from " + old.process() + " (token " + old.token() + ", expired at "
                + Instant.ofEpochMilli(old.expiresAt()) + "); ttl " + ttlMs + " ms";
    }
}
