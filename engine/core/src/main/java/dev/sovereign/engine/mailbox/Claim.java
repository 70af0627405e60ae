package dev.sovereign.engine.mailbox;

/**
 * "Process {@code process}, hosting actor {@code actor}, may finish message {@code message} with
 * {@code token}; other processes may take the message over once {@code expiresAt} has passed."
 *
 * <p>A claim value is a snapshot: whether it is still current is decided only by the database, at
 * write time, by comparing the presented token with the message's {@code claim_token}. The token
 * comes from the one database-wide counter shared with leases and attempts, so it is never reused.
 *
 * @param message   the message id
 * @param actor     the recipient actor the claim was made for
 * @param process   the claiming process identity
 * @param token     the fencing token that {@link Mailbox#complete} and {@link Mailbox#deadLetter} require
 * @param expiresAt epoch milliseconds; the claim is expired when {@code expiresAt <= now}
 */
public record Claim(String message, String actor, String process, long token, long expiresAt) {

    /** Expiry is derived, never stored as a flag. */
    public boolean isExpiredAt(long now) {
        return expiresAt <= now;
    }
}
