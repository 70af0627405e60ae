package dev.sovereign.engine.lease;

import dev.sovereign.engine.testing.TestBackend;

/** {@link ClockStepBackContract} on SQLite: a real file per test. */
class ClockStepBackOnSqliteTest extends ClockStepBackContract {
    @Override
    protected TestBackend backend() {
        return TestBackend.sqlite();
    }
}
