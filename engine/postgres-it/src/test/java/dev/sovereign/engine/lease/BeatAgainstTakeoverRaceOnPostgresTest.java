package dev.sovereign.engine.lease;

import dev.sovereign.engine.testing.PgTestBackend;
import dev.sovereign.engine.testing.TestBackend;

/** {@link BeatAgainstTakeoverRaceContract} on PostgreSQL: a fresh database per test on this JVM's embedded server. */
class BeatAgainstTakeoverRaceOnPostgresTest extends BeatAgainstTakeoverRaceContract {
    @Override
    protected TestBackend backend() {
        return PgTestBackend.INSTANCE;
    }
}
