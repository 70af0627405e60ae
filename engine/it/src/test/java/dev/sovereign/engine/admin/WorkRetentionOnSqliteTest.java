package dev.sovereign.engine.admin;

import dev.sovereign.engine.testing.TestBackend;

/** {@link WorkRetentionContract} on SQLite files. */
class WorkRetentionOnSqliteTest extends WorkRetentionContract {
    @Override
    protected TestBackend backend() {
        return TestBackend.sqlite();
    }
}
