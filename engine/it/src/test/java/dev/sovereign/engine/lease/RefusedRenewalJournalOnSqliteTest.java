package dev.sovereign.engine.lease;

import dev.sovereign.engine.testing.TestBackend;

/** {@link RefusedRenewalJournalContract} on SQLite: a real file per test. */
class RefusedRenewalJournalOnSqliteTest extends RefusedRenewalJournalContract {
    @Override
    protected TestBackend backend() {
        return TestBackend.sqlite();
    }
}
