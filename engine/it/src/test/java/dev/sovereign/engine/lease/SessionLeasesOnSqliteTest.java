package dev.sovereign.engine.lease;

import dev.sovereign.engine.testing.TestBackend;

/** {@link SessionLeasesContract} on SQLite: a real file per test. */
class SessionLeasesOnSqliteTest extends SessionLeasesContract {
    @Override
    protected TestBackend backend() {
        return TestBackend.sqlite();
    }
}
