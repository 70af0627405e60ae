package dev.sovereign.engine.attack.standing;

import dev.sovereign.engine.testing.TestBackend;

/** {@link StandingAttackContract} on SQLite: the attacker writes the file, as the sqlite3 shell reaches it. */
class StandingAttackOnSqliteTest extends StandingAttackContract {
    @Override
    protected TestBackend backend() {
        return TestBackend.sqlite();
    }
}
