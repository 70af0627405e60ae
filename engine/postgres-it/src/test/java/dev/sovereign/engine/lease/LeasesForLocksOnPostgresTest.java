package dev.sovereign.engine.lease;

import dev.sovereign.engine.testing.PgTestBackend;
import dev.sovereign.engine.testing.TestBackend;

/** {@link LeasesForLocksContract} on PostgreSQL: a fresh database per test on this JVM's embedded server. */
class LeasesForLocksOnPostgresTest extends LeasesForLocksContract {
    @Override
    protected TestBackend backend() {
        return PgTestBackend.INSTANCE;
    }
}
