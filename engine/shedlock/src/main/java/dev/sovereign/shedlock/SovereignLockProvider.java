package dev.sovereign.shedlock;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.base.Refusal;
import dev.sovereign.engine.base.RefusalCategory;
import dev.sovereign.engine.lease.Lease;
import dev.sovereign.engine.lease.LeaseKeeping;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import net.javacrumbs.shedlock.core.ExtensibleLockProvider;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;

/**
 * ShedLock's lock provider on a Sovereign ledger (docs/shedlock.md, decision 0318). A lock name is an actor, added
 * the first time it is met; a lock is that actor's lease, granted with a fresh, strictly greater fencing token and
 * ending at {@code lockAtMostUntil} whatever the engine's heartbeat does; {@code lockAtLeastFor} is kept by the
 * unlock itself, in one write; an extension is refused once the lock has expired, in the one statement that would
 * extend it. The task reads its token with {@link SovereignLock#currentToken()}.
 *
 * <p>The caller opens the {@link Engine} and closes it after the last task; closing it leaves held locks to expire
 * at their {@code lockAtMostUntil}, as a crashed node's would. The locks do not depend on the engine's heartbeat.
 * Thread-safe: one provider serves every task of the process.
 *
 * <p>Time: {@code lockAtMostUntil} is turned into a lease TTL by the engine's clock ({@code EngineConfig.clock()});
 * the ledger judges expiry by its own clock (the database server's on PostgreSQL). Safety never depends on either:
 * a holder whose lock expired is fenced by its token, not by time.
 */
public final class SovereignLockProvider implements ExtensibleLockProvider {
    private final Engine engine;
    private final Clock clock;
    /**
     * Lock names known to exist as actors: a lock on a known name costs its one write and nothing more. An actor is
     * never removed from a ledger, so a name once known stays valid.
     */
    private final Set<String> knownActors = ConcurrentHashMap.newKeySet();

    /** A provider on {@code engine}, which the caller opened and will close. */
    public SovereignLockProvider(Engine engine) {
        this.engine = Objects.requireNonNull(engine, "engine");
        this.clock = engine.config().clock();
    }

    /**
     * Takes the lock when nobody holds it: empty when another holder's lock (or this process's own) is live, or
     * when {@code lockAtMostUntil} has already passed.
     *
     * @throws Refusal {@code invalid_argument} for a lock name that cannot be an actor id (1 to 200 printable
     *     characters) or a {@code lockAtMostFor} beyond 365 days; the engine's other refusals as they are
     * @throws dev.sovereign.engine.base.StorageException when the ledger cannot be written; on PostgreSQL also
     *     when a worker login meets a new lock name without the owner's permission to add actors, with a sentence
     *     naming the operator's two ways out ({@code sovereign actor add NAME}, {@code sovereign actor
     *     workers-may-add on})
     */
    @Override
    public Optional<SimpleLock> lock(LockConfiguration config) {
        String name = config.getName();
        Duration ttl = Duration.between(clock.instant(), config.getLockAtMostUntil());
        if (ttl.toMillis() < 1) {
            return Optional.empty(); // its lockAtMostUntil has passed: there is nothing left to hold
        }
        ensureActor(name);
        Optional<Lease> lease = engine.leases().tryAcquire(name, ttl, LeaseKeeping.TTL);
        return lease.map(
                l -> new Held(name, l.token(), config.getLockAtLeastUntil(), SovereignLock.held(name, l.token())));
    }

    private void ensureActor(String name) {
        if (!knownActors.contains(name)) {
            engine.actors().ensure(name);
            knownActors.add(name);
        }
    }

    /**
     * One grant of a lock: its name, its token and the time before which an unlock keeps it. Spent by an unlock or
     * a successful extension (ShedLock's rule: either again throws {@link IllegalStateException}); a refused
     * extension leaves it as it was, so the task's final unlock still runs and is refused by the ledger if another
     * holder has the lock now.
     */
    private final class Held implements SimpleLock {
        private final String name;
        private final long token;
        private final Instant lockAtLeastUntil;
        private final SovereignLock.Held threadEntry;
        private boolean spent;

        Held(String name, long token, Instant lockAtLeastUntil, SovereignLock.Held threadEntry) {
            this.name = name;
            this.token = token;
            this.lockAtLeastUntil = lockAtLeastUntil;
            this.threadEntry = threadEntry;
        }

        /**
         * Releases the lock, or keeps it until {@code lockAtLeastUntil} when that is still ahead, in one write.
         * A lock another holder took after this one expired is left alone: the ledger refuses the stale token and
         * journals the refusal, and ShedLock's unlock has nothing to report it with.
         */
        @Override
        public synchronized void unlock() {
            requireUnspent();
            try {
                engine.leases().releaseKeepingUntil(name, token, lockAtLeastUntil);
                spent = true;
            } finally {
                threadEntry.remove(); // the task is over either way: its thread no longer holds the token
            }
        }

        /**
         * Extends a lock that is still live to {@code lockAtMostFor} from now, keeping its token; empty when the
         * lock has expired (even if nobody took it) or another holder has it, decided in the one statement that
         * would extend it.
         */
        @Override
        public synchronized Optional<SimpleLock> extend(Duration lockAtMostFor, Duration lockAtLeastFor) {
            requireUnspent();
            Instant now = clock.instant();
            // ShedLock's own checks of the two durations (lockAtLeastFor within lockAtMostFor, none negative)
            LockConfiguration extended = new LockConfiguration(now, name, lockAtMostFor, lockAtLeastFor);
            try {
                engine.leases().extend(name, token, lockAtMostFor);
            } catch (Refusal r) {
                if (r.category() == RefusalCategory.ACTOR_LEASE_LOST) {
                    return Optional.empty();
                }
                throw r;
            }
            spent = true;
            return Optional.of(new Held(name, token, extended.getLockAtLeastUntil(), threadEntry));
        }

        private void requireUnspent() {
            if (spent) {
                throw new IllegalStateException("The lock '" + name + "' (token " + token + ") was already unlocked"
                        + " or extended; unlock or extend the lock the last extension returned.");
            }
        }

        @Override
        public String toString() {
            return "SovereignLock[" + name + ", token " + token + "]";
        }
    }
}
