package dev.sovereign.engine.provider;

import dev.sovereign.engine.testing.TestBackend;

/** {@link CommandProviderContract} on SQLite: a real file per test. */
class CommandProviderOnSqliteTest extends CommandProviderContract {
    @Override
    protected TestBackend backend() {
        return TestBackend.sqlite();
    }
}
