package dev.sovereign.engine;

import dev.sovereign.engine.testing.TestBackend;

/** {@link BadInputRefusalContract} on SQLite: a real file per test. */
class BadInputRefusalOnSqliteTest extends BadInputRefusalContract {
    @Override
    protected TestBackend backend() {
        return TestBackend.sqlite();
    }
}
