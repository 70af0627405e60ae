package dev.sovereign.engine.docs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.lease.Lease;
import dev.sovereign.engine.testing.TempDatabase;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** docs/shedlock.md quotes {@link ShedLockExample} verbatim, and the example really runs. */
class ShedLockExampleTest {
    private static final Path SOURCE = Path.of("src/test/java/dev/sovereign/engine/docs/ShedLockExample.java");
    private static final Path DOC = Path.of("../../docs/shedlock.md");

    @RegisterExtension
    final TempDatabase temp = new TempDatabase();

    @Test
    void theJobRunsOnceUnderItsTokenAndLockAtLeastForKeepsTheNextNodeOut() throws Throwable {
        ShedLockExample.ReportStore store = new ShedLockExample.ReportStore();
        assertThat(ShedLockExample.runNightlyReport(temp.file(), store)).isTrue();
        Engine look = temp.open(Clock.systemUTC());
        Lease kept = look.leases().current("nightly-report").orElseThrow();
        assertThat(store.report()).isEqualTo("nightly report, written under token " + kept.token());
        // the task ended at once, its engine closed: lockAtLeastFor still holds the lock for the minute
        assertThat(kept.expiresAt()).isGreaterThan(System.currentTimeMillis() + 50_000);
        assertThat(kept.attached()).isFalse();

        // another node (another engine, another process identity) within that minute: not run
        assertThat(ShedLockExample.runNightlyReport(temp.file(), store)).isFalse();
        assertThat(store.report()).isEqualTo("nightly report, written under token " + kept.token());

        // a writer that presents an older token is refused by the store
        assertThatThrownBy(() -> store.write(kept.token() - 1, "late"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("stale writer");
    }

    @Test
    void theDocQuotesTheExampleVerbatim() throws Exception {
        assertThat(Files.readString(DOC)).contains("```java\n" + Files.readString(SOURCE) + "```");
    }
}
