package dev.sovereign.engine.lease;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * Actor-hosting leases: "process P may host actor A until T", by compare-and-set on one row per
 * actor. Thread-safe.
 *
 * <p>States of an actor's lease row, as seen at time {@code now}:
 * <pre>
 *   FREE ──acquire──▶ HELD ──release──▶ FREE
 *                      │  ▲
 *          (expires_at │  │ renew / heartbeat (same process, same token)
 *             &lt;= now) ▼  │
 *                    EXPIRED ──acquire (any process, new greater token)──▶ HELD  (a takeover)
 * </pre>
 * Safety depends only on tokens: every write presents the token it holds and is one guarded
 * statement; time only decides when a takeover is allowed.
 */
public interface ActorLeases {
    /**
     * Grants the actor's lease to this process with a freshly minted, strictly greater token, when
     * there is no lease row or the row is expired (a takeover, also by this same process).
     *
     * @throws dev.sovereign.engine.base.Refusal {@code actor_lease_held} (naming the holder, its token and
     *     its expiry) when a live lease exists, even this process's own; {@code unknown_actor};
     *     {@code corrupt_lease_state} when the row cannot have been written by the engine
     */
    Lease acquire(String actor, Duration ttl);

    /**
     * Extends the lease where it still names this process and {@code token}; keeps the token.
     *
     * @throws dev.sovereign.engine.base.Refusal {@code actor_lease_lost} otherwise (journalled)
     */
    Lease renew(String actor, long token, Duration ttl);

    /** Renews with the lease's own TTL. */
    Lease renew(String actor, long token);

    /**
     * Deletes the lease where it still names this process and {@code token}. Never clears a newer
     * holder's lease: a stale release returns false and is journalled as {@code REJECTED}.
     */
    boolean release(String actor, long token);

    /**
     * Stops holding a lease without releasing it: the heartbeat no longer renews it and closing the
     * engine does not release it, so it expires on its own. For a tool that hands a lease over to time
     * (the lab's starting gate). Writes nothing; returns whether this process believed it held it.
     */
    boolean abandon(String actor, long token);

    /** Renews when this process holds the row (under the token it knows), else acquires. */
    Lease acquireOrRenew(String actor, Duration ttl);

    /**
     * Like {@link #acquireOrRenew}, in one transaction, but a renewal keeps the lease's OWN TTL:
     * {@code ttlIfAcquired} applies only when the lease is acquired. What a run uses, so it never
     * shortens (or stretches) a hosting lease it borrows (docs/decisions/0110).
     */
    Lease acquireOrRenewKeepingTtl(String actor, Duration ttlIfAcquired);

    /** The actor's lease row, expired or not. */
    Optional<Lease> current(String actor);

    /** Every lease row, by actor. */
    List<Lease> list();

    /** The leases this engine instance currently believes it holds (and keeps alive by heartbeat). */
    List<Lease> held();
}
