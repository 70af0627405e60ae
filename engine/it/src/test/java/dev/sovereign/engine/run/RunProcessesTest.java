package dev.sovereign.engine.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.base.Refusal;
import dev.sovereign.engine.base.RefusalCategory;
import dev.sovereign.engine.base.StorageException;
import dev.sovereign.engine.journal.FenceEvent;
import dev.sovereign.engine.lease.Lease;
import dev.sovereign.engine.provider.ProviderResult;
import dev.sovereign.engine.testing.AnnounceProvider;
import dev.sovereign.engine.testing.ChildJvm;
import dev.sovereign.engine.testing.ChildOutput;
import dev.sovereign.engine.testing.Sqlite;
import dev.sovereign.engine.testing.TempDatabase;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Fencing between real OS processes: a child JVM holds the lease, or runs and is paused. */
class RunProcessesTest {
    private static final Duration DEADLINE = Duration.ofSeconds(30);

    @RegisterExtension
    final TempDatabase temp = new TempDatabase();

    private Process child;

    @AfterEach
    void stopChild() {
        ChildJvm.destroy(child);
    }

    @Test
    void aLeaseHeldByAnotherOsProcessRefusesTheRunAndTheProviderIsNeverInvoked() throws Exception {
        Engine engine = temp.open(Clock.systemUTC());
        engine.actors().add("operator");
        AtomicInteger invocations = new AtomicInteger();
        engine.providers().register("counting", arg -> job -> {
            invocations.incrementAndGet();
            return ProviderResult.completed("counted");
        });
        Assignment x = engine.runs().assign("operator", "counting");
        Path log = temp.dir().resolve("holder.log");
        child = ChildJvm.start(LeaseHolderMain.class, log, temp.file().toString(), "operator", "30000");
        String[] held = ChildOutput.awaitLine(log, "HELD ", child, DEADLINE).split(" ");

        assertThatThrownBy(() -> engine.runs().runAssignment(x.id())).isInstanceOfSatisfying(Refusal.class, r -> {
            assertThat(r.category()).isEqualTo(RefusalCategory.ACTOR_LEASE_HELD);
            assertThat(r.currentToken()).isEqualTo(Long.parseLong(held[1]));
            assertThat(r.getMessage()).contains(held[2]);
        });

        assertThat(invocations).hasValue(0);
        assertThat(engine.runs().get(x.id()))
                .get()
                .extracting(Assignment::state)
                .isEqualTo(AssignmentState.CREATED);
        assertThat(engine.runs().attempts(x.id())).isEmpty();
        assertThat(engine.leases().current("operator"))
                .get()
                .extracting(Lease::process)
                .isEqualTo(held[2]);
        assertThat(engine.journal().rejections(1))
                .extracting(FenceEvent::category)
                .containsExactly("actor_lease_held");
    }

