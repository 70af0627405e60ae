package dev.sovereign.engine.provider;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.Refusal;
import dev.sovereign.engine.RefusalCategory;
import dev.sovereign.engine.run.Assignment;
import dev.sovereign.engine.run.AssignmentState;
import dev.sovereign.engine.run.RunResult;
import dev.sovereign.engine.testing.ChildOutput;
import dev.sovereign.engine.testing.SettableClock;
import dev.sovereign.engine.testing.TempDatabase;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class CommandProviderTest {
    @RegisterExtension
    final TempDatabase temp = new TempDatabase();

    private final SettableClock clock = new SettableClock();
    private Engine a;
    private Engine b;

    @BeforeEach
    void open() {
        a = temp.open(clock);
        b = temp.open(clock);
        a.actors().add("operator");
    }

    private RunResult run(String command) {
        return a.runs().runAssignment(a.runs().assign("operator", "command:" + command).id());
    }

    @Test
    void exitZeroCompletesAndTheOutputIsCapturedInTheOutputFolder() throws Exception {
        RunResult r = run("echo hello from $SOVEREIGN_ATTEMPT; echo oops >&2; echo scratch > scratch.txt");
        assertThat(r.assignment().state()).isEqualTo(AssignmentState.COMPLETED);
        assertThat(Files.readString(r.workspace().resolve("output/stdout.txt")))
                .isEqualTo("hello from " + r.attempt().id() + "\n");
        assertThat(Files.readString(r.workspace().resolve("output/stderr.txt"))).isEqualTo("oops\n");
        assertThat(r.workspace().resolve("scratch.txt")).doesNotExist(); // ran in the workspace; reclaimed
    }

    @Test
    void exitSeventyFiveIsBlockedAndAnyOtherFailureIsFailed() {
        assertThat(run("exit 75").assignment().state()).isEqualTo(AssignmentState.BLOCKED);
        RunResult failed = run("exit 3");
        assertThat(failed.assignment().state()).isEqualTo(AssignmentState.FAILED);
        assertThat(failed.receipt().failureCategory()).isEqualTo("exit_status");
        assertThat(failed.receipt().summary()).contains("exited 3");
        assertThat(run("kill -9 $$").receipt().summary()).contains("signal 9");
    }

    @Test
    void theCommandsWholeProcessTreeIsDestroyedWhenTheAttemptIsLost() throws Exception {
        Assignment x = a.runs().assign("operator",
                "command:echo $$ > shell.pid; sleep 300 & echo $! > child.pid; wait");
        Path ws = a.runs().workspace(x.id());
        CompletableFuture<Throwable> run = CompletableFuture.supplyAsync(() -> {
            try {
                a.runs().runAssignment(x.id(), Duration.ofSeconds(10));
                return null;
            } catch (Throwable t) {
                return t;
            }
        });
        ChildOutput.await("the command started its child", Duration.ofSeconds(10),
                () -> readPid(ws.resolve("child.pid")).isPresent());
        long shell = readPid(ws.resolve("shell.pid")).orElseThrow();
        long child = readPid(ws.resolve("child.pid")).orElseThrow();
        assertThat(alive(shell)).isTrue();
        assertThat(alive(child)).isTrue();

        // the holder stops renewing past its TTL; another process takes the actor over
        clock.advance(Duration.ofSeconds(11));
        b.leases().acquire("operator", Duration.ofSeconds(10));
        assertThat(a.heartbeatNow().lostAttempts()).hasSize(1); // the holder learns at its next beat

        ChildOutput.await("the shell and its child were destroyed", Duration.ofSeconds(10),
                () -> !alive(shell) && !alive(child));
        Throwable refused = run.get(20, TimeUnit.SECONDS);
        assertThat(refused).isInstanceOfSatisfying(Refusal.class,
                r -> assertThat(r.category()).isIn(RefusalCategory.ACTOR_LEASE_LOST,
                        RefusalCategory.EXECUTION_ATTEMPT_LOST));
        assertThat(a.runs().receipt(x.id())).isEmpty();
    }

    @Test
    void anEmptyCommandIsAnUnknownProvider() {
        assertThatThrownBy(() -> a.runs().assign("operator", "command:"))
                .isInstanceOfSatisfying(Refusal.class,
                        r -> assertThat(r.category()).isEqualTo(RefusalCategory.UNKNOWN_PROVIDER));
    }

    private static boolean alive(long pid) {
        return ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
    }

    private static Optional<Long> readPid(Path file) {
        try {
            List<String> lines = Files.exists(file) ? Files.readAllLines(file) : List.of();
            return lines.isEmpty() || lines.get(0).isBlank() ? Optional.empty()
                    : Optional.of(Long.parseLong(lines.get(0).strip()));
        } catch (Exception e) {
            return Optional.empty();
        }
    }
}
