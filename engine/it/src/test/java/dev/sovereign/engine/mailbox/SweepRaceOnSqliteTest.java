package dev.sovereign.engine.mailbox;

import dev.sovereign.engine.testing.TestBackend;

/** {@link SweepRaceContract} on SQLite: a real file per test. */
class SweepRaceOnSqliteTest extends SweepRaceContract {
    @Override
    protected TestBackend backend() {
        return TestBackend.sqlite();
    }
}
