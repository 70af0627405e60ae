package dev.sovereign.engine.admin;

import dev.sovereign.engine.testing.TestBackend;

/** {@link RetentionContract} on SQLite files. */
class RetentionOnSqliteTest extends RetentionContract {
    @Override
    protected TestBackend backend() {
        return TestBackend.sqlite();
    }
}
