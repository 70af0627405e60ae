package dev.sovereign.engine.lab;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.base.EngineConfig;
import dev.sovereign.engine.journal.EventKind;
import dev.sovereign.engine.journal.FenceEvent;
import dev.sovereign.engine.lease.Lease;
import dev.sovereign.engine.supervisor.SupervisorLoop;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The demo as real worker JVMs: it starts them, its chaos shows fencing at work, and it stops them all. */
class DemoTest {
    private static final Duration WAIT = Duration.ofSeconds(60);

    @TempDir
    Path dir;

    private final List<AutoCloseable> open = new ArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        for (int i = open.size() - 1; i >= 0; i--) {
            open.get(i).close();
        }
    }

    private Engine observer(Path db) {
        Engine e = Engine.openExisting(EngineConfig.forDatabase(db)
                .heartbeat(false)
                .processKind("test")
                .processLabel("observer")
                .build());
        open.add(e);
        return e;
    }

    private static void await(String what, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime()).as("waited %s for %s", WAIT, what).isLessThan(deadline);
            Thread.sleep(100); // polling real child processes, with a deadline
        }
    }

    @Test
    void theDemoStartsWorkersThatHostEveryActorAndClosingLeavesNoProcessBehind() throws Exception {
        Path db = dir.resolve("demo.db");
        Demo demo = Demo.start(Demo.Settings.defaults(db).withoutChaos());
        open.add(demo);
        Set<Long> pids = demo.startedPids();

        assertThat(pids).hasSize(5);
        assertThat(pids)
                .allSatisfy(pid -> assertThat(ProcessHandle.of(pid))
                        .get()
                        .satisfies(h -> assertThat(h.isAlive()).isTrue()));
        Engine observer = observer(db);
        assertThat(observer.actors().list()).hasSize(Demo.ACTORS.size());
        await(
                "every actor hosted by a demo worker",
                () -> Demo.ACTORS.stream()
                        .allMatch(a -> observer.leases().current(a).isPresent()));
        Set<String> workers =
                demo.workers().stream().map(WorkerProcess::processIdentity).collect(Collectors.toSet());
        for (String a : Demo.ACTORS) {
            assertThat(observer.leases().current(a))
                    .get()
                    .extracting(Lease::process)
                    .isIn(workers);
        }
        // one worker paused (SIGSTOP) at the moment the demo closes must not survive it either
        demo.workers().get(0).pause();

        demo.close();

        assertThat(pids)
                .allSatisfy(pid -> assertThat(ProcessHandle.of(pid).filter(ProcessHandle::isAlive))
                        .isEmpty());
        assertThat(Files.exists(db)).isTrue();
    }

    @Test
    void withinAMinuteTheChaosShowsATakeoverARefusedLateWriteAndAWorkerLostRecovery() throws Exception {
        Path db = dir.resolve("chaos.db");
        Demo.Settings quick = new Demo.Settings(
                db, Duration.ofSeconds(2), Duration.ofMillis(500), Duration.ofSeconds(3), Duration.ofSeconds(2));
        Demo demo = Demo.start(quick);
        open.add(demo);
        List<String> said = new CopyOnWriteArrayList<>();
        demo.addNarrator(said::add);
        Engine supervisor = observer(db);
        SupervisorLoop loop = new SupervisorLoop(supervisor.supervisor(), Duration.ofMillis(500), r -> {}, e -> {});
        Thread ticking = new Thread(loop::run, "test-supervisor");
        ticking.start();
        open.add(() -> {
            loop.stop();
            ticking.join();
        });

        await("a pause and a kill, a takeover, a rejection and a worker_lost recovery", () -> {
            List<FenceEvent> events = supervisor.journal().since(0, 100_000);
            return events.stream().anyMatch(e -> e.kind() == EventKind.LEASE_TAKEN_OVER)
                    && events.stream().anyMatch(e -> e.kind() == EventKind.REJECTED)
                    && events.stream().anyMatch(e -> e.kind() == EventKind.ATTEMPT_RECOVERED)
                    && said.stream().anyMatch(s -> s.startsWith("Paused operator worker"))
                    && said.stream().anyMatch(s -> s.startsWith("Killed planner worker"));
        });
        await("the killed planner restarted", () -> demo.startedPids().size() > 5);
        Set<Long> pids = demo.startedPids();

        demo.close();

        assertThat(pids)
                .allSatisfy(pid -> assertThat(ProcessHandle.of(pid).filter(ProcessHandle::isAlive))
                        .isEmpty());
    }
}
