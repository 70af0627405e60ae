package dev.sovereign.engine.run;

import dev.sovereign.engine.testing.TestBackend;

/** {@link StartAttemptContract} on SQLite: a real file per test. */
class StartAttemptOnSqliteTest extends StartAttemptContract {
    @Override
    protected TestBackend backend() {
        return TestBackend.sqlite();
    }
}
