package dev.sovereign.engine.internal.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.EngineAccess;
import dev.sovereign.engine.base.EngineConfig;
import dev.sovereign.engine.base.Refusal;
import dev.sovereign.engine.base.RefusalCategory;
import dev.sovereign.engine.lease.Lease;
import dev.sovereign.engine.provider.Outcome;
import dev.sovereign.engine.run.Assignment;
import dev.sovereign.engine.run.AssignmentState;
import dev.sovereign.engine.run.Attempt;
import dev.sovereign.engine.spi.RunStore;
import dev.sovereign.engine.testing.PgTestServer;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The lab's broken-fence mode on PostgreSQL (decision 0006): only on a ledger created as a lab sandbox does
 * the terminal write go unfenced, letting a holder whose fence was stolen commit, which is what the lab
 * shows; on any other ledger the same switch changes nothing and the stale commit is refused.
 */
class PgLabSandboxTest {
    private static Engine open(String url, boolean sandbox) {
        return Engine.open(EngineConfig.forDatabase(url)
                .heartbeat(false)
                .createAsLabSandbox(sandbox)
                .build());
    }

    private static Object[] staleCommit(String url, boolean sandbox) {
        try (Engine a = open(url, sandbox);
                Engine b = open(url, false)) {
            a.actors().add("operator");
            var faulty = PgLedger.runStore(((PgLedger) EngineAccess.ledger(a)).database(), true);
            Assignment x = EngineAccess.ledger(a).runs().assign("operator", "scripted", null);
            Lease lease = a.leases().acquire("operator", Duration.ofSeconds(10));
            Attempt attempt = faulty.startAttempt(x.id(), lease.token(), 10_000);
            b.runs().stealFence(x.id());
            try {
                return new Object[] {faulty.finish(attempt, Outcome.COMPLETED, null, true, "no fence"), a.isLabSandbox()
                };
            } catch (Refusal r) {
                return new Object[] {r, a.isLabSandbox()};
            }
        }
    }

    @Test
    void onALabSandboxTheFaultSwitchLetsAHolderWhoseFenceWasStolenCommit() {
        Object[] result = staleCommit(PgTestServer.freshDatabase().url(), true);
        assertThat(result[1]).isEqualTo(true);
        assertThat(result[0])
                .isInstanceOfSatisfying(
                        RunStore.Completion.class,
                        c -> assertThat(c.assignment().state()).isEqualTo(AssignmentState.COMPLETED));
    }

    @Test
    void onAnyOtherLedgerTheSwitchIsIgnoredAndTheStaleCommitRefused() {
        Object[] result = staleCommit(PgTestServer.freshDatabase().url(), false);
        assertThat(result[1]).isEqualTo(false);
        assertThat(result[0])
                .isInstanceOfSatisfying(
                        Refusal.class, r -> assertThat(r.category()).isEqualTo(RefusalCategory.EXECUTION_ATTEMPT_LOST));
    }

    @Test
    void anExistingLedgerIsNeverMarkedAsASandboxLater() {
        String url = PgTestServer.freshDatabase().url();
        open(url, false).close();
        try (Engine again = open(url, true)) {
            assertThat(again.isLabSandbox()).isFalse();
        }
    }
}
