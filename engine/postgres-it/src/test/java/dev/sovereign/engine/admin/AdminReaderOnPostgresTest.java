package dev.sovereign.engine.admin;

import dev.sovereign.engine.testing.PgTestBackend;
import dev.sovereign.engine.testing.TestBackend;

/** {@link AdminReaderContract} on PostgreSQL: a fresh database per test on this JVM's embedded server. */
class AdminReaderOnPostgresTest extends AdminReaderContract {
    @Override
    protected TestBackend backend() {
        return PgTestBackend.INSTANCE;
    }
}
