package dev.sovereign.engine;

import dev.sovereign.engine.testing.PgTestBackend;
import dev.sovereign.engine.testing.TestBackend;

/** {@link BadInputRefusalContract} on PostgreSQL: a fresh database per test on this JVM's embedded server. */
class BadInputRefusalOnPostgresTest extends BadInputRefusalContract {
    @Override
    protected TestBackend backend() {
        return PgTestBackend.INSTANCE;
    }
}
