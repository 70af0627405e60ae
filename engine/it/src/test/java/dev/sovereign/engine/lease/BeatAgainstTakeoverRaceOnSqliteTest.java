package dev.sovereign.engine.lease;

import dev.sovereign.engine.testing.TestBackend;

/** {@link BeatAgainstTakeoverRaceContract} on SQLite: a real file per test. */
class BeatAgainstTakeoverRaceOnSqliteTest extends BeatAgainstTakeoverRaceContract {
    @Override
    protected TestBackend backend() {
        return TestBackend.sqlite();
    }
}
