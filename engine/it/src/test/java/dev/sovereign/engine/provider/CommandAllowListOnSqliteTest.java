package dev.sovereign.engine.provider;

import dev.sovereign.engine.testing.TestBackend;

/** {@link CommandAllowListContract} on SQLite: a real file per test. */
class CommandAllowListOnSqliteTest extends CommandAllowListContract {
    @Override
    protected TestBackend backend() {
        return TestBackend.sqlite();
    }
}
