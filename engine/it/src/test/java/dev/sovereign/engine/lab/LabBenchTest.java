package dev.sovereign.engine.lab;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sovereign.engine.base.RefusalCategory;
import dev.sovereign.engine.journal.EventKind;
import dev.sovereign.engine.journal.FenceEvent;
import dev.sovereign.engine.storage.LockHolder;
import dev.sovereign.engine.testing.ChildJvm;
import dev.sovereign.engine.testing.TempDatabase;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The trainer's workbench: real workers, real signals, and a pause that never freezes the database. */
class LabBenchTest {
    private static final Duration WAIT = Duration.ofSeconds(30);

    @RegisterExtension
    final TempDatabase temp = new TempDatabase();

    private Path db;

    @BeforeEach
    void setUp() {
        db = Lab.createSandbox(temp.dir().resolve("lab"));
    }

    private WorkerProcess.Spec spec(String label) {
        return new WorkerProcess.Spec(db, "operator", Duration.ofSeconds(1), null, label);
    }

    @Test
    void aWaitingWorkerAskedToContendTriesOnceAndItsRefusalIsJournalledUnderItsOwnName() throws Exception {
        try (LabBench bench = LabBench.open(db, "test bench")) {
            WorkerProcess holder = bench.startWorker(spec("holder"), false);
            assertThat(holder.awaitLine(l -> l.startsWith("hosting"), WAIT)).isNotNull();
            WorkerProcess waiter = bench.startWorker(spec("waiter"), false);
            assertThat(waiter.awaitLine(l -> l.startsWith("waiting"), WAIT)).isNotNull();
            // waiting politely asks nothing of the database
            assertThat(bench.engine().journal().rejections(10)).isEmpty();

            waiter.contend();

            assertThat(waiter.awaitLine(l -> l.startsWith("refused"), WAIT)).contains("actor_lease_held");
            FenceEvent refusal = bench.engine().journal().rejections(10).get(0);
            assertThat(refusal.processIdentity()).isEqualTo(waiter.processIdentity());
            assertThat(refusal.category()).isEqualTo(RefusalCategory.ACTOR_LEASE_HELD.code());
            assertThat(refusal.currentToken())
                    .isEqualTo(bench.engine()
                            .leases()
                            .current("operator")
                            .orElseThrow()
                            .token());
        }
    }

    @Test
    void aPausedWorkerIsStoppedByTheOsWhileTheDatabaseStaysWritableAndResumesWhenToldTo() throws Exception {
        try (LabBench bench = LabBench.open(db, "test bench")) {
            WorkerProcess w = bench.startWorker(spec("sleeper"), false);
            assertThat(w.awaitLine(l -> l.startsWith("hosting"), WAIT)).isNotNull();

            bench.pause(w);

            assertThat(w.isPaused()).isTrue();
            assertThat(w.osState()).isIn("T", "t");
            bench.engine().actors().add("someone-else"); // a write goes through at once
            bench.resume(w);
            assertThat(w.isPaused()).isFalse();
            assertThat(w.osState()).isNotIn("T", "t");
        }
    }

    @Test
    void withoutStopSignalsAPauseIsCooperativeNoWorkNoHeartbeatsUntilResumed() throws Exception {
        System.setProperty(WorkerProcess.COOPERATIVE_PAUSE_PROPERTY, "true");
        try (LabBench bench = LabBench.open(db, "test bench")) {
            assertThat(WorkerProcess.hasStopSignals()).isFalse();
            WorkerProcess holder = bench.startWorker(spec("holder"), false);
            assertThat(holder.awaitLine(l -> l.startsWith("hosting"), WAIT)).isNotNull();

            bench.pause(holder);

            assertThat(holder.awaitLine(l -> l.startsWith("paused"), WAIT)).contains("no heartbeats");
            assertThat(holder.osState()).isNotIn("T", "t");
            // no heartbeats: its lease runs out and another worker takes the actor over
            WorkerProcess other = bench.startWorker(spec("other"), false);
            assertThat(other.awaitLine(l -> l.startsWith("hosting"), WAIT)).isNotNull();
            bench.resume(holder);
            assertThat(holder.awaitLine(l -> l.startsWith("lost"), WAIT)).isNotNull();
        } finally {
            System.clearProperty(WorkerProcess.COOPERATIVE_PAUSE_PROPERTY);
        }
    }

