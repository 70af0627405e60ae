package dev.sovereign.shedlock;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.testing.TestBackend;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** {@link ShedLockProviderContract} on SQLite: a real file per test; a file has no logins, so any node adds names. */
class ShedLockProviderOnSqliteTest extends ShedLockProviderContract {
    @Override
    protected TestBackend backend() {
        return TestBackend.sqlite();
    }

    @Test
    void everyProcessThatWritesTheFileRegistersANewLockName() {
        Engine worker = workerEngine("host_a");
        new SovereignLockProvider(worker)
                .lock(config("nightly-report", Duration.ofSeconds(10), Duration.ZERO))
                .orElseThrow()
                .unlock();
        org.assertj.core.api.Assertions.assertThat(a.actors().find("nightly-report"))
                .isPresent();
    }
}
