package dev.sovereign.engine.lease;

import dev.sovereign.engine.base.Refusal;
import dev.sovereign.engine.base.RefusalCategory;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * Actor-hosting leases: "process P may host actor A until T", by compare-and-set on one row per
 * actor. Thread-safe.
 *
 * <p>States of an actor's lease row, as seen at time {@code now}:
 * <pre>
 *   FREE ──acquire / tryAcquire──▶ HELD ──release──▶ FREE
 *                                  │  ▲ │
 *                      (expires_at │  │ └─extend (same process, same token, still live)
 *                         &lt;= now) ▼  │   renew / heartbeat (same process, same token)
 *                                EXPIRED ──acquire / tryAcquire (any process, new greater token)──▶ HELD  (a takeover)
 *
 *   HELD ──releaseKeepingUntil(t)──▶ HELD until t, not kept alive ──(t &lt;= now)──▶ EXPIRED
 * </pre>
 * A lease is kept alive by its holder's heartbeat ({@link LeaseKeeping#HEARTBEAT}, what {@code acquire} grants) or
 * ends at its TTL ({@link LeaseKeeping#TTL}). {@code renew} brings an expired lease nobody took back to HELD (the
 * token is unchanged, so nothing stale can follow); {@code extend} refuses it (docs/decisions/0116).
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
     * Grants the actor's lease as {@link #acquire(String, Duration)} does, kept alive the way {@code keeping} says:
     * {@link LeaseKeeping#HEARTBEAT} (what {@code acquire} does) or {@link LeaseKeeping#TTL}, a lease that ends at its
     * TTL unless this process {@linkplain #extend extends} it, whether or not the engine beats, and that closing the
     * engine leaves to expire (docs/decisions/0116).
     */
    Lease acquire(String actor, Duration ttl, LeaseKeeping keeping);

    /**
     * Like {@link #acquire(String, Duration, LeaseKeeping)}, but a live lease of another holder (or of this process)
     * is the expected outcome, not an error: empty then. Still journalled as a refusal, as every refused grant is.
     * Every other refusal ({@code unknown_actor}, {@code corrupt_lease_state}, bad input) is thrown as before.
     */
    default Optional<Lease> tryAcquire(String actor, Duration ttl, LeaseKeeping keeping) {
        try {
            return Optional.of(acquire(actor, ttl, keeping));
        } catch (Refusal r) {
            if (r.category() == RefusalCategory.ACTOR_LEASE_HELD) {
                return Optional.empty();
            }
            throw r;
        }
    }

    /** {@link #tryAcquire(String, Duration, LeaseKeeping)} of a lease kept alive by this engine's heartbeat. */
    default Optional<Lease> tryAcquire(String actor, Duration ttl) {
        return tryAcquire(actor, ttl, LeaseKeeping.HEARTBEAT);
    }

    /**
     * Extends the lease where it still names this process and {@code token}; keeps the token.
     *
     * @throws dev.sovereign.engine.base.Refusal {@code actor_lease_lost} otherwise (journalled)
     */
    Lease renew(String actor, long token, Duration ttl);

    /** Renews with the lease's own TTL. */
    Lease renew(String actor, long token);

    /**
     * Extends a lease that is still live: like {@link #renew(String, long, Duration)}, but a lease whose expiry has
     * passed is refused even when nobody has taken it over yet, in the same one statement that would extend it (so
     * no check-then-act race). Keeps the lease's way of {@linkplain LeaseKeeping keeping}. What a lock with a
     * deadline needs (ShedLock's {@code extend}); {@code renew} stays the holder's way back into an expired lease
     * nobody took, which fencing allows because the token is unchanged (docs/decisions/0116).
     *
     * @throws dev.sovereign.engine.base.Refusal {@code actor_lease_lost} (journalled) when the lease expired, is held
     *     under another token or by another process, or is gone
     */
    Lease extend(String actor, long token, Duration ttl);

    /**
     * Deletes the lease where it still names this process and {@code token}. Never clears a newer
     * holder's lease: a stale release returns false and is journalled as {@code REJECTED}.
     */
    boolean release(String actor, long token);

    /**
     * Releases the lease but keeps it until {@code keepUntil}, in one write transaction: when {@code keepUntil} is
     * still ahead (by the ledger's clock) the lease stays this process's, under the same token, ending at
     * {@code keepUntil} and no longer kept alive by the heartbeat; otherwise this is {@link #release}. A minimum hold
     * (ShedLock's {@code lockAtLeastFor}). Refused like {@code release}: a stale token returns false and is
     * journalled, and never touches a newer holder's lease.
     *
     * @return whether the lease was this process's under {@code token} (released or kept until the time)
     */
    boolean releaseKeepingUntil(String actor, long token, Instant keepUntil);

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

    /**
     * The leases this engine instance currently believes it holds and keeps alive by its heartbeat; a
     * {@link LeaseKeeping#TTL} lease is not among them (it lives by its own expiry).
     */
    List<Lease> held();
}
