package dev.sovereign.engine.lease;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.base.Refusal;
import dev.sovereign.engine.journal.FenceEvent;
import dev.sovereign.engine.testing.ChildJvm;
import dev.sovereign.engine.testing.SettableClock;
import dev.sovereign.engine.testing.TempDatabase;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Racing acquirers, on real threads with separate engines and in separate OS processes. */
class LeaseRaceAcrossProcessesTest {
    @RegisterExtension
    final TempDatabase temp = new TempDatabase();

    @Test
    void twoRacingThreadsOnSeparateEnginesProduceExactlyOneWinnerEveryRound() throws Exception {
        Clock clock = Clock.systemUTC();
        Engine a = temp.open(clock);
        Engine b = temp.open(clock);
        int rounds = 200;
        for (int i = 0; i < rounds; i++) {
            a.actors().add("actor-" + i);
        }
        CyclicBarrier barrier = new CyclicBarrier(2);
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            Future<List<Long>> fa = pool.submit(() -> race(a, barrier, rounds));
            Future<List<Long>> fb = pool.submit(() -> race(b, barrier, rounds));
            List<Long> wa = fa.get(2, TimeUnit.MINUTES);
            List<Long> wb = fb.get(2, TimeUnit.MINUTES);
            for (int i = 0; i < rounds; i++) {
                boolean aWon = wa.get(i) > 0;
                boolean bWon = wb.get(i) > 0;
                assertThat(aWon ^ bWon).as("exactly one winner in round %d", i).isTrue();
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(a.journal().rejections(10_000)).hasSize(rounds);
    }

    private static List<Long> race(Engine e, CyclicBarrier barrier, int rounds) throws Exception {
        List<Long> won = new ArrayList<>();
        for (int i = 0; i < rounds; i++) {
            barrier.await(30, TimeUnit.SECONDS);
            try {
                won.add(e.leases().acquire("actor-" + i, Duration.ofMinutes(5)).token());
            } catch (Refusal r) {
                won.add(-1L);
            }
        }
        return won;
    }

    @Test
    void racingOsProcessesProduceExactlyOneWinnerPerActorAndEveryLoserIsJournalled() throws Exception {
        int processes = 3;
        int actors = 30;
        Engine setup = temp.open(new SettableClock(System.currentTimeMillis()));
        for (int i = 0; i < actors; i++) {
            setup.actors().add("actor-" + i);
        }
        Path go = temp.dir().resolve("go");
        List<Process> children = new ArrayList<>();
        List<Path> logs = new ArrayList<>();
        try {
            for (int p = 0; p < processes; p++) {
                Path log = temp.dir().resolve("racer-" + p + ".log");
                logs.add(log);
                children.add(ChildJvm.start(
                        LeaseRacer.class, log, temp.file().toString(), go.toString(), Integer.toString(actors)));
            }
            for (Path log : logs) {
                ChildJvm.awaitLine(log, "READY", Duration.ofSeconds(60));
            }
            Files.createFile(go);
            for (Path log : logs) {
                ChildJvm.awaitLine(log, "DONE", Duration.ofSeconds(60));
            }
            Files.createFile(Path.of(go + ".end"));
            for (Process c : children) {
                assertThat(c.waitFor(90, TimeUnit.SECONDS)).isTrue();
                assertThat(c.exitValue()).isZero();
            }
        } finally {
            children.forEach(ChildJvm::destroy);
        }

        Map<String, List<String>> winners = new HashMap<>();
        int refused = 0;
        for (Path log : logs) {
            for (String line : Files.readAllLines(log)) {
                String[] f = line.split(" ");
                if (f[0].equals("WON")) {
                    winners.computeIfAbsent(f[1], k -> new ArrayList<>()).add(line);
                } else if (f[0].equals("REFUSED")) {
                    assertThat(f[2]).isEqualTo("actor_lease_held");
                    refused++;
                }
            }
        }
        for (int i = 0; i < actors; i++) {
            assertThat(winners.get("actor-" + i)).as("winners of actor-%d", i).hasSize(1);
        }
        assertThat(refused).isEqualTo(actors * (processes - 1));

        List<FenceEvent> rejections = setup.journal().rejections(10_000);
        assertThat(rejections).hasSize(refused);
        Map<String, Long> perActor =
                rejections.stream().collect(Collectors.groupingBy(FenceEvent::resourceId, Collectors.counting()));
        assertThat(perActor.values()).allMatch(n -> n == processes - 1);
    }
}
