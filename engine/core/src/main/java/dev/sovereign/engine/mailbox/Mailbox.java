package dev.sovereign.engine.mailbox;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * The compare-and-set mailbox: messages addressed to actors, claimed with a fencing token by a
 * process hosting the recipient, and finished only with that token. Thread-safe.
 *
 * <p>Life of a message (see {@link MessageState} for the graph):
 * <ul>
 *   <li>{@link #send} creates it {@code NEW}, addressed to a known actor.</li>
 *   <li>{@link #claim} makes it {@code CLAIMED} by this process for the recipient actor, with a
 *       freshly minted token and an expiry. Re-claiming an unexpired claim of this process returns
 *       the same token and extends the expiry (this is how a claim is kept alive; the heartbeat does
 *       not renew claims). An expired claim — also this process's own — is taken over by CAS with a
 *       fresh, greater token.</li>
 *   <li>{@link #complete} ({@code DONE}) and {@link #deadLetter} ({@code NEW} again with
 *       {@code retry_count+1}, or {@code DEAD} once {@code max_retries} re-queues were spent) present
 *       the claim token. Each is ONE guarded statement whose {@code WHERE} carries the token, state
 *       {@code CLAIMED}, the claiming process, and that the actor's lease row still names this
 *       process.</li>
 *   <li>{@link #sweepExpiredClaims} (the supervisor) returns expired claims to {@code NEW}.</li>
 * </ul>
 *
 * <p>Invariants: a message is finished ({@code DONE} or {@code DEAD}) at most once, and only by the
 * process holding its current claim token; a stale token never finishes, re-queues or sweeps a
 * message; every refusal caused by a stale or contested token ({@code fencing_token_stale},
 * {@code actor_lease_lost}, {@code message_claimed}) is journalled as {@code REJECTED}. Safety
 * depends only on tokens and the lease pointer; time decides only when a claim may be taken over or
 * swept.
 */
public interface Mailbox {
    /** The number of re-queues a message gets when the sender does not say. */
    int DEFAULT_MAX_RETRIES = 3;

    /**
     * Sends a message. Any non-empty sender id is accepted (senders need not be actors).
     *
     * @throws dev.sovereign.engine.base.Refusal {@code unknown_actor} for an unknown recipient;
     *     {@code invalid_argument} for an empty sender, a missing subject or negative max retries
     */
    Message send(String sender, String recipient, String subject, String body, int maxRetries);

    /** Sends with {@link #DEFAULT_MAX_RETRIES}. */
    default Message send(String sender, String recipient, String subject, String body) {
        return send(sender, recipient, subject, body, DEFAULT_MAX_RETRIES);
    }

    /**
     * Claims {@code message} for {@code actor} with the engine's default TTL.
     *
     * @see #claim(String, String, Duration)
     */
    Claim claim(String message, String actor);

    /**
     * Claims {@code message} for {@code actor} until {@code now + ttl}.
     *
     * <ul>
     *   <li>{@code NEW}: granted with a fresh token.</li>
     *   <li>{@code CLAIMED} by this process, unexpired: the same claim and the same token, with the
     *       expiry moved to {@code now + ttl}.</li>
     *   <li>{@code CLAIMED}, expired (whoever claimed it, this process included): taken over by CAS
     *       with a fresh, greater token.</li>
     * </ul>
     *
     * @throws dev.sovereign.engine.base.Refusal {@code message_missing}; {@code not_recipient} when
     *     {@code actor} is not the recipient; {@code message_finished} for {@code DONE}/{@code DEAD};
     *     {@code not_hosting} when this process does not host the actor, or {@code actor_lease_lost}
     *     when it did but its lease expired or was taken over (journalled); {@code message_claimed}
     *     when another process holds a live claim (journalled)
     */
    Claim claim(String message, String actor, Duration ttl);

    /**
     * Finishes the message as {@code DONE}. The token is checked in the same statement as the write,
     * with state {@code CLAIMED}, the claiming process and this process still hosting the actor.
     *
     * @return the finished message
     * @throws dev.sovereign.engine.base.Refusal {@code message_missing}; {@code fencing_token_stale} when
     *     {@code token} is not the message's current claim token of this process (journalled);
     *     {@code actor_lease_lost} when the token is current but the actor's lease no longer names
     *     this process (journalled); {@code message_finished} when the message is already finished
     *     under this very token
     */
    Message complete(String message, long token);

    /**
     * Gives the message back: {@code NEW} again with {@code retry_count + 1} while
     * {@code retry_count < max_retries}, else {@code DEAD}. Guarded exactly like {@link #complete}.
     *
     * @return the re-queued or dead message
     */
    Message deadLetter(String message, long token);

    /**
     * The actor's unfinished messages ({@code NEW} and {@code CLAIMED}), oldest first. Read-only.
     *
     * @throws dev.sovereign.engine.base.Refusal {@code unknown_actor}
     */
    List<Message> inbox(String actor);

    /** One message, in whatever state. */
    Optional<Message> find(String message);

    /** Every message, newest first. */
    List<Message> list();

    /**
     * The supervisor's sweep: in ONE transaction, every message that is {@code CLAIMED} with
     * {@code claim_expires_at <= now} goes back to {@code NEW} by a compare-and-set on (state, token,
     * expiry), with every claim field cleared and a {@code CLAIM_SWEPT} event each. A fresh claim
     * never matches, so the sweep cannot reset it.
     *
     * @return the claims that were swept (empty when none had expired)
     */
    List<Claim> sweepExpiredClaims();
}
