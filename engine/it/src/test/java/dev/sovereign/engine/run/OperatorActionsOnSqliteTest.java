package dev.sovereign.engine.run;

import dev.sovereign.engine.testing.TestBackend;

/** {@link OperatorActionsContract} on SQLite: a real file per test. */
class OperatorActionsOnSqliteTest extends OperatorActionsContract {
    @Override
    protected TestBackend backend() {
        return TestBackend.sqlite();
    }
}