    @Test
    void sandboxesAreNamedFoundAndDeletedWithTheirSideFiles() throws Exception {
        Path dir = temp.dir().resolve("lab");
        assertThat(Lab.isSandbox(db)).isTrue();
        assertThat(Lab.latestSandbox(dir)).contains(db);
        Path newer = Lab.createSandbox(dir);
        assertThat(Lab.latestSandbox(dir)).contains(newer);
        try (LabBench bench = LabBench.open(newer, "test bench")) {
            bench.assignJob("operator", Duration.ofMillis(10));
        }
        Lab.deleteSandbox(newer);
        try (var left = Files.list(dir)) {
            assertThat(left.map(p -> p.getFileName().toString()).toList())
                    .noneMatch(n -> n.startsWith(newer.getFileName().toString().replace(".db", "")));
        }
        assertThat(Lab.latestSandbox(dir)).contains(db);
        assertThatThrownBy(() -> Lab.deleteSandbox(temp.file())).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void pauseGivesUpAndLeavesTheWorkerRunningWhenTheWriteLockStaysHeld() throws Exception {
        try (LabBench bench = LabBench.open(db, "test bench")) {
            WorkerProcess w = bench.startWorker(spec("victim"), false);
            assertThat(w.awaitLine(l -> l.startsWith("hosting"), WAIT)).isNotNull();
            Path log = temp.dir().resolve("locker.log");
            Path stop = temp.dir().resolve("locker.stop");
            Process locker = ChildJvm.start(LockHolder.class, log, db.toString(), stop.toString());
            try {
                long deadline = System.nanoTime() + WAIT.toNanos();
                while (!(Files.exists(log) && Files.readString(log).contains("LOCKED"))
                        && System.nanoTime() < deadline) {
                    Thread.sleep(20);
                }
                // someone holds the write lock: every probe after a SIGSTOP fails, so the pause is undone
                assertThatThrownBy(() -> bench.pause(w))
                        .isInstanceOf(IllegalStateException.class)
                        .hasMessageContaining("write lock");
                assertThat(w.isPaused()).isFalse();
                assertThat(w.osState()).isNotIn("T", "t");
            } finally {
                Files.writeString(stop, "stop");
                locker.waitFor();
            }
        }
    }

    @Test
    void closingTheBenchEndsEveryWorkerItStartedAPausedOneToo() throws Exception {
        List<WorkerProcess> started;
        try (LabBench bench = LabBench.open(db, "test bench")) {
            WorkerProcess a = bench.startWorker(spec("a"), false);
            WorkerProcess b = bench.startWorker(spec("b"), false);
            assertThat(a.awaitLine(l -> l.startsWith("started"), WAIT)).isNotNull();
            assertThat(b.awaitLine(l -> l.startsWith("started"), WAIT)).isNotNull();
            WorkerProcess host = a.awaitLine(l -> l.startsWith("hosting"), Duration.ofSeconds(5)) != null ? a : b;
            bench.pause(host);
            started = bench.workers();
        }
        for (WorkerProcess w : started) {
            assertThat(ProcessHandle.of(w.pid()).map(ProcessHandle::isAlive).orElse(false))
                    .as("pid %d", w.pid())
                    .isFalse();
        }
        assertThat(started).allMatch(w -> w.lines().stream().anyMatch(l -> l.startsWith("stopped")));
    }

    @Test
    void aJobGivenFromTheBenchIsRunByTheHostingWorker() throws Exception {
        try (LabBench bench = LabBench.open(db, "test bench")) {
            assertThat(bench.ensureActor("trainee")).isTrue();
            assertThat(bench.ensureActor("trainee")).isFalse();
            WorkerProcess w = bench.startWorker(
                    new WorkerProcess.Spec(db, "trainee", Duration.ofSeconds(1), null, "trainee worker"), false);
            String job = bench.assignJob("trainee", Duration.ofMillis(100));
            assertThat(w.awaitLine(l -> l.startsWith("ran"), WAIT))
                    .contains(job)
                    .contains("COMPLETED");
            assertThat(bench.engine().journal().forResource("assignment", job))
                    .extracting(FenceEvent::kind)
                    .contains(EventKind.ASSIGNMENT_CREATED);
        }
    }
}
