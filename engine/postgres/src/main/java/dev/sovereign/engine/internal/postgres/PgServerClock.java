package dev.sovereign.engine.internal.postgres;

import dev.sovereign.engine.base.LedgerLocation;
import dev.sovereign.engine.base.StorageException;
import dev.sovereign.engine.base.StorageException.Problem;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * The server clock's pin (schema version 2, docs/decisions/0901): NULL in production, where
 * {@code sovereign_now_ms()} is the server's {@code clock_timestamp()}; set only by the contract tests'
 * backend, through the ledger owner's connection. Every open refuses a pinned clock unless this JVM says it
 * runs tests ({@link #ALLOW_PINNED}): a pinned clock would stop every lease from expiring, or make a live one
 * look expired. Stateless.
 */
public final class PgServerClock {
    /** The system property a test JVM sets to {@code true} to open ledgers whose clock it pins. */
    public static final String ALLOW_PINNED = "sovereign.test.pinnedServerClock";

    private PgServerClock() {}

    /** Refuses, in one sentence, a ledger whose server clock is pinned, unless this JVM runs tests. */
    static void requireUnmoved(Connection c, LedgerLocation location) throws SQLException {
        Long pinned = pinned(c);
        if (pinned != null && !Boolean.getBoolean(ALLOW_PINNED)) {
            throw new StorageException(
                    Problem.CORRUPT,
                    null,
                    "The PostgreSQL ledger " + location + " has its server"
                            + " clock pinned at " + pinned
                            + " (a test's setting, in table server_clock), so no lease in it would"
                            + " ever expire; refusing to use it (its owner can reset it: UPDATE server_clock SET pinned_ms ="
                            + " NULL).",
                    null);
        }
    }

    /** The pinned epoch milliseconds, or null when the clock is the server's own. */
    public static Long pinned(Connection c) throws SQLException {
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT pinned_ms FROM server_clock WHERE id = 1")) {
            if (!rs.next()) {
                return null;
            }
            long v = rs.getLong(1);
            return rs.wasNull() ? null : v;
        }
    }
}
