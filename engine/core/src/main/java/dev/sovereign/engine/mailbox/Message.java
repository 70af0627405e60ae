package dev.sovereign.engine.mailbox;

/**
 * An addressed mailbox item, as read from the ledger. Immutable snapshot.
 *
 * @param claim      the current claim while {@link MessageState#CLAIMED}; for {@code DONE} and
 *                   {@code DEAD} the last claim, the one that finished the message; {@code null}
 *                   while {@link MessageState#NEW}
 * @param retryCount how many times the message was dead-lettered back to {@code NEW}
 * @param maxRetries how many such re-queues are allowed; the dead-letter after the last one makes
 *                   the message {@code DEAD}
 */
public record Message(
        String id,
        String sender,
        String recipient,
        String subject,
        String body,
        MessageState state,
        Claim claim,
        int retryCount,
        int maxRetries,
        long createdAt,
        long updatedAt) {}
