package dev.sovereign.engine.run;

import dev.sovereign.engine.testing.PgTestBackend;
import dev.sovereign.engine.testing.TestBackend;

/** {@link WorkspaceContract} on PostgreSQL: a fresh database per test on this JVM's embedded server. */
class WorkspaceOnPostgresTest extends WorkspaceContract {
    @Override
    protected TestBackend backend() {
        return PgTestBackend.INSTANCE;
    }
}
