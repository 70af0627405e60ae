package dev.sovereign.engine.run;

import dev.sovereign.engine.testing.PgTestBackend;
import dev.sovereign.engine.testing.TestBackend;

/** {@link BeatAgainstRunTakeoverRaceContract} on PostgreSQL: a fresh database per test on this JVM's embedded server. */
class BeatAgainstRunTakeoverRaceOnPostgresTest extends BeatAgainstRunTakeoverRaceContract {
    @Override
    protected TestBackend backend() {
        return PgTestBackend.INSTANCE;
    }
}
