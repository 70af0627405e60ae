package dev.sovereign.engine.admin;

import dev.sovereign.engine.testing.TestBackend;

/** {@link AdminReaderContract} on SQLite: a real file per test. */
class AdminReaderOnSqliteTest extends AdminReaderContract {
    @Override
    protected TestBackend backend() {
        return TestBackend.sqlite();
    }
}
