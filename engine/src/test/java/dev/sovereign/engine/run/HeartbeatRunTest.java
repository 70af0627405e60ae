package dev.sovereign.engine.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.Refusal;
import dev.sovereign.engine.RefusalCategory;
import dev.sovereign.engine.testing.ChildOutput;
import dev.sovereign.engine.testing.TempDatabase;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The real background heartbeat, on the real clock, with TTLs much shorter than the run. */
class HeartbeatRunTest {
    @RegisterExtension
    final TempDatabase temp = new TempDatabase();

    @Test
    void aRunLongerThanItsTtlsCompletesBecauseTheHeartbeatRenewsLeaseAndAttempt() throws Exception {
        Engine runner = temp.open(temp.config(Clock.systemUTC()).heartbeat(true)
                .heartbeatInterval(Duration.ofMillis(100)).build());
        Engine rival = temp.open(Clock.systemUTC());
        runner.actors().add("operator");
        Assignment x = runner.runs().assign("operator", "scripted:ms=2000,outcome=completed");
        long ttl = 600;

        CompletableFuture<RunResult> run = CompletableFuture.supplyAsync(
                () -> runner.runs().runAssignment(x.id(), Duration.ofMillis(ttl)));

        // once the attempt has been renewed past three of its TTLs, the lease is still live too
        ChildOutput.await("the attempt was renewed well past its TTL", Duration.ofSeconds(10), () ->
                runner.runs().attempts(x.id()).stream().anyMatch(a -> a.renewedAt() >= a.startedAt() + 3 * ttl));
        assertThatThrownBy(() -> rival.leases().acquire("operator", Duration.ofSeconds(5)))
                .isInstanceOfSatisfying(Refusal.class,
                        r -> assertThat(r.category()).isEqualTo(RefusalCategory.ACTOR_LEASE_HELD));

        RunResult r = run.get(20, TimeUnit.SECONDS);
        assertThat(r.assignment().state()).isEqualTo(AssignmentState.COMPLETED);
        assertThat(r.attempt().endedAt() - r.attempt().startedAt()).isGreaterThanOrEqualTo(2000);
        assertThat(r.attempt().renewedAt()).isGreaterThan(r.attempt().startedAt() + ttl);
    }
}
