package dev.sovereign.engine.admin;

import dev.sovereign.engine.testing.PgTestBackend;
import dev.sovereign.engine.testing.TestBackend;

/** {@link WorkRetentionContract} on PostgreSQL: a fresh database per test on this JVM's embedded server. */
class WorkRetentionOnPostgresTest extends WorkRetentionContract {
    @Override
    protected TestBackend backend() {
        return PgTestBackend.INSTANCE;
    }
}
