package dev.sovereign.engine.spi;

import dev.sovereign.engine.lease.Lease;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What a heartbeat checks of the leases attached to its process's session (decision 0509), the same on every
 * backend: a beat writes only the session row, so it must still find out whether the database agrees with what
 * the process believes it holds.
 *
 * <p>Every beat compares the count and a checksum (the sum of residues) of the tokens attached to the session
 * (read by the backend from its covering index in one statement, in the same arithmetic) with those of the beliefs
 * ({@link #of}). Tokens are distinct, so a lost lease alone or an unbelieved row alone changes the count, and one of
 * each changes the sum. Only two or more of each whose sums agree escape it — lost leases and rows attached by
 * writes whose outcome the process never learned, at the same beat, with equal token sums (tokens only grow, so the
 * unbelieved rows, the newest grants, would have to sum to the older lost ones) — and they wait for the next
 * comparison of the rows, at most {@link #VERIFY_EVERY_MS} later. A second checksum (sum of squared residues) closed
 * that too, and cost a third of the check's time at 1,000 leases (decision 0509). The beliefs' values are kept by
 * {@link Grants} as leases come and go, so a beat's own work does not grow with the leases it keeps. When they
 * differ, on the first beat, and at least every {@link #VERIFY_EVERY_MS} anyway, the backend reads the attached rows themselves and {@link #compare}s them: a
 * believed lease that is not there is lost; a row there that the process does not believe it holds is detached
 * once two comparisons in a row saw it with the same token (one sighting could be a grant that committed and has
 * not reached the beliefs yet).
 *
 * <p>One per heartbeat; its beats are serialised (not thread-safe).
 */
public final class SessionCheck {
    /** At least this often a beat reads the attached rows themselves, not only their count and checksum. */
    public static final long VERIFY_EVERY_MS = 5_000;
    /**
     * The largest prime below 2^32: a sum of 2^31 such residues fits a long. The store layer's SQL computes the same
     * residues over the attached rows ({@code LeaseSql.checkColumns} in engine/jdbc).
     */
    public static final long P1 = 4_294_967_291L;

    /** Attached rows not believed, by actor, with their token, as the last comparison saw them. */
    private Map<String, Long> unbelievedLastTime = Map.of();
    /** When the last comparison read the rows; {@code Long.MIN_VALUE}: never. */
    private long lastComparedAt = Long.MIN_VALUE;

    /** The check's values over {@code tokens}, as the backend's SQL computes them over the rows. */
    public static long[] of(Iterable<Long> tokens) {
        long[] values = new long[2];
        for (long t : tokens) {
            add(values, t, +1);
        }
        return values;
    }

    /**
     * Adds one token to the check's values ({@code sign} +1), or takes it away (-1): how {@link Grants} keeps the
     * values over its beliefs as leases come and go, instead of a beat recomputing them over every belief.
     */
    static void add(long[] values, long token, int sign) {
        values[0] += sign;
        values[1] += sign * (token % P1);
    }

    /**
     * Whether the next {@link #compare} may ask for a detach: only a row the previous comparison already saw attached
     * and not believed can be detached (at its second sighting). A backend whose beat must take a lock before its
     * session row for a detach (PostgreSQL, decision 0913) takes it only then.
     */
    public boolean mayDetach() {
        return !unbelievedLastTime.isEmpty();
    }

    /** Whether the rows must be read this beat: the database's values differ from the beliefs', or it is time. */
    public boolean mustCompare(long[] found, Grants.Beliefs beliefs, long now) {
        return lastComparedAt == Long.MIN_VALUE
                || now - lastComparedAt >= VERIFY_EVERY_MS
                || now < lastComparedAt
                || !Arrays.equals(found, beliefs.values());
    }

    /**
     * The leases a beat at {@code now} kept alive: every belief but the {@code lost} ones, as {@link Grants} shows
     * them once the beat committed.
     */
    public static List<Lease> kept(Grants.Beliefs beliefs, Map<String, Long> lost, long now) {
        List<Lease> kept = new ArrayList<>(beliefs.leases().size());
        for (Lease l : beliefs.leases()) {
            if (!lost.containsKey(l.actor())) {
                kept.add(l.attached() ? l.keptAliveAt(now) : l);
            }
        }
        return kept;
    }

    /**
     * What a comparison of the attached rows (actor → token) with the beliefs found.
     *
     * @param lost     believed and not attached to the session with that token (actor → believed token)
     * @param toDetach attached and not believed, seen so by the previous comparison too (actor → token)
     */
    public record Outcome(Map<String, Long> lost, Map<String, Long> toDetach) {}

    /** Compares, and remembers what it saw for the next comparison (kept also if the beat's transaction fails). */
    public Outcome compare(Grants.Beliefs beliefs, Map<String, Long> attached, long now) {
        Map<String, Long> believed = new HashMap<>();
        beliefs.leases().forEach(l -> believed.put(l.actor(), l.token()));
        Map<String, Long> lost = new HashMap<>();
        believed.forEach((actor, token) -> {
            if (!token.equals(attached.get(actor))) {
                lost.put(actor, token);
            }
        });
        Map<String, Long> toDetach = new HashMap<>();
        Map<String, Long> unbelieved = new HashMap<>();
        attached.forEach((actor, token) -> {
            if (!token.equals(believed.get(actor))) {
                if (token.equals(unbelievedLastTime.get(actor))) {
                    toDetach.put(actor, token);
                } else {
                    unbelieved.put(actor, token);
                }
            }
        });
        unbelievedLastTime = Map.copyOf(unbelieved);
        lastComparedAt = now;
        return new Outcome(lost, toDetach);
    }
}
