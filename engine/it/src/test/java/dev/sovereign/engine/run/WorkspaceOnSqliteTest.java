package dev.sovereign.engine.run;

import dev.sovereign.engine.testing.TestBackend;

/** {@link WorkspaceContract} on SQLite: a real file per test. */
class WorkspaceOnSqliteTest extends WorkspaceContract {
    @Override
    protected TestBackend backend() {
        return TestBackend.sqlite();
    }
}
