package dev.sovereign.engine.lease;

import dev.sovereign.engine.testing.TestBackend;

/** {@link BeatAgainstTakeoverAcrossProcessesContract} on SQLite: a real file per test. */
class BeatAgainstTakeoverAcrossProcessesOnSqliteTest extends BeatAgainstTakeoverAcrossProcessesContract {
    @Override
    protected TestBackend backend() {
        return TestBackend.sqlite();
    }
}
