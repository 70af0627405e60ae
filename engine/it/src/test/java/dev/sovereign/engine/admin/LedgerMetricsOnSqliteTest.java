package dev.sovereign.engine.admin;

import dev.sovereign.engine.testing.TestBackend;

/** {@link LedgerMetricsContract} on SQLite: a real file per test. */
class LedgerMetricsOnSqliteTest extends LedgerMetricsContract {
    @Override
    protected TestBackend backend() {
        return TestBackend.sqlite();
    }
}
