package dev.sovereign.engine.run;

import dev.sovereign.engine.testing.TestBackend;

/** {@link BeatAgainstRunTakeoverRaceContract} on SQLite: a real file per test. */
class BeatAgainstRunTakeoverRaceOnSqliteTest extends BeatAgainstRunTakeoverRaceContract {
    @Override
    protected TestBackend backend() {
        return TestBackend.sqlite();
    }
}
