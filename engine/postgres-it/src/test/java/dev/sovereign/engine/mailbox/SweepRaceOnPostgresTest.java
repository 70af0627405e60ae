package dev.sovereign.engine.mailbox;

import dev.sovereign.engine.testing.PgTestBackend;
import dev.sovereign.engine.testing.TestBackend;

/** {@link SweepRaceContract} on PostgreSQL: a fresh database per test on this JVM's embedded server. */
class SweepRaceOnPostgresTest extends SweepRaceContract {
    @Override
    protected TestBackend backend() {
        return PgTestBackend.INSTANCE;
    }
}
