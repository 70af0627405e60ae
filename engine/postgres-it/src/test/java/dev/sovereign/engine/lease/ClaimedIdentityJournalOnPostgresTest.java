package dev.sovereign.engine.lease;

import dev.sovereign.engine.testing.PgTestBackend;
import dev.sovereign.engine.testing.TestBackend;

/** {@link ClaimedIdentityJournalContract} on PostgreSQL: a fresh database per test on this JVM's embedded server. */
class ClaimedIdentityJournalOnPostgresTest extends ClaimedIdentityJournalContract {
    @Override
    protected TestBackend backend() {
        return PgTestBackend.INSTANCE;
    }
}
