package dev.sovereign.engine.run;

import dev.sovereign.engine.testing.PgTestBackend;
import dev.sovereign.engine.testing.TestBackend;

/** {@link HeartbeatRunContract} on PostgreSQL: a fresh database per test on this JVM's embedded server. */
class HeartbeatRunOnPostgresTest extends HeartbeatRunContract {
    @Override
    protected TestBackend backend() {
        return PgTestBackend.INSTANCE;
    }
}
