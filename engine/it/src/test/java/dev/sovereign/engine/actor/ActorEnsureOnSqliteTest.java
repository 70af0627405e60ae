package dev.sovereign.engine.actor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.base.Refusal;
import dev.sovereign.engine.base.RefusalCategory;
import dev.sovereign.engine.testing.SettableClock;
import dev.sovereign.engine.testing.TestBackend;
import org.junit.jupiter.api.Test;

/** {@link ActorEnsureContract} on SQLite: a real file per test; and a file has no logins to switch. */
class ActorEnsureOnSqliteTest extends ActorEnsureContract {
    @Override
    protected TestBackend backend() {
        return TestBackend.sqlite();
    }

    @Test
    void aSqliteLedgerLetsEveryWriterAddActorsAndHasNoSwitch() {
        Engine e = temp.open(new SettableClock());
        assertThat(e.workersMayAddActors()).isTrue();
        assertThatThrownBy(() -> e.setWorkersMayAddActors(false)).isInstanceOfSatisfying(Refusal.class, r -> {
            assertThat(r.category()).isEqualTo(RefusalCategory.INVALID_ARGUMENT);
            assertThat(r.getMessage()).contains("no logins");
        });
        assertThat(e.workersMayAddActors()).isTrue();
    }
}
