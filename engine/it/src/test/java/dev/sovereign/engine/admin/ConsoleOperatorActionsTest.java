package dev.sovereign.engine.admin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.Ledgers;
import dev.sovereign.engine.base.Refusal;
import dev.sovereign.engine.base.RefusalCategory;
import dev.sovereign.engine.base.StorageException;
import dev.sovereign.engine.journal.EventKind;
import dev.sovereign.engine.lease.Lease;
import dev.sovereign.engine.process.ProcessInfo;
import dev.sovereign.engine.run.Assignment;
import dev.sovereign.engine.run.AssignmentState;
import dev.sovereign.engine.run.Attempt;
import dev.sovereign.engine.testing.Port;
import dev.sovereign.engine.testing.SettableClock;
import dev.sovereign.engine.testing.TempDatabase;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.ZoneOffset;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The console's write side: retry, acknowledge and the supervisor, on a real engine of kind console. */
class ConsoleOperatorActionsTest {
    @RegisterExtension
    final TempDatabase temp = new TempDatabase();

    private final SettableClock clock = new SettableClock();
    private Engine worker;
    private OperatorActions actions;

    @BeforeEach
    void open() {
        worker = temp.open(clock);
        worker.actors().add("operator");
        actions = Ledgers.openOperatorActions(temp.file(), clock);
    }

    @AfterEach
    void close() {
        actions.close();
    }

    /** A RUNNING assignment whose process then "dies": nothing renews or finishes its attempt. */
    private Attempt abandonedRun() {
        Assignment x = worker.runs().assign("operator", "scripted:ms=10,outcome=completed");
        Lease lease = worker.leases().acquire("operator", Duration.ofSeconds(10));
        return Port.runs(worker).startAttempt(x.id(), lease.token(), 10_000);
    }

    @Test
    void stopProcessMarksAnotherProcessStoppedUnderTheConsolesIdentityAndReleasesNothing() {
        Lease held = worker.leases().acquire("operator", Duration.ofMinutes(1));

        actions.stopProcess(worker.processIdentity());

        assertThat(worker.processes().find(worker.processIdentity()))
                .hasValueSatisfying(p -> assertThat(p.stoppedAt()).isNotNull());
        assertThat(worker.leases().current("operator")).hasValue(held);
        assertThat(worker.journal().since(0, 100))
                .filteredOn(e -> e.kind() == EventKind.PROCESS_STOPPED)
                .singleElement()
                .satisfies(e -> {
                    assertThat(e.resourceId()).isEqualTo(worker.processIdentity());
                    assertThat(e.processIdentity()).isEqualTo(actions.processIdentity());
                });
        assertThatThrownBy(() -> actions.stopProcess(worker.processIdentity()))
                .isInstanceOfSatisfying(
                        Refusal.class, r -> assertThat(r.category()).isEqualTo(RefusalCategory.PROCESS_STOPPED));
        assertThatThrownBy(() -> actions.stopProcess("proc_nobody"))
                .isInstanceOfSatisfying(
                        Refusal.class, r -> assertThat(r.category()).isEqualTo(RefusalCategory.UNKNOWN_PROCESS));
    }

    @Test
    void tickNowRecoversAnExpiredAttemptAndReturnsTheStoredReport() {
        Attempt abandoned = abandonedRun();
        clock.advance(Duration.ofSeconds(10));

        SupervisorTickRow tick = actions.tickSupervisor();

        assertThat(tick.recovered()).isEqualTo(1);
        assertThat(tick.process().identity()).isEqualTo(actions.processIdentity());
        assertThat(tick.process().label()).startsWith("console ");
        assertThat(worker.runs().get(abandoned.assignmentId()))
                .get()
                .extracting(Assignment::state)
                .isEqualTo(AssignmentState.FAILED);
        assertThat(worker.runs().receipt(abandoned.assignmentId()))
                .get()
                .satisfies(r -> assertThat(r.failureCategory()).isEqualTo("worker_lost"));
        var stored = worker.supervisor().lastTick().orElseThrow();
        assertThat(stored.seq()).isEqualTo(tick.seq());
        assertThat(stored.report()).isEqualTo(tick.report());
        assertThat(new TickReportText(ZoneOffset.UTC, id -> null).lines(tick.report()))
                .anyMatch(l ->
                        l.startsWith("Recovered assignment " + abandoned.assignmentId() + " as failed / worker_lost"));
        assertThat(actions.tickSupervisor().recovered())
                .as("a second tick finds nothing")
                .isZero();
    }

