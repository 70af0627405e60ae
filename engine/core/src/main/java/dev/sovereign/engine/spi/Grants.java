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
 * (attempt id → token). The heartbeat keeps exactly these alive, presenting these tokens; anything the
 * database no longer agrees with is dropped here and reported to the listeners at once.
 *
 * <p>An attached lease (decision 0509) is kept alive by its holder's session: its belief is the lease as
 * granted or last renewed, and what {@link #lease} and {@link #leases} return is derived from the session's
 * last committed beat ({@link Lease#keptAliveAt}), the same rule the database applies to the row. A beat
 * therefore changes one field here, not one belief per lease; and the session check's values over the believed
 * tokens ({@link SessionCheck#of}) are kept as leases come and go instead of recomputed every beat.
 *
 * <p>This is a cache of beliefs, never a source of truth: every write still presents its token to
 * the database. Thread-safe.
 */
public final class Grants {
    private final Map<String, Lease> leases = new ConcurrentHashMap<>();
    private final Map<String, Long> attempts = new ConcurrentHashMap<>();
    private final List<GrantLossListener> listeners = new CopyOnWriteArrayList<>();
    /** Guards every change of {@link #leases} together with {@link #believedValues}. */
    private final Object leaseLock = new Object();
    /** The session check's values over the believed tokens: count and sum of residues. */
    private final long[] believedValues = new long[2];
    /** The last committed beat of this process's session, in the database's clock; {@code Long.MIN_VALUE}: none. */
    private volatile long sessionBeat = Long.MIN_VALUE;

    public void holdLease(Lease lease) {
        synchronized (leaseLock) {
            Lease before = leases.put(lease.actor(), lease);
            if (before != null) {
                SessionCheck.add(believedValues, before.token(), -1);
            }
            SessionCheck.add(believedValues, lease.token(), +1);
        }
    }

    /** The lease this engine believes it holds for {@code actor}, or null (also for a null actor). */
    public Lease lease(String actor) {
        return actor == null ? null : alive(leases.get(actor));
    }

    /** Forgets a lease if it is still the one with {@code token}. */
    public boolean dropLease(String actor, long token) {
        synchronized (leaseLock) {
            return forget(actor, token);
        }
    }

    public List<Lease> leases() {
        List<Lease> out = new ArrayList<>(leases.size());
        for (Lease l : leases.values()) {
            out.add(alive(l));
        }
        return out;
    }

    /**
     * What a beat compares with the database, taken together: the believed leases as granted or last renewed
     * (not yet kept alive by any beat: {@link Lease#keptAliveAt} derives that) and the session check's values
     * over their tokens.
     */
    public record Beliefs(List<Lease> leases, long[] values) {}

    public Beliefs beliefs() {
        synchronized (leaseLock) {
            return new Beliefs(List.copyOf(leases.values()), believedValues.clone());
        }
    }

    /**
     * Records the beat at {@code beat} (the time the database stamped on the session row) once its transaction
     * committed: every attached lease still believed is kept alive from it. Beats of one engine are serialised, so
     * this is the last one; after a step back of the clock it is earlier than the one before, as the row is.
     */
    public void sessionKept(long beat) {
        sessionBeat = beat;
    }

    /** The belief as a reader sees it: an attached lease kept alive by the session's last beat. */
    private Lease alive(Lease l) {
        long beat = sessionBeat;
        return l == null || !l.attached() || beat == Long.MIN_VALUE ? l : l.keptAliveAt(beat);
    }

    private boolean forget(String actor, long token) {
        Lease l = actor == null ? null : leases.get(actor);
        if (l != null && l.token() == token && leases.remove(actor, l)) {
            SessionCheck.add(believedValues, token, -1);
            return true;
        }
        return false;
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
        synchronized (leaseLock) {
            forget(actor, token);
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
