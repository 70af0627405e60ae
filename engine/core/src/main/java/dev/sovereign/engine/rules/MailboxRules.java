package dev.sovereign.engine.rules;

import static dev.sovereign.engine.base.RefusalCategory.ACTOR_LEASE_LOST;
import static dev.sovereign.engine.base.RefusalCategory.FENCING_TOKEN_STALE;
import static dev.sovereign.engine.base.RefusalCategory.MESSAGE_CLAIMED;
import static dev.sovereign.engine.base.RefusalCategory.MESSAGE_FINISHED;
import static dev.sovereign.engine.base.RefusalCategory.MESSAGE_MISSING;
import static dev.sovereign.engine.base.RefusalCategory.NOT_HOSTING;
import static dev.sovereign.engine.base.RefusalCategory.NOT_RECIPIENT;

import dev.sovereign.engine.base.FencingTokens;
import dev.sovereign.engine.base.Refusal;
import dev.sovereign.engine.lease.Lease;
import dev.sovereign.engine.mailbox.Claim;
import dev.sovereign.engine.mailbox.Message;
import dev.sovereign.engine.mailbox.MessageState;
import java.time.Instant;

/**
 * The mailbox rules (contract §8, decisions 0200-0203): who may claim a message, what a claim of a claimed
 * message does, and why a finishing write that matched no row was refused. A backend reads the message and
 * the recipient's lease inside its write transaction, asks these, and performs its one compare-and-set.
 */
public final class MailboxRules {
    /** What a claim of a message does, decided from its row and the time of the transaction. */
    public enum ClaimKind {
        /** NEW: a fresh claim with a freshly minted token. */
        GRANT,
        /** Claimed by this process and unexpired: the same claim, same token, renewed. */
        RENEW_OWN,
        /** Claimed, but expired (also this process's own): taken over with a fresh, greater token. */
        TAKE_OVER
    }

    private MailboxRules() {}

    /** {@code message_missing}. */
    public static Refusal missing(String id) {
        return Refusal.of(
                        MESSAGE_MISSING, "There is no message " + id + "; list messages with 'sovereign inbox ACTOR'.")
                .resource("message", id)
                .build();
    }

    /** {@code message_finished}: a finished message never changes. */
    public static Refusal finished(Message m, String what) {
        Claim c = m.claim();
        return Refusal.of(
                        MESSAGE_FINISHED,
                        "Cannot " + what + " message " + m.id() + ": it is already " + m.state()
                                + (c == null ? "" : " (finished with token " + c.token() + ")")
                                + " and a finished message never changes.")
                .resource("message", m.id())
                .actor(m.recipient())
                .current(c == null ? null : c.token())
                .build();
    }

    /**
     * Decides a claim of {@code m} for {@code actor}, given the recipient's lease row now: only the recipient
     * may claim; a finished message never; only a process that hosts the recipient with a live lease; a live
     * claim of another process is {@code message_claimed}. {@code believed} is the lease this process thinks
     * it holds on the actor: it only chooses the words (lost vs never hosted), never the grant.
     */
    public static ClaimKind decideClaim(
            Message m, String actor, Lease recipientLease, Lease believed, String me, long now) {
        if (!m.recipient().equals(actor)) {
            throw Refusal.of(
                            NOT_RECIPIENT,
                            "Message " + m.id() + " is addressed to " + m.recipient() + ", not to " + actor
                                    + "; only the recipient actor may claim it.")
                    .resource("message", m.id())
                    .actor(actor)
                    .build();
        }
        if (m.state().isFinished()) {
            throw finished(m, "claim");
        }
        requireHosting(m, recipientLease, believed, me, now);
        if (m.state() == MessageState.NEW) {
            return ClaimKind.GRANT;
        }
        Claim current = m.claim();
        if (!current.isExpiredAt(now)) {
            if (!current.process().equals(me)) {
                throw Refusal.of(
                                MESSAGE_CLAIMED,
                                "Message " + m.id() + " is claimed by " + current.process()
                                        + " with token " + current.token() + " until " + at(current.expiresAt())
                                        + "; wait for the claim to be finished or to expire.")
                        .resource("message", m.id())
                        .actor(actor)
                        .current(current.token())
                        .build();
            }
            if (olderEpoch(current.token(), recipientLease)) {
                throw lostToANewEpoch(m.id(), current, actor, "claim");
            }
            return ClaimKind.RENEW_OWN;
        }
        return ClaimKind.TAKE_OVER;
    }