    @Test
    void retryingAWorkerLostRunCreatesANewCreatedAssignmentThatRetriesIt() {
        Attempt abandoned = abandonedRun();
        clock.advance(Duration.ofSeconds(10));
        actions.tickSupervisor();

        String retry = actions.retry(abandoned.assignmentId());

        Assignment fresh = worker.runs().get(retry).orElseThrow();
        assertThat(fresh.state()).isEqualTo(AssignmentState.CREATED);
        assertThat(fresh.retryOf()).isEqualTo(abandoned.assignmentId());
        assertThat(fresh.providerSpec()).isEqualTo("scripted:ms=10,outcome=completed");
        assertThat(worker.journal().since(0, 1_000)).anySatisfy(e -> {
            assertThat(e.kind()).isEqualTo(EventKind.ASSIGNMENT_RETRIED);
            assertThat(e.resourceId()).isEqualTo(retry);
            assertThat(e.processIdentity()).isEqualTo(actions.processIdentity());
        });
        assertThatThrownBy(() -> actions.retry(abandoned.assignmentId()))
                .isInstanceOfSatisfying(
                        Refusal.class,
                        r -> assertThat(r.category()).isEqualTo(RefusalCategory.ASSIGNMENT_NOT_RETRYABLE));
    }

    @Test
    void acknowledgingAFailedRunMarksItOnceAndARunningOneIsRefused() {
        Attempt abandoned = abandonedRun();
        assertThatThrownBy(() -> actions.acknowledge(abandoned.assignmentId()))
                .isInstanceOfSatisfying(
                        Refusal.class, r -> assertThat(r.category()).isEqualTo(RefusalCategory.INVALID_ARGUMENT));
        clock.advance(Duration.ofSeconds(10));
        actions.tickSupervisor();

        actions.acknowledge(abandoned.assignmentId());
        Long first = worker.runs().get(abandoned.assignmentId()).orElseThrow().acknowledgedAt();
        clock.advance(Duration.ofSeconds(1));
        actions.acknowledge(abandoned.assignmentId());

        assertThat(first).isEqualTo(clock.millis() - 1_000);
        assertThat(worker.runs().get(abandoned.assignmentId()).orElseThrow().acknowledgedAt())
                .isEqualTo(first);
        assertThat(worker.journal().since(0, 1_000))
                .filteredOn(e -> e.kind() == EventKind.ASSIGNMENT_ACKNOWLEDGED)
                .singleElement()
                .satisfies(e -> assertThat(e.processIdentity()).isEqualTo(actions.processIdentity()));
    }

    @Test
    void theActionsAreAProcessOfKindConsoleThatStopsWhenClosed() {
        ProcessInfo me = worker.processes().find(actions.processIdentity()).orElseThrow();
        assertThat(me.kind()).isEqualTo("console");
        assertThat(me.stoppedAt()).isNull();

        actions.close();
        actions.close();

        assertThat(worker.processes()
                        .find(actions.processIdentity())
                        .orElseThrow()
                        .stoppedAt())
                .isNotNull();
    }

    @Test
    void theAutoTickingSupervisorTellsItsListenersAndStopsWhenAsked() throws Exception {
        List<SupervisorTickRow> ticks = new CopyOnWriteArrayList<>();
        CountDownLatch three = new CountDownLatch(3);
        actions.addSupervisorListener(new OperatorActions.SupervisorListener() {
            @Override
            public void ticked(SupervisorTickRow tick) {
                ticks.add(tick);
                three.countDown();
            }

            @Override
            public void failed(String sentence) {}
        });

        actions.startSupervisor(Duration.ofMillis(100));
        assertThat(actions.isSupervisorRunning()).isTrue();
        assertThat(three.await(20, TimeUnit.SECONDS)).isTrue();
        actions.stopSupervisor();

        assertThat(actions.isSupervisorRunning()).isFalse();
        int seen = ticks.size();
        assertThat(worker.supervisor().lastTick().orElseThrow().seq())
                .isEqualTo(ticks.get(seen - 1).seq());
        assertThat(ticks)
                .extracting(SupervisorTickRow::seq)
                .doesNotHaveDuplicates()
                .isSorted();
        assertThat(actions.tickSupervisor().seq())
                .isGreaterThan(ticks.get(seen - 1).seq());
        assertThatThrownBy(() -> actions.startSupervisor(Duration.ofMillis(10)))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aMissingFileIsRefusedAndNotCreated() {
        Path missing = temp.dir().resolve("nope.db");

        assertThatThrownBy(() -> Ledgers.openOperatorActions(missing, clock))
                .isInstanceOfSatisfying(
                        StorageException.class,
                        e -> assertThat(e.problem()).isEqualTo(StorageException.Problem.MISSING_FILE));
        assertThat(Files.exists(missing)).isFalse();
    }
}
