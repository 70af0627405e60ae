package dev.sovereign.engine.lease;

import dev.sovereign.engine.testing.TestBackend;

/** {@link ActorLeaseContract} on SQLite: a real file per test. */
class ActorLeaseOnSqliteTest extends ActorLeaseContract {
    @Override
    protected TestBackend backend() {
        return TestBackend.sqlite();
    }
}
