package dev.sovereign.engine.journal;

/** What a fence event records. The names are stored in the journal and are part of the contract. */
public enum EventKind {
    LEASE_ACQUIRED,
    /** Sampled: explicit renewals always, heartbeat renewals at most once per lease per fold interval. */
    LEASE_RENEWED,
    LEASE_RELEASED,
    LEASE_TAKEN_OVER,
    ATTEMPT_STARTED,
    ATTEMPT_DONE,
    ATTEMPT_SUPERSEDED,
    ATTEMPT_RECOVERED,
    /** An operator (or the lab) cleared an assignment's attempt pointer under a running attempt. */
    ATTEMPT_STOLEN,
    ASSIGNMENT_CREATED,
    ASSIGNMENT_RETRIED,
    ASSIGNMENT_ACKNOWLEDGED,
    CLAIM_GRANTED,
    CLAIM_SWEPT,
    MESSAGE_SENT,
    MESSAGE_DONE,
    MESSAGE_RETRIED,
    MESSAGE_DEAD,
    PROCESS_STARTED,
    PROCESS_STOPPED,
    /** A refused write caused by a stale, missing or contested token or pointer. */
    REJECTED,
    /** {@code sovereign restore} put a backup in place and started a new epoch (resource {@code ledger}). */
    LEDGER_RESTORED,
    /** {@code sovereign fence bump} started a new epoch (resource {@code ledger}). */
    FENCE_BUMPED,
    /**
     * An engine found the token counter below a token it had seen (the ledger was put back without
     * {@code sovereign restore}): the ledger issues no token until a fence bump (resource {@code ledger}).
     */
    LEDGER_WENT_BACKWARDS
}
