package dev.sovereign.engine.admin;

import dev.sovereign.engine.testing.PgTestBackend;
import dev.sovereign.engine.testing.TestBackend;

/** {@link RetentionContract} on PostgreSQL: a fresh database per test on this JVM's embedded server. */
class RetentionOnPostgresTest extends RetentionContract {
    @Override
    protected TestBackend backend() {
        return PgTestBackend.INSTANCE;
    }
}
