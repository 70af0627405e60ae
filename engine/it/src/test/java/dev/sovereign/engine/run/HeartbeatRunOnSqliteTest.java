package dev.sovereign.engine.run;

import dev.sovereign.engine.testing.TestBackend;

/** {@link HeartbeatRunContract} on SQLite: a real file per test. */
class HeartbeatRunOnSqliteTest extends HeartbeatRunContract {
    @Override
    protected TestBackend backend() {
        return TestBackend.sqlite();
    }
}
