package dev.sovereign.engine.attack.standing;

import dev.sovereign.engine.testing.PgTestBackend;
import dev.sovereign.engine.testing.TestBackend;

/** {@link StandingAttackContract} on PostgreSQL: the attacker is another host's worker login. */
class StandingAttackOnPostgresTest extends StandingAttackContract {
    @Override
    protected TestBackend backend() {
        return PgTestBackend.INSTANCE;
    }
}
