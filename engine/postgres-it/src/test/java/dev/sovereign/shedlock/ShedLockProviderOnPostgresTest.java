package dev.sovereign.shedlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.base.StorageException;
import dev.sovereign.engine.testing.PgTestBackend;
import dev.sovereign.engine.testing.TestBackend;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * {@link ShedLockProviderContract} on PostgreSQL: a fresh database per test on this JVM's embedded server; and a
 * worker login meets a new lock name only as far as the ledger's owner allows workers to add actors.
 */
class ShedLockProviderOnPostgresTest extends ShedLockProviderContract {
    @Override
    protected TestBackend backend() {
        return PgTestBackend.INSTANCE;
    }

    @Test
    void aWorkerLoginMeetingANewLockNameIsRefusedWithTheOperatorsStepsUntilTheOwnerAllowsIt() {
        a.actors().add("weekly-report"); // registered first by the owner: a worker may lock it
        Engine worker = workerEngine("host_a");
        SovereignLockProvider provider = new SovereignLockProvider(worker);
        provider.lock(config("weekly-report", Duration.ofSeconds(10), Duration.ZERO))
                .orElseThrow()
                .unlock();

        assertThatThrownBy(() -> provider.lock(config("nightly-report", Duration.ofSeconds(10), Duration.ZERO)))
                .isInstanceOfSatisfying(StorageException.class, e -> {
                    assertThat(e.problem()).isEqualTo(StorageException.Problem.READ_ONLY);
                    assertThat(e.getMessage())
                            .contains("sovereign actor add NAME")
                            .contains("sovereign actor workers-may-add on");
                });
        assertThat(SovereignLock.currentToken()).isEmpty();
        assertThat(a.actors().find("nightly-report")).isEmpty();

        a.setWorkersMayAddActors(true); // the owner's step; the same provider now gets the lock
        provider.lock(config("nightly-report", Duration.ofSeconds(10), Duration.ZERO))
                .orElseThrow()
                .unlock();
        assertThat(a.actors().find("nightly-report")).isPresent();
    }
}