    private static void requireHosting(Message m, Lease l, Lease believed, String me, long now) {
        String actor = m.recipient();
        if (l != null && l.process().equals(me) && !l.isExpiredAt(now)) {
            return;
        }
        Long current = l == null ? null : l.token();
        if (l != null && l.process().equals(me)) {
            throw Refusal.of(
                            ACTOR_LEASE_LOST,
                            "Cannot claim message " + m.id() + ": this process's lease on actor "
                                    + actor + " (token " + l.token() + ") expired at " + at(l.expiresAt())
                                    + "; renew or acquire the lease, then claim again.")
                    .resource("message", m.id())
                    .actor(actor)
                    .presented(l.token())
                    .current(current)
                    .build();
        }
        String hostedBy =
                l == null ? "no process hosts it now" : "it is hosted by " + l.process() + " with token " + l.token();
        if (believed != null) {
            throw Refusal.of(
                            ACTOR_LEASE_LOST,
                            "Cannot claim message " + m.id() + ": this process no longer hosts actor "
                                    + actor + " (its lease token " + believed.token() + " is gone; " + hostedBy
                                    + "); acquire the lease again.")
                    .resource("message", m.id())
                    .actor(actor)
                    .presented(believed.token())
                    .current(current)
                    .build();
        }
        throw Refusal.of(
                        NOT_HOSTING,
                        "Cannot claim message " + m.id() + ": this process does not host actor " + actor + " ("
                                + hostedBy + "); acquire its lease first.")
                .resource("message", m.id())
                .actor(actor)
                .current(current)
                .build();
    }

    /**
     * Says why a finishing write ({@code what}: complete, dead-letter) presenting {@code token} matched no
     * row, from the message as it is now ({@code m}, null when gone) and the lease of its claim's actor
     * ({@code claimActorLease}). The token is judged first, so a stale writer is always journalled, whatever
     * became of the message.
     */
    public static Refusal finishRefused(
            String id, Message m, long token, String what, String me, Lease claimActorLease) {
        if (m == null) {
            return missing(id);
        }
        Claim c = m.claim();
        if (c == null) {
            return Refusal.of(
                            FENCING_TOKEN_STALE,
                            "Cannot " + what + " message " + id + " with token " + token
                                    + ": the message is " + m.state() + " with no claim (it was swept or re-queued);"
                                    + " claim it again for a fresh token.")
                    .resource("message", id)
                    .actor(m.recipient())
                    .presented(token)
                    .build();
        }
        if (c.token() != token || !c.process().equals(me)) {
            String owner = c.process().equals(me) ? "this process" : c.process();
            String reason = c.token() != token
                    ? "its " + (m.state().isFinished() ? "last" : "current") + " claim is token " + c.token() + " of "
                            + owner
                    : "token " + token + " belongs to " + c.process() + ", not to this process";
            return Refusal.of(
                            FENCING_TOKEN_STALE,
                            "Cannot " + what + " message " + id + " with token " + token
                                    + ": " + reason + " and the message is " + m.state()
                                    + "; the result of the stale claim is discarded.")
                    .resource("message", id)
                    .actor(m.recipient())
                    .presented(token)
                    .current(c.token())
                    .build();
        }
        if (m.state().isFinished()) {
            return finished(m, what);
        }
        Lease l = claimActorLease;
        if (l != null && l.process().equals(me) && olderEpoch(token, l)) {
            return lostToANewEpoch(id, c, c.actor(), what);
        }
        String hostedBy = l == null
                ? "no process hosts it now"
                : "it is now hosted by " + l.process() + " with lease token " + l.token();
        return Refusal.of(
                        ACTOR_LEASE_LOST,
                        "Cannot " + what + " message " + id + " with token " + token
                                + ": this process no longer hosts actor " + c.actor() + " (" + hostedBy
                                + "); its claim can no longer finish the message.")
                .resource("message", id)
                .actor(c.actor())
                .presented(token)
                .current(l == null ? null : l.token())
                .build();
    }

    /**
     * Whether a claim's token is of an earlier epoch than the recipient's lease (decision 0604): a restore or a fence
     * bump came between them, so the claim is lost to its holder even though it now hosts the actor again.
     */
    public static boolean olderEpoch(long claimToken, Lease recipientLease) {
        return recipientLease != null
                && FencingTokens.epochOf(recipientLease.token()) > FencingTokens.epochOf(claimToken);
    }

    private static Refusal lostToANewEpoch(String id, Claim c, String actor, String what) {
        return Refusal.of(
                        FENCING_TOKEN_STALE,
                        "Cannot " + what + " message " + id + " with token " + c.token()
                                + ": the claim was granted before the ledger's current epoch began (a restore or a fence bump),"
                                + " so it is lost; it expires at " + at(c.expiresAt())
                                + " and the supervisor sweeps it, then"
                                + " claim it again for a token of this epoch.")
                .resource("message", id)
                .actor(actor)
                .presented(c.token())
                .current(c.token())
                .build();
    }

    private static String at(long epochMillis) {
        return Instant.ofEpochMilli(epochMillis).toString();
    }
}
