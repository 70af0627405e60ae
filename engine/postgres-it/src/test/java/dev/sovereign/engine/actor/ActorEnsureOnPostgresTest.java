package dev.sovereign.engine.actor;

import dev.sovereign.engine.testing.PgTestBackend;
import dev.sovereign.engine.testing.TestBackend;

/** {@link ActorEnsureContract} on PostgreSQL: a fresh database per test on this JVM's embedded server. */
class ActorEnsureOnPostgresTest extends ActorEnsureContract {
    @Override
    protected TestBackend backend() {
        return PgTestBackend.INSTANCE;
    }
}
