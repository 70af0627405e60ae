package dev.sovereign.engine.worker;

import dev.sovereign.engine.testing.TestBackend;

/** {@link WorkerContract} on SQLite: a real file per test. */
class WorkerOnSqliteTest extends WorkerContract {
    @Override
    protected TestBackend backend() {
        return TestBackend.sqlite();
    }
}
