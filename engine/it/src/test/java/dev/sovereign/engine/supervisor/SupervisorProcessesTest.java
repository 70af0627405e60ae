package dev.sovereign.engine.supervisor;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.journal.EventKind;
import dev.sovereign.engine.process.ProcessInfo;
import dev.sovereign.engine.provider.Outcome;
import dev.sovereign.engine.run.Assignment;
import dev.sovereign.engine.run.AssignmentState;
import dev.sovereign.engine.run.Attempt;
import dev.sovereign.engine.run.Receipt;
import dev.sovereign.engine.run.RunnerMain;
import dev.sovereign.engine.testing.AnnounceProvider;
import dev.sovereign.engine.testing.ChildJvm;
import dev.sovereign.engine.testing.ChildOutput;
import dev.sovereign.engine.testing.SettableClock;
import dev.sovereign.engine.testing.Sqlite;
import dev.sovereign.engine.testing.TempDatabase;
import dev.sovereign.engine.testing.Together;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The supervisor against real processes: a run killed with SIGKILL, and the loop stopped by signals. */
class SupervisorProcessesTest {
    private static final Duration DEADLINE = Duration.ofSeconds(30);

    @RegisterExtension
    final TempDatabase temp = new TempDatabase();

    private Process child;

    @AfterEach
    void stopChild() {
        ChildJvm.destroy(child);
    }

    private long receipts(Engine e) {
        return Sqlite.database(e).read(tx -> tx.scalarLong("SELECT count(*) FROM receipts"));
    }

    @Test
    void aRunKilledWithSigkillIsRecoveredAsWorkerLostOnceEvenWithTwoSupervisorsRacing() throws Exception {
        Engine setup = temp.open(Clock.systemUTC());
        setup.actors().add("operator");
        setup.providers().register(AnnounceProvider.KIND, AnnounceProvider::parse);
        Assignment x = setup.runs().assign("operator", "announce:ms=60000");
        Path log = temp.dir().resolve("runner.log");
        child = ChildJvm.start(RunnerMain.class, log, temp.file().toString(), x.id(), "1000", "200");
        String killed = ChildOutput.awaitLine(log, "PROCESS ", child, DEADLINE).split(" ")[1];
        String[] started =
                ChildOutput.awaitLine(log, "PROVIDER_STARTED ", child, DEADLINE).split(" ");

        ChildJvm.signal(child, "KILL");
        assertThat(child.waitFor(DEADLINE.toSeconds(), TimeUnit.SECONDS)).isTrue();
        assertThat(setup.runs().get(x.id())).get().extracting(Assignment::state).isEqualTo(AssignmentState.RUNNING);

        // two supervisors whose clocks are past the attempt's expiry race for it
        SettableClock later = new SettableClock(System.currentTimeMillis() + 60_000);
        Engine s1 = temp.open(later);
        Engine s2 = temp.open(later);
        List<TickReport> reports = Together.run(
                List.of(() -> s1.supervisor().tick(), () -> s2.supervisor().tick()));
        TickReport r1 = reports.get(0);
        TickReport r2 = reports.get(1);

        assertThat(r1.failures()).isEmpty();
        assertThat(r2.failures()).isEmpty();
        assertThat(r1.recovered().size() + r2.recovered().size()).isEqualTo(1);
        assertThat(r1.staleProcesses()).extracting(ProcessInfo::identity).contains(killed);
        Assignment recovered = setup.runs().get(x.id()).orElseThrow();
        assertThat(recovered.state()).isEqualTo(AssignmentState.FAILED);
        Receipt receipt = setup.runs().receipt(x.id()).orElseThrow();
        assertThat(receipt.status()).isEqualTo(Outcome.FAILED);
        assertThat(receipt.failureCategory()).isEqualTo("worker_lost");
        assertThat(receipt.outcomeKnown()).isFalse();
        assertThat(receipt.attemptId()).isEqualTo(started[1]);
        assertThat(receipt.attemptToken()).isEqualTo(Long.parseLong(started[2]));
        // the writer is the supervisor that won; the lost attempt's process is named in the summary
        String winner = r1.recovered().isEmpty() ? s2.processIdentity() : s1.processIdentity();
        assertThat(receipt.processIdentity()).isEqualTo(winner).isNotEqualTo(killed);
        assertThat(receipt.summary())
                .contains(started[1])
                .contains(killed)
                .contains("recovered by supervisor " + winner);
        assertThat(setup.runs().attempts(x.id()))
                .singleElement()
                .extracting(Attempt::processIdentity)
                .isEqualTo(killed);
        assertThat(receipts(setup)).isEqualTo(1);

        long events = setup.journal().lastSeq();
        assertThat(s1.supervisor().tick().recovered()).isEmpty();
        assertThat(s2.supervisor().tick().recovered()).isEmpty();
        assertThat(receipts(setup)).isEqualTo(1);
        assertThat(setup.journal().lastSeq()).isEqualTo(events);
        assertThat(setup.journal().since(0, 1000))
                .filteredOn(e -> e.kind() == EventKind.ATTEMPT_RECOVERED)
                .hasSize(1);
    }

    @ParameterizedTest
    @ValueSource(strings = {"INT", "TERM"})
    void theSupervisorLoopExitsZeroOnASignalWithoutAStackTrace(String signal) throws Exception {
        temp.open(Clock.systemUTC()); // creates the database
        Path log = temp.dir().resolve("supervisor-" + signal + ".log");
        ProcessBuilder pb =
                ChildJvm.builder(SupervisorLoopMain.class, temp.file().toString(), "100");
        if (inheritsIgnoredInterrupt()) {
            // started from a shell's background job, SIGINT arrives ignored and the JVM keeps it so
            pb.command().addAll(0, List.of("env", "--default-signal=INT,TERM"));
        }
        pb.redirectErrorStream(true).redirectOutput(log.toFile());
        child = pb.start();
        ChildOutput.awaitLine(log, "READY ", child, DEADLINE);
        ChildOutput.awaitLine(log, "TICK ", child, DEADLINE);

        ChildJvm.signal(child, signal);

        assertThat(child.waitFor(DEADLINE.toSeconds(), TimeUnit.SECONDS))
                .as(ChildOutput.read(log))
                .isTrue();
        String output = ChildOutput.read(log);
        assertThat(child.exitValue()).as(output).isZero();
        assertThat(output).contains("STOPPED").doesNotContain("Exception").doesNotContain("\tat ");
    }

    /** Whether this JVM (and so a child it starts) has SIGINT ignored, read from /proc. */
    private static boolean inheritsIgnoredInterrupt() throws Exception {
        Path status = Path.of("/proc/self/status");
        if (!Files.exists(status)) {
            return false;
        }
        for (String line : Files.readAllLines(status)) {
            if (line.startsWith("SigIgn:")) {
                long mask = Long.parseLong(line.substring(7).strip(), 16);
                return (mask & (1L << (2 - 1))) != 0;
            }
        }
        return false;
    }
}
