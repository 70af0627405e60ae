package dev.sovereign.engine.run;

import dev.sovereign.engine.testing.TestBackend;

/** {@link RunTtlAndHeartbeatContract} on SQLite: a real file per test. */
class RunTtlAndHeartbeatOnSqliteTest extends RunTtlAndHeartbeatContract {
    @Override
    protected TestBackend backend() {
        return TestBackend.sqlite();
    }
}
