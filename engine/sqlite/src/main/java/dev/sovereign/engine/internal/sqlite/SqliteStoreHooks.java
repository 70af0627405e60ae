package dev.sovereign.engine.internal.sqlite;

import dev.sovereign.engine.internal.jdbc.JdbcLedger;
import dev.sovereign.engine.internal.jdbc.JdbcRuns;
import dev.sovereign.engine.internal.jdbc.JdbcTx;
import dev.sovereign.engine.run.Attempt;
import java.util.Collection;
import java.util.Optional;

/**
 * What the shared heartbeat and recovery ask of SQLite: the lease and run rows as {@link JdbcLeases} and
 * {@link JdbcRuns} define them, and no row locks (every write transaction is {@code BEGIN IMMEDIATE}, holding the
 * file's one write lock from its first statement). Stateless.
 */
final class SqliteStoreHooks implements JdbcLedger.StoreHooks {
    static final SqliteStoreHooks INSTANCE = new SqliteStoreHooks();

    private SqliteStoreHooks() {}

    /** The schema refuses a beat that moves back (V0008): the later of the stamped beat and the clock's reading. */
    @Override
    public String sessionStamp() {
        return "max(heartbeat_at, ?)";
    }

    @Override
    public void lockLeasesOfAttempts(JdbcTx tx, Collection<String> attemptIds) {}

    @Override
    public Optional<Attempt> lockToSettle(JdbcTx tx, String attemptId, Optional<Attempt> seen) {
        return seen;
    }
}
