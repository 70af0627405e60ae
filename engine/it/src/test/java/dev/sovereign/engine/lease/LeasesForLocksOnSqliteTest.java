package dev.sovereign.engine.lease;

import dev.sovereign.engine.testing.TestBackend;

/** {@link LeasesForLocksContract} on SQLite: a real file per test. */
class LeasesForLocksOnSqliteTest extends LeasesForLocksContract {
    @Override
    protected TestBackend backend() {
        return TestBackend.sqlite();
    }
}
