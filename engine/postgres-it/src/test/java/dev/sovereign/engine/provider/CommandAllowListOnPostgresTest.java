package dev.sovereign.engine.provider;

import dev.sovereign.engine.testing.PgTestBackend;
import dev.sovereign.engine.testing.TestBackend;

/** {@link CommandAllowListContract} on PostgreSQL: a fresh database per test on this JVM's embedded server. */
class CommandAllowListOnPostgresTest extends CommandAllowListContract {
    @Override
    protected TestBackend backend() {
        return PgTestBackend.INSTANCE;
    }
}
