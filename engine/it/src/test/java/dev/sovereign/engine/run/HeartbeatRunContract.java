package dev.sovereign.engine.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.base.Refusal;
import dev.sovereign.engine.base.RefusalCategory;
import dev.sovereign.engine.provider.ProviderResult;
import dev.sovereign.engine.testing.ChildOutput;
import dev.sovereign.engine.testing.Contract;
import dev.sovereign.engine.testing.TempDatabase;
import dev.sovereign.engine.testing.TestBackend;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The real background heartbeat, on the real clock, with TTLs much shorter than the run. */
@Contract
abstract class HeartbeatRunContract {
    /** The backend this class's ledgers are on: each backend's module has its subclass (decision 0015). */
    protected abstract TestBackend backend();

    @RegisterExtension
    final TempDatabase temp = new TempDatabase(this::backend);

    @Test
    void aRunLongerThanItsTtlsCompletesBecauseTheHeartbeatRenewsLeaseAndAttempt() throws Exception {
        Engine runner = temp.open(temp.config(Clock.systemUTC())
                .heartbeat(true)
                .heartbeatInterval(Duration.ofMillis(100))
                .build());
        Engine rival = temp.open(Clock.systemUTC());
        runner.actors().add("operator");
        CountDownLatch gate = new CountDownLatch(1);
        // the provider runs until the test opens the gate: as long as the test needs, not a guessed time
        runner.providers().register("gated", arg -> job -> {
            if (!gate.await(30, TimeUnit.SECONDS)) {
                return ProviderResult.failed("gate_never_opened", "the test never opened the gate");
            }
            return job.cancellation().isCancelled()
                    ? ProviderResult.cancelled(job.cancellation().reason().orElse(""))
                    : ProviderResult.completed("ran past its TTLs");
        });
        Assignment x = runner.runs().assign("operator", "gated");
        long ttl = 600;

        CompletableFuture<RunResult> run =
                CompletableFuture.supplyAsync(() -> runner.runs().runAssignment(x.id(), Duration.ofMillis(ttl)));

        ChildOutput.await(
                "the attempt was renewed past three of its TTLs",
                Duration.ofSeconds(15),
                () -> runner.runs().attempts(x.id()).stream().anyMatch(a -> a.renewedAt() >= a.startedAt() + 3 * ttl));
        // the lease is alive too: another process still cannot take the actor over
        assertThatThrownBy(() -> rival.leases().acquire("operator", Duration.ofSeconds(5)))
                .isInstanceOfSatisfying(
                        Refusal.class, r -> assertThat(r.category()).isEqualTo(RefusalCategory.ACTOR_LEASE_HELD));
        gate.countDown();

        RunResult r = run.get(20, TimeUnit.SECONDS);
        assertThat(r.assignment().state()).isEqualTo(AssignmentState.COMPLETED);
        assertThat(r.attempt().endedAt() - r.attempt().startedAt()).isGreaterThan(3 * ttl);
        assertThat(r.attempt().leaseToken())
                .isEqualTo(
                        rival.journal().forResource("actor", "operator").get(0).token());
    }
}
