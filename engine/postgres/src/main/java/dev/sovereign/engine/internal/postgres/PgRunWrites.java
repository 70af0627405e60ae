package dev.sovereign.engine.internal.postgres;

import dev.sovereign.engine.internal.jdbc.JdbcRuns;
import dev.sovereign.engine.internal.jdbc.JdbcTx;
import dev.sovereign.engine.provider.Outcome;
import dev.sovereign.engine.run.Attempt;
import dev.sovereign.engine.spi.RunStore.Completion;
import java.sql.SQLException;
import java.util.Optional;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * The common case of an attempt's start and of a run's terminal write in one round trip, through the ledger's run
 * functions (schema version 17, decision 0921): {@code sovereign_attempt_start} and {@code sovereign_attempt_finish}
 * send the full path's statements from inside the server, or write nothing and return no row, and {@link JdbcRuns}
 * then runs its full path in the same transaction, which words every refusal. As for the lease functions
 * ({@link PgLeaseWrites}), a transaction under an identity claim takes the full path: a function's writes do not
 * journal the claim. Stateless.
 */
final class PgRunWrites implements JdbcRuns.Writes {
    static final PgRunWrites INSTANCE = new PgRunWrites();

    /** The terminal write's three rows, each composite column spread out under its own prefix. */
    private static final String FINISHED = Stream.of(
                    spread("ended", "a_", JdbcRuns.ASSIGNMENT_COLUMNS),
                    spread("done", "t_", JdbcRuns.ATTEMPT_COLUMNS),
                    spread("receipt", "r_", JdbcRuns.RECEIPT_COLUMNS))
            .collect(Collectors.joining(", "));

    private PgRunWrites() {}

    private static String spread(String row, String prefix, String columns) {
        return Stream.of(columns.split(","))
                .map(String::strip)
                .map(c -> "(f." + row + ")." + c + " AS " + prefix + c)
                .collect(Collectors.joining(", "));
    }

    @Override
    public Optional<Attempt> startInOneCall(
            JdbcTx tx, String assignmentId, String attemptId, long leaseToken, long ttlMs) throws SQLException {
        if (!((PgTx) tx).mayDelegateWrites()) {
            return Optional.empty();
        }
        Optional<Attempt> started = tx.one(
                "SELECT " + JdbcRuns.ATTEMPT_COLUMNS
                        + " FROM sovereign_attempt_start(?::text, ?::text, ?::text, ?::bigint, ?::bigint)",
                JdbcRuns::mapAttempt,
                assignmentId,
                attemptId,
                tx.processIdentity(),
                leaseToken,
                ttlMs);
        started.ifPresent(a -> ((PgTx) tx).sawMinted(a.token()));
        return started;
    }

    @Override
    public Optional<Completion> finishInOneCall(
            JdbcTx tx, Attempt attempt, Outcome status, String failureCategory, boolean outcomeKnown, String summary)
            throws SQLException {
        if (!((PgTx) tx).mayDelegateWrites()) {
            return Optional.empty();
        }
        return tx.one(
                "SELECT " + FINISHED + " FROM sovereign_attempt_finish(?::text, ?::text, ?::text, ?::text,"
                        + " ?::integer, ?::text) AS f",
                rs -> new Completion(
                        JdbcRuns.mapAssignment(rs, "a_"), JdbcRuns.mapAttempt(rs, "t_"), JdbcRuns.mapReceipt(rs, "r_")),
                attempt.id(),
                tx.processIdentity(),
                status.code(),
                failureCategory,
                outcomeKnown ? 1 : 0,
                summary);
    }
}
