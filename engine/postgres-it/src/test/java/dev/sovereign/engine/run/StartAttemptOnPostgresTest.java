package dev.sovereign.engine.run;

import dev.sovereign.engine.testing.PgTestBackend;
import dev.sovereign.engine.testing.TestBackend;

/** {@link StartAttemptContract} on PostgreSQL: a fresh database per test on this JVM's embedded server. */
class StartAttemptOnPostgresTest extends StartAttemptContract {
    @Override
    protected TestBackend backend() {
        return PgTestBackend.INSTANCE;
    }
}
