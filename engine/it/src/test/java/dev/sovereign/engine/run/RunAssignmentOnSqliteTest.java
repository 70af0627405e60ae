package dev.sovereign.engine.run;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sovereign.engine.base.EngineConfig;
import dev.sovereign.engine.internal.sqlite.SqliteLedger;
import dev.sovereign.engine.lease.Lease;
import dev.sovereign.engine.provider.Outcome;
import dev.sovereign.engine.testing.Sqlite;
import dev.sovereign.engine.testing.TestBackend;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * {@link RunAssignmentContract} on SQLite: a real file per test, and the lab sandbox's fault switch, which only
 * SQLite's runs have (PostgreSQL's lab sandbox: {@code PgLabSandboxTest}).
 */
class RunAssignmentOnSqliteTest extends RunAssignmentContract {
    @Override
    protected TestBackend backend() {
        return TestBackend.sqlite();
    }

    @Test
    void theFaultSwitchLetsAStaleHolderCommitWhichIsWhatTheFencePrevents() {
        // only on a lab sandbox (decision 0006); DatabaseEnforcedFenceTest shows it ignored elsewhere
        Path sandbox = temp.dir().resolve("sandbox.db");
        a = temp.open(EngineConfig.forDatabase(sandbox)
                .clock(clock)
                .heartbeat(false)
                .createAsLabSandbox(true)
                .build());
        b = temp.open(
                EngineConfig.forDatabase(sandbox).clock(clock).heartbeat(false).build());
        a.actors().add("operator");
        Assignment x = a.runs().assign("operator", "scripted");
        Lease lease = a.leases().acquire("operator", Duration.ofSeconds(10));
        var faulty = SqliteLedger.runStore(Sqlite.database(a), true);
        Attempt attempt = faulty.startAttempt(x.id(), lease.token(), 10_000);
        b.runs().stealFence(x.id());

        var done = faulty.finish(attempt, Outcome.COMPLETED, null, true, "committed without a fence");

        assertThat(done.assignment().state()).isEqualTo(AssignmentState.COMPLETED);
        assertThat(a.journal().rejections(10)).isEmpty();
        assertThat(Boolean.getBoolean(Runs.FAULT_IGNORE_TERMINAL_FENCE))
                .as("off by default")
                .isFalse();
    }
}
