package dev.sovereign.engine.provider;

import dev.sovereign.engine.testing.PgTestBackend;
import dev.sovereign.engine.testing.TestBackend;

/** {@link CommandProviderContract} on PostgreSQL: a fresh database per test on this JVM's embedded server. */
class CommandProviderOnPostgresTest extends CommandProviderContract {
    @Override
    protected TestBackend backend() {
        return PgTestBackend.INSTANCE;
    }
}
