package dev.sovereign.engine.lease;

import dev.sovereign.engine.testing.PgTestBackend;
import dev.sovereign.engine.testing.TestBackend;

/** {@link ActorLeaseContract} on PostgreSQL: a fresh database per test on this JVM's embedded server. */
class ActorLeaseOnPostgresTest extends ActorLeaseContract {
    @Override
    protected TestBackend backend() {
        return PgTestBackend.INSTANCE;
    }
}