    @Test
    void aPausedHolderThatResumesAfterATakeoverCannotCommitAndTheNewHoldersResultStands() throws Exception {
        Engine setup = temp.open(Clock.systemUTC());
        setup.actors().add("operator");
        setup.providers().register(AnnounceProvider.KIND, AnnounceProvider::parse);
        Assignment x = setup.runs().assign("operator", "announce:ms=60000");
        // the new holder: same spec, but its own provider of that kind finishes at once
        Engine taker = temp.open(
                temp.config(Clock.systemUTC()).busyBound(Duration.ofMillis(700)).build());
        taker.providers().register(AnnounceProvider.KIND, arg -> job -> ProviderResult.completed("done by the taker"));

        Path log = temp.dir().resolve("runner.log");
        child = ChildJvm.start(RunnerMain.class, log, temp.file().toString(), x.id(), "800", "100");
        String paused = ChildOutput.awaitLine(log, "PROCESS ", child, DEADLINE).split(" ")[1];
        String pausedAttempt =
                ChildOutput.awaitLine(log, "PROVIDER_STARTED ", child, DEADLINE).split(" ")[1];

        pauseOutsideATransaction(taker);
        ChildOutput.await("the paused holder's lease and attempt expired", DEADLINE, () -> {
            long now = System.currentTimeMillis();
            Attempt a = setup.runs().attempts(x.id()).get(0);
            return a.expiresAt() <= now
                    && setup.leases()
                            .current("operator")
                            .map(l -> l.expiresAt() <= now)
                            .orElse(true);
        });

        RunResult taken = taker.runs().runAssignment(x.id(), Duration.ofSeconds(5));
        assertThat(taken.assignment().state()).isEqualTo(AssignmentState.COMPLETED);

        ChildJvm.signal(child, "CONT");
        assertThat(child.waitFor(DEADLINE.toSeconds(), TimeUnit.SECONDS))
                .as(ChildOutput.read(log))
                .isTrue();
        assertThat(ChildOutput.line(log, "REFUSED "))
                .as(ChildOutput.read(log))
                .get()
                .asString()
                .matches("REFUSED (actor_lease_lost|execution_attempt_lost) .*");
        assertThat(ChildOutput.line(log, "RESULT ")).isEmpty();

        assertThat(setup.journal().rejections(20))
                .filteredOn(e -> paused.equals(e.processIdentity()))
                .filteredOn(e -> x.id().equals(e.resourceId()))
                .extracting(FenceEvent::category)
                .isNotEmpty()
                .allMatch(c -> c.equals("actor_lease_lost") || c.equals("execution_attempt_lost"));
        Assignment canonical = setup.runs().get(x.id()).orElseThrow();
        assertThat(canonical.state()).isEqualTo(AssignmentState.COMPLETED);
        Receipt receipt = setup.runs().receipt(x.id()).orElseThrow();
        assertThat(receipt.attemptId()).isEqualTo(taken.attempt().id()).isNotEqualTo(pausedAttempt);
        assertThat(receipt.processIdentity()).isEqualTo(taker.processIdentity());
        assertThat((long) Sqlite.database(setup).read(tx -> tx.scalarLong("SELECT count(*) FROM receipts")))
                .isEqualTo(1L);
        assertThat(setup.runs().attempts(x.id()))
                .extracting(Attempt::state)
                .containsExactly(AttemptState.SUPERSEDED, AttemptState.DONE);
    }

    @Test
    void aHolderPausedPastItsTtlWhoseHeartbeatIsRefusedOnWakingLeavesARejectedRow() throws Exception {
        Engine engine = temp.open(
                temp.config(Clock.systemUTC()).busyBound(Duration.ofMillis(700)).build());
        engine.actors().add("operator");
        Path log = temp.dir().resolve("holder.log");
        child = ChildJvm.start(LeaseHolderMain.class, log, temp.file().toString(), "operator", "800");
        String[] held = ChildOutput.awaitLine(log, "HELD ", child, DEADLINE).split(" ");
        long pausedToken = Long.parseLong(held[1]);
        String paused = held[2];

        pauseOutsideATransaction(engine);
        ChildOutput.await(
                "the paused holder's lease expired",
                DEADLINE,
                () -> engine.leases()
                        .current("operator")
                        .map(l -> l.expiresAt() <= System.currentTimeMillis())
                        .orElse(true));
        Lease taken = engine.leases().acquire("operator", Duration.ofSeconds(30));
        ChildJvm.signal(child, "CONT");

        // the woken holder's next beat is refused: its listener fires, and the journal shows it
        assertThat(ChildOutput.awaitLine(log, "LOST actor ", child, DEADLINE))
                .isEqualTo("LOST actor operator " + pausedToken);
        assertThat(engine.journal().rejections(20))
                .filteredOn(e -> paused.equals(e.processIdentity()))
                .singleElement()
                .satisfies(e -> {
                    assertThat(e.category()).isEqualTo("actor_lease_lost");
                    assertThat(e.resourceId()).isEqualTo("operator");
                    assertThat(e.presentedToken()).isEqualTo(pausedToken);
                    assertThat(e.currentToken()).isEqualTo(taken.token());
                    assertThat(e.detail()).contains("heartbeat");
                });
        assertThat(engine.leases().current("operator"))
                .get()
                .extracting(Lease::token)
                .isEqualTo(taken.token());
    }

    /**
     * SIGSTOP the child at a moment when it holds no SQLite write lock: a process paused inside a
     * transaction would block every writer (a real hazard, but not the one this test is about).
     */
    private void pauseOutsideATransaction(Engine probe) throws Exception {
        for (int i = 0; i < 20; i++) {
            ChildJvm.signal(child, "STOP");
            try {
                Sqlite.database(probe).write(tx -> null);
                return;
            } catch (StorageException busy) {
                ChildJvm.signal(child, "CONT");
            }
        }
        throw new AssertionError("could not pause the child outside a transaction");
    }
}
