package dev.sovereign.engine.supervisor;

import dev.sovereign.engine.testing.TestBackend;

/** {@link SupervisorSweepContract} on SQLite: a real file per test. */
class SupervisorSweepOnSqliteTest extends SupervisorSweepContract {
    @Override
    protected TestBackend backend() {
        return TestBackend.sqlite();
    }
}
