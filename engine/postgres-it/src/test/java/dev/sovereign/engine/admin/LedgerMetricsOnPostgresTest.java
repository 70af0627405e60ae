package dev.sovereign.engine.admin;

import dev.sovereign.engine.testing.PgTestBackend;
import dev.sovereign.engine.testing.TestBackend;

/** {@link LedgerMetricsContract} on PostgreSQL: a fresh database per test on this JVM's embedded server. */
class LedgerMetricsOnPostgresTest extends LedgerMetricsContract {
    @Override
    protected TestBackend backend() {
        return PgTestBackend.INSTANCE;
    }
}
