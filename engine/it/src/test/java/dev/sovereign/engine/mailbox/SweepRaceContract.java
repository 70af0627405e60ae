package dev.sovereign.engine.mailbox;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.testing.Contract;
import dev.sovereign.engine.testing.SettableClock;
import dev.sovereign.engine.testing.TempDatabase;
import dev.sovereign.engine.testing.TestBackend;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The supervisor's sweep and a fresh claim race on real threads, each on its own engine (its own
 * connection and process identity) against one file. Whichever commits first, the fresh claim must
 * survive: the sweep's compare-and-set only matches a claim that is expired inside its own
 * transaction.
 */
@Contract
abstract class SweepRaceContract {
    /** The backend this class's ledgers are on: each backend's module has its subclass (decision 0015). */
    protected abstract TestBackend backend();

    private static final int ROUNDS = 300;
    private static final Duration CLAIM_TTL = Duration.ofSeconds(1);

    @RegisterExtension
    final TempDatabase temp = new TempDatabase(this::backend);

    private final ExecutorService threads = Executors.newFixedThreadPool(2);

    @AfterEach
    void stop() throws InterruptedException {
        threads.shutdownNow();
        threads.awaitTermination(10, TimeUnit.SECONDS);
    }

    @Test
    void theSweepRacingAFreshClaimNeverResetsIt() throws Exception {
        SettableClock clock = new SettableClock();
        Engine worker = temp.open(clock);
        Engine supervisor = temp.open(clock);
        worker.actors().add("operator");
        worker.leases().acquire("operator", Duration.ofDays(1));
        int sweptFirst = 0;
        int claimedFirst = 0;

        for (int round = 0; round < ROUNDS; round++) {
            Message m = worker.mailbox().send("load", "operator", "round " + round, null);
            Claim expiring = worker.mailbox().claim(m.id(), "operator", CLAIM_TTL);
            clock.advance(CLAIM_TTL);

            CyclicBarrier start = new CyclicBarrier(2);
            Future<Claim> fresh = threads.submit(() -> {
                start.await();
                return worker.mailbox().claim(m.id(), "operator", CLAIM_TTL);
            });
            Future<List<Claim>> sweep = threads.submit(() -> {
                start.await();
                return supervisor.mailbox().sweepExpiredClaims();
            });
            Claim granted = fresh.get(30, TimeUnit.SECONDS);
            List<Claim> swept = sweep.get(30, TimeUnit.SECONDS);

            assertThat(granted.token()).isGreaterThan(expiring.token());
            Message after = worker.mailbox().find(m.id()).orElseThrow();
            assertThat(after.state()).as("round %d", round).isEqualTo(MessageState.CLAIMED);
            assertThat(after.claim()).as("round %d", round).isEqualTo(granted);
            // the sweep may only ever have taken the expired claim, never the fresh one
            assertThat(swept)
                    .as("round %d", round)
                    .allSatisfy(c -> assertThat(c).isEqualTo(expiring));
            if (swept.isEmpty()) {
                claimedFirst++;
            } else {
                sweptFirst++;
            }
            assertThat(worker.mailbox().complete(m.id(), granted.token()).state())
                    .isEqualTo(MessageState.DONE);
        }
        // both interleavings really happened, so both were checked
        assertThat(sweptFirst).isPositive();
        assertThat(claimedFirst).isPositive();
    }
}
