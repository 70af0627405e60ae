package dev.sovereign.engine.worker;

import dev.sovereign.engine.testing.PgTestBackend;
import dev.sovereign.engine.testing.TestBackend;

/** {@link WorkerContract} on PostgreSQL: a fresh database per test on this JVM's embedded server. */
class WorkerOnPostgresTest extends WorkerContract {
    @Override
    protected TestBackend backend() {
        return PgTestBackend.INSTANCE;
    }
}
