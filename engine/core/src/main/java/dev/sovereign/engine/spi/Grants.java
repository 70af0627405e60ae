package dev.sovereign.engine.spi;

import dev.sovereign.engine.lease.GrantLossListener;
import dev.sovereign.engine.lease.GrantLost;
import dev.sovereign.engine.lease.Lease;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * What this engine instance believes it holds: actor leases (actor → lease) and execution attempts
 * (attempt id → token). The heartbeat renews exactly these, presenting these tokens; anything the
 * database no longer renews is dropped here and reported to the listeners at once.
 *
 * <p>This is a cache of beliefs, never a source of truth: every write still presents its token to
 * the database. Thread-safe.
 */
public final class Grants {
    private final Map<String, Lease> leases = new ConcurrentHashMap<>();
    private final Map<String, Long> attempts = new ConcurrentHashMap<>();
    private final List<GrantLossListener> listeners = new CopyOnWriteArrayList<>();

    public void holdLease(Lease lease) {
        leases.put(lease.actor(), lease);
    }

    /** The lease this engine believes it holds for {@code actor}, or null (also for a null actor). */
    public Lease lease(String actor) {
        return actor == null ? null : leases.get(actor);
    }

    /** Forgets a lease if it is still the one with {@code token}. */
    public boolean dropLease(String actor, long token) {
        Lease l = lease(actor);
        return l != null && l.token() == token && leases.remove(actor, l);
    }

    public List<Lease> leases() {
        return new ArrayList<>(leases.values());
    }

    public void holdAttempt(String attemptId, long token) {
        attempts.put(attemptId, token);
    }

    public void dropAttempt(String attemptId) {
        attempts.remove(attemptId);
    }

    public boolean holdsAttempt(String attemptId, long token) {
        Long t = attempts.get(attemptId);
        return t != null && t == token;
    }

    public Map<String, Long> attempts() {
        return Map.copyOf(attempts);
    }

    public void addListener(GrantLossListener listener) {
        listeners.add(listener);
    }

    public void removeListener(GrantLossListener listener) {
        listeners.remove(listener);
    }

    /** Drops a lost lease (if still believed held under that token) and tells every listener. */
    public void leaseLost(String actor, long token) {
        Lease l = leases.get(actor);
        if (l != null && l.token() == token) {
            leases.remove(actor, l);
        }
        fire(new GrantLost("actor", actor, token));
    }

    public void attemptLost(String attemptId, long token) {
        attempts.remove(attemptId, token);
        fire(new GrantLost("attempt", attemptId, token));
    }

    private void fire(GrantLost lost) {
        for (GrantLossListener l : listeners) {
            try {
                l.onLost(lost);
            } catch (RuntimeException e) {
                // A misbehaving listener must not stop the others from learning of the loss.
                Thread t = Thread.currentThread();
                t.getUncaughtExceptionHandler().uncaughtException(t, e);
            }
        }
    }
}
