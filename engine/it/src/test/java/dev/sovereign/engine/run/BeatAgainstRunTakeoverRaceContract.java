package dev.sovereign.engine.run;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.base.Durability;
import dev.sovereign.engine.base.Refusal;
import dev.sovereign.engine.base.RefusalCategory;
import dev.sovereign.engine.journal.EventKind;
import dev.sovereign.engine.journal.FenceEvent;
import dev.sovereign.engine.lease.Beat;
import dev.sovereign.engine.lease.Lease;
import dev.sovereign.engine.provider.ProviderResult;
import dev.sovereign.engine.testing.Contract;
import dev.sovereign.engine.testing.SettableClock;
import dev.sovereign.engine.testing.TempDatabase;
import dev.sovereign.engine.testing.TestBackend;
import dev.sovereign.engine.testing.Together;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Issue 32 item 3: on PostgreSQL a late heartbeat of a running engine W racing engine X's run takeover of the same
 * assignment aborted W's whole beat (a storage error: "an ACTIVE attempt is renewed only forward ...", 80-111 of 200
 * tries) — its other grants' renewals and REJECTED rows rolled back with it, W never told it lost the run, its provider
 * not cancelled — and sometimes W's {@code held()} then listed a lease the row no longer gave it. Here, at W's expiry
 * (+ 0-2 ms, on the test's clock, which pins the server's on PostgreSQL), W beats while X runs the assignment, many
 * times: W's beat never fails; either W keeps lease and attempt (X refused and journalled) and its run completes, or
 * W's beat reports both lost, its provider is cancelled and its run ends without committing, and X's run completes;
 * never does W believe a lease the row does not give it. {@code -Dsovereign.long=true} runs 1,000 tries instead of 40
 * (docs/reliability.md).
 */
@Contract
abstract class BeatAgainstRunTakeoverRaceContract {
    /** The backend this class's ledgers are on: each backend's module has its subclass (decision 0015). */
    protected abstract TestBackend backend();

    static final int TRIES = Boolean.getBoolean("sovereign.long") ? 1_000 : 40;
    private static final Duration TTL = Duration.ofSeconds(1);
    private static final Set<RefusalCategory> RACE_LOST =
            Set.of(RefusalCategory.ACTOR_LEASE_HELD, RefusalCategory.EXECUTION_ATTEMPT_HELD);

    @RegisterExtension
    final TempDatabase temp = new TempDatabase(this::backend);

