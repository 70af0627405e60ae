package dev.sovereign.engine.internal.postgres;

import dev.sovereign.engine.base.StorageException;
import dev.sovereign.engine.internal.jdbc.JdbcHeartbeat;
import dev.sovereign.engine.internal.jdbc.JdbcLeases;
import dev.sovereign.engine.internal.jdbc.JdbcLedger;
import dev.sovereign.engine.internal.jdbc.JdbcRuns;
import dev.sovereign.engine.internal.jdbc.JdbcTx;
import dev.sovereign.engine.run.Attempt;
import java.sql.SQLException;
import java.util.Collection;
import java.util.Optional;

/**
 * What the shared heartbeat and recovery ask of PostgreSQL: the lease and run rows as {@link JdbcLeases} and
 * {@link JdbcRuns} define them, the row locks of decisions 0900 and 0913, the session stamp its guard makes, and the
 * operator's privilege a tick needs (decision 0902). Thread-safe.
 */
final class PgStoreHooks implements JdbcLedger.StoreHooks {
    private final PgDatabase db;

    PgStoreHooks(PgDatabase db) {
        this.db = db;
    }

    /**
     * The session's guard (V0008) stamps the server's clock whatever is written: its value is the beat. Not asked
     * for since schema version 15: the shared heartbeat writes the stamp itself only where a backend has no
     * {@link #beatInOneCall}.
     */
    @Override
    public String sessionStamp() {
        return "?";
    }

    /** One call instead of three statements (schema version 15, decision 0919): {@code sovereign_beat}. */
    @Override
    public JdbcHeartbeat.OneCall beatInOneCall(JdbcTx tx, String process) throws SQLException {
        return tx.one(
                        "SELECT beat_at, last_token, attached, token_residues FROM sovereign_beat(?::text)",
                        rs -> {
                            long beat = rs.getLong(1);
                            Long beatAt = rs.wasNull() ? null : beat;
                            return new JdbcHeartbeat.OneCall(beatAt, rs.getLong(2), rs.getLong(3), rs.getLong(4));
                        },
                        process)
                .orElseThrow();
    }

    @Override
    public void lockLeasesOfAttempts(JdbcTx tx, Collection<String> attemptIds) throws SQLException {
        tx.query(
                "SELECT l.actor_id FROM actor_leases l WHERE l.actor_id IN (SELECT t.actor_id FROM"
                        + " execution_attempts t WHERE t.id = ANY (?::text[])) ORDER BY l.actor_id FOR SHARE",
                rs -> rs.getString(1),
                textArray(attemptIds));
    }

    /** The actor's lease (shared), then the attempt, then its assignment, each locked until the end of {@code tx}. */
    @Override
    public Optional<Attempt> lockToSettle(JdbcTx tx, String attemptId, Optional<Attempt> seen) throws SQLException {
        if (seen.isPresent()) {
            JdbcLeases.sharedIn(tx, seen.get().actorId());
        }
        Optional<Attempt> found = JdbcRuns.lockAttempt(tx, attemptId);
        if (found.isPresent()) {
            JdbcRuns.lockAssignment(tx, found.get().assignmentId());
        }
        return found;
    }

    /**
     * A tick ends by recording its report in {@code supervisor_ticks}, which only the operator role may INSERT
     * (decision 0902). A login without that privilege (a worker host's) is refused here, before the tick swept
     * or recovered anything, instead of recovering runs and then failing at the end (decision 0316).
     */
    @Override
    public void requireMayRecordTicks() {
        String[] who = db.read(tx -> tx.one(
                        "SELECT current_user::text, has_table_privilege('supervisor_ticks',"
                                + " 'INSERT')::text, 'sovereign_' || current_database() || CASE WHEN current_schema() = 'public'"
                                + " THEN '' ELSE '_' || current_schema() END || '_operator'",
                        rs -> new String[] {rs.getString(1), rs.getString(2), rs.getString(3)})
                .orElseThrow());
        if (!"true".equals(who[1])) {
            throw new StorageException(
                    StorageException.Problem.READ_ONLY,
                    null,
                    "The PostgreSQL login " + who[0]
                            + " may not run the supervisor on the ledger " + db.location()
                            + ": a tick records its report in"
                            + " supervisor_ticks, which only the operator role may write, so nothing was swept or recovered;"
                            + " run it as a login that is a member of " + who[2] + ".",
                    null);
        }
    }

    /** A PostgreSQL array literal of ids, bound as text and cast in the statement: {@code {"att_1","att_2"}}. */
    private static String textArray(Collection<String> ids) {
        StringBuilder b = new StringBuilder("{");
        for (String id : ids) {
            b.append(b.length() > 1 ? "," : "")
                    .append('"')
                    .append(id.replace("\\", "\\\\").replace("\"", "\\\""))
                    .append('"');
        }
        return b.append('}').toString();
    }
}
