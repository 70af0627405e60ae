package dev.sovereign.engine.internal.jdbc;

import dev.sovereign.engine.spi.SessionCheck;

/**
 * The SQL both backends read leases with, in a {@link Dialect}'s words: the effective renewal and expiry of a lease
 * row attached to its holder's session (decision 0509), the lease columns a store maps, and the session check's two
 * values. Every reader and takeover decides from {@link #effective}; each schema's guard applies the same rule.
 * Stateless.
 */
public final class LeaseSql {
    /** The holder's last beat as {@link #holderJoin} provides it. */
    static final String JOINED_BEAT = "s.heartbeat_at";

    private LeaseSql() {}

    /**
     * A lease row's effective expiry or renewal as one SQL expression: for a row attached to its holder's session, the
     * later of the row's own {@code column} and the holder's last heartbeat (plus the lease's TTL for the expiry);
     * otherwise the row's own. The holder's beat is read by a correlated subquery (null when the row is missing).
     *
     * @param row    the lease row's prefix ({@code "l."}, or {@code "actor_leases."})
     * @param column {@code expires_at} or {@code renewed_at}
     */
    public static String effective(Dialect d, String row, String column) {
        return effective(d, row, column, holdersBeat(row));
    }

    /**
     * {@link #effective(Dialect, String, String)} with the holder's last heartbeat read from {@code beat}, an
     * expression the statement provides: the column of {@link #holderJoin} ({@code "s.heartbeat_at"}), so a reader
     * of many rows looks the holder up once per row by the join instead of twice by subqueries. It must be null
     * exactly when the holder's row is missing, as the subquery is; the rule is then the row's own value, as it is
     * for a detached row.
     */
    public static String effective(Dialect d, String row, String column, String beat) {
        String later = column.equals("expires_at") ? beat + " + " + row + "ttl_ms" : beat;
        return "(CASE WHEN " + d.isTrue(row + "attached") + " THEN " + d.greatest() + "(" + row + column + ", coalesce("
                + later + ", " + row + column + ")) ELSE " + row + column + " END)";
    }

    /**
     * The join a reader of many lease rows makes to read each holder's last beat once per row: the holder's process
     * row by its primary key, null when it is missing.
     */
    public static String holderJoin(String row) {
        return "LEFT JOIN processes s ON s.identity = " + row + "process_identity";
    }

    /**
     * The console reader's lease columns after the actor (holder, token, TTL, acquired, the effective renewal and
     * expiry, renewals) of the row prefixed by {@code row}, the holder's beat read from {@link #holderJoin}: the same
     * rule and values as {@link #leaseColumns}, one look-up per row instead of two subqueries (decision 0511).
     */
    public static String readerColumns(Dialect d, String row) {
        return row + "process_identity, " + row + "token, " + row + "ttl_ms, " + row + "acquired_at, "
                + effective(d, row, "renewed_at", JOINED_BEAT) + ", "
                + effective(d, row, "expires_at", JOINED_BEAT) + ", " + row + "renewals";
    }

    /** The holder's last heartbeat of the lease row prefixed by {@code row}, as a correlated subquery (null: no row). */
    static String holdersBeat(String row) {
        return "(SELECT s.heartbeat_at FROM processes s WHERE s.identity = " + row + "process_identity)";
    }

    /**
     * The lease columns a store maps into a {@code Lease} (actor, holder, token, TTL, acquired, the effective renewal
     * and expiry, attached), of the row prefixed by {@code row}.
     */
    public static String leaseColumns(Dialect d, String row) {
        return row + "actor_id AS actor_id, " + row + "process_identity AS process_identity, " + row
                + "token AS token, "
                + row + "ttl_ms AS ttl_ms, " + row + "acquired_at AS acquired_at, "
                + effective(d, row, "renewed_at") + " AS renewed_at, "
                + effective(d, row, "expires_at") + " AS expires_at, " + row + "attached AS attached";
    }

    /**
     * The session check's two aggregate columns over a token column (decision 0509): the count and the sum of the
     * residues modulo {@link SessionCheck#P1}, as {@link SessionCheck#of} computes them over the beliefs.
     */
    public static String checkColumns(String token) {
        return "count(*), coalesce(sum(" + token + " % " + SessionCheck.P1 + "), 0)";
    }
}