    @Test
    void aBeatThatLosesTheRunKeepsItsOtherGrantsSaysWhatItLostAndNeverBelievesALeaseTheRowDoesNotGiveIt()
            throws Exception {
        SettableClock clock = new SettableClock();
        // the race does not depend on fsync: SQLite's NORMAL durability keeps a try to a few milliseconds
        Engine w = temp.open(temp.config(clock).durability(Durability.NORMAL).build());
        Engine x = temp.open(temp.config(clock).durability(Durability.NORMAL).build());
        AtomicReference<CountDownLatch> started = new AtomicReference<>();
        AtomicReference<CountDownLatch> gate = new AtomicReference<>();
        // W's provider runs until the test opens its gate or a lost grant cancels it; X's returns at once
        w.providers().register("gated", arg -> job -> {
            CountDownLatch open = gate.get();
            job.cancellation().onCancel(open::countDown);
            started.get().countDown();
            if (!open.await(30, TimeUnit.SECONDS)) {
                return ProviderResult.failed("gate_never_opened", "the test never opened the gate");
            }
            return job.cancellation().isCancelled()
                    ? ProviderResult.cancelled(job.cancellation().reason().orElse(""))
                    : ProviderResult.completed("kept the run");
        });
        x.providers().register("gated", arg -> job -> ProviderResult.completed("took the run over"));
        w.actors().add("kept");
        Lease other = w.leases().acquire("kept", Duration.ofHours(1)); // a grant the race must never cost W

        int takenOver = 0;
        int refused = 0;
        List<String> violations = new ArrayList<>();
        for (int i = 0; i < TRIES; i++) {
            String actor = "run-race-" + i;
            String at = "try " + i + ": ";
            w.actors().add(actor);
            Assignment job = w.runs().assign(actor, "gated");
            started.set(new CountDownLatch(1));
            gate.set(new CountDownLatch(1));
            w.heartbeatNow(); // the session's last beat now: lease and attempt expire together, TTL from now
            CompletableFuture<Object> wRun =
                    CompletableFuture.supplyAsync(() -> outcomeOf(() -> w.runs().runAssignment(job.id(), TTL)));
            assertThat(started.get().await(20, TimeUnit.SECONDS))
                    .as(at + "W's provider started")
                    .isTrue();
            Attempt mine = w.runs().attempts(job.id()).get(0);
            clock.advance(TTL.plusMillis(i % 3)); // at W's expiry + 0..2 ms
            List<Object> outcome = Together.run(List.<Supplier<Object>>of(
                    () -> outcomeOf(w::heartbeatNow),
                    () -> outcomeOf(() -> x.runs().runAssignment(job.id(), TTL))));
            Object beat = outcome.get(0);
            Object xRun = outcome.get(1);
            Optional<Lease> row = x.leases().current(actor);
            boolean wBelieves =
                    w.leases().held().stream().anyMatch(l -> l.actor().equals(actor) && l.token() == mine.leaseToken());
            if (wBelieves && (row.isEmpty() || !row.get().process().equals(w.processIdentity()))) {
                violations.add(at + "W believes it holds " + actor + " (token " + mine.leaseToken()
                        + ") but the row is " + row);
            }
            if (!(beat instanceof Beat b)) {
                violations.add(at + "W's beat failed: " + beat);
                gate.get().countDown();
                wRun.get(30, TimeUnit.SECONDS);
                continue;
            }
            if (!b.renewedLeases().stream().anyMatch(l -> l.actor().equals("kept") && l.token() == other.token())) {
                violations.add(at + "W's beat did not keep its other lease: " + b);
            }
            if (xRun instanceof RunResult taken) {
                takenOver++;
                if (taken.assignment().state() != AssignmentState.COMPLETED) {
                    violations.add(at + "X's run ended " + taken.assignment().state());
                }
                if (!b.lostLeases().containsKey(actor) || !b.lostAttempts().containsKey(mine.id())) {
                    violations.add(at + "X took the run over but W's beat did not say it lost both: " + b);
                }
                Object wEnded = wRun.get(30, TimeUnit.SECONDS); // its provider was cancelled by the lost grants
                if (wEnded instanceof RunResult r) {
                    violations.add(at + "W's run committed after losing it: "
                            + r.assignment().state());
                }
            } else if (xRun instanceof Refusal r && RACE_LOST.contains(r.category())) {
                refused++;
                if (!b.renewedAttempts().contains(mine.id()) || !wBelieves) {
                    violations.add(at + "X was refused, yet W did not keep lease and attempt: " + b);
                }
                if (!journalled(x, r)) {
                    violations.add(at + "X's refusal " + r.category().code() + " was not journalled");
                }
                gate.get().countDown();
                Object wEnded = wRun.get(30, TimeUnit.SECONDS);
                if (!(wEnded instanceof RunResult kept) || kept.assignment().state() != AssignmentState.COMPLETED) {
                    violations.add(at + "W kept the run but did not complete it: " + wEnded);
                }
            } else {
                violations.add(at + "X's run ended neither in a takeover nor in a refusal of the race: " + xRun);
                gate.get().countDown();
                wRun.get(30, TimeUnit.SECONDS);
            }
            if (x.runs().receipt(job.id()).isEmpty()) {
                violations.add(at + "no receipt");
            }
        }
        System.out.println("beat against run takeover on " + backend().name() + ": " + TRIES + " tries, "
                + takenOver + " takeovers, " + refused + " refusals (journalled), " + violations.size()
                + " violations");
        assertThat(violations)
                .as("%d tries: %d takeovers, %d refusals", TRIES, takenOver, refused)
                .isEmpty();
    }

    private static Object outcomeOf(Supplier<?> action) {
        try {
            return action.get();
        } catch (RuntimeException e) {
            return e;
        }
    }

    /** Whether {@code r} was journalled: a REJECTED row of its category on its resource. */
    private static boolean journalled(Engine reader, Refusal r) {
        for (FenceEvent e : reader.journal().forResource(r.resourceType(), r.resourceId())) {
            if (e.kind() == EventKind.REJECTED && r.category().code().equals(e.category())) {
                return true;
            }
        }
        return false;
    }
}
