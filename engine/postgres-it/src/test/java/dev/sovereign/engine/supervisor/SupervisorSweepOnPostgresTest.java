package dev.sovereign.engine.supervisor;

import dev.sovereign.engine.testing.PgTestBackend;
import dev.sovereign.engine.testing.TestBackend;

/** {@link SupervisorSweepContract} on PostgreSQL: a fresh database per test on this JVM's embedded server. */
class SupervisorSweepOnPostgresTest extends SupervisorSweepContract {
    @Override
    protected TestBackend backend() {
        return PgTestBackend.INSTANCE;
    }
}
