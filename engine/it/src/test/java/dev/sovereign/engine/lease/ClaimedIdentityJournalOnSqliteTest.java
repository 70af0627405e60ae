package dev.sovereign.engine.lease;

import dev.sovereign.engine.testing.TestBackend;

/** {@link ClaimedIdentityJournalContract} on SQLite: a real file per test. */
class ClaimedIdentityJournalOnSqliteTest extends ClaimedIdentityJournalContract {
    @Override
    protected TestBackend backend() {
        return TestBackend.sqlite();
    }
}
