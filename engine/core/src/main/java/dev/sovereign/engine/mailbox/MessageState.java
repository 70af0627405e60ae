package dev.sovereign.engine.mailbox;

/**
 * Where a message is in its life. The names are stored in {@code messages.state} and are part of
 * the contract.
 *
 * <pre>
 *            send
 *             │
 *             ▼
 *   ┌──────▶ NEW ──claim (recipient, hosting process, fresh token)──▶ CLAIMED
 *   │         ▲                                                        │ │ │
 *   │         └──── sweep (claim expired, CAS on state + expiry) ──────┘ │ │
 *   │                                                                    │ │
 *   └──── deadLetter (token; retry_count &lt; max_retries: retry_count+1) ──┘ │
 *                                                                          │
 *         DONE ◀── complete (token, claiming process, still hosting) ──────┤
 *         DEAD ◀── deadLetter (token; retry_count = max_retries) ──────────┘
 * </pre>
 *
 * {@link #DONE} and {@link #DEAD} are terminal: no write moves a message out of them (the
 * engine's guarded statements never match them, and a schema trigger refuses any update).
 */
public enum MessageState {
    NEW,
    CLAIMED,
    DONE,
    DEAD;

    /** Whether the message can never change again. */
    public boolean isFinished() {
        return this == DONE || this == DEAD;
    }
}
