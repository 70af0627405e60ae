package dev.sovereign.engine.provider;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.base.CommandAllowList;
import dev.sovereign.engine.base.Refusal;
import dev.sovereign.engine.base.RefusalCategory;
import dev.sovereign.engine.run.Assignment;
import dev.sovereign.engine.run.AssignmentState;
import dev.sovereign.engine.run.RunResult;
import dev.sovereign.engine.testing.ChildOutput;
import dev.sovereign.engine.testing.Contract;
import dev.sovereign.engine.testing.SettableClock;
import dev.sovereign.engine.testing.TempDatabase;
import dev.sovereign.engine.testing.TestBackend;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

@Contract
abstract class CommandProviderContract {
    /** The backend this class's ledgers are on: each backend's module has its subclass (decision 0015). */
    protected abstract TestBackend backend();

    @RegisterExtension
    final TempDatabase temp = new TempDatabase(this::backend);

    private final SettableClock clock = new SettableClock();
    private Engine a;
    private Engine b;

    /** The commands this class runs: its engine is allowed exactly these (decision 0800). */
    private static final String HELLO = "echo hello from $SOVEREIGN_ATTEMPT; echo oops >&2; echo scratch > scratch.txt";

    private static final String WHERE = "pwd -P; echo \"$SOVEREIGN_WORKSPACE|$SOVEREIGN_OUTPUT|$SOVEREIGN_ATTEMPT"
            + "|$SOVEREIGN_ATTEMPT_TOKEN\"; echo \"$$ $(cut -d' ' -f5 /proc/$$/stat)\"";

    @BeforeEach
    void open() {
        List<String> allowed = new ArrayList<>(List.of(
                HELLO,
                WHERE,
                "exit 75",
                "exit 3",
                "kill -9 $$",
                familyCommand(temp.dir().resolve("pids")).substring("command:".length())));
        allowed.replaceAll(CommandAllowList::exactly);
        a = temp.open(
                temp.config(clock).allowCommands(CommandAllowList.of(allowed)).build());
        b = temp.open(clock);
        a.actors().add("operator");
    }

    private RunResult run(String command) {
        return a.runs()
                .runAssignment(a.runs().assign("operator", "command:" + command).id());
    }

    @Test
    void exitZeroCompletesAndTheOutputIsCapturedInTheAttemptsOwnOutputFolder() throws Exception {
        RunResult r = run(HELLO);
        assertThat(r.assignment().state()).isEqualTo(AssignmentState.COMPLETED);
        Path attemptFolder = r.workspace().resolve(r.attempt().id());
        assertThat(r.outputDirectory()).isEqualTo(attemptFolder.resolve("output"));
        assertThat(Files.readString(r.outputDirectory().resolve("stdout.txt")))
                .isEqualTo("hello from " + r.attempt().id() + "\n");
        assertThat(Files.readString(r.outputDirectory().resolve("stderr.txt"))).isEqualTo("oops\n");
        assertThat(attemptFolder.resolve("scratch.txt")).doesNotExist(); // ran in the attempt folder; reclaimed
        assertThat(r.workspace().resolve("output")).doesNotExist(); // no shared output folder any more
    }

    @Test
    void theCommandRunsInItsAttemptFolderWithTheAttemptsEnvironmentAndLeadsItsOwnProcessGroup() throws Exception {
        RunResult r = run(WHERE);
        List<String> lines = Files.readAllLines(r.outputDirectory().resolve("stdout.txt"));
        Path attemptFolder = r.workspace().resolve(r.attempt().id());
        assertThat(lines.get(0)).isEqualTo(attemptFolder.toRealPath().toString());
        assertThat(lines.get(1))
                .isEqualTo(attemptFolder + "|" + r.outputDirectory() + "|"
                        + r.attempt().id() + "|" + r.attempt().token());
        String[] pidAndGroup = lines.get(2).split(" ");
        assertThat(pidAndGroup[1]).as("the shell's process group is its own").isEqualTo(pidAndGroup[0]);
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

    /**
     * The command of the group tests: a grandchild that its parent leaves behind (re-parented, out of reach
     * of {@code ProcessHandle.descendants()}), a child the shell waits for, and the shell; their pids go to
     * files in the test's own folder, the last one written when all three run.
     */
    private String familyCommand(Path pids) {
        return "command:sh -c 'sleep 1000 & echo $! > " + pids.resolve("orphan.pid") + "'; echo $$ > "
                + pids.resolve("shell.pid") + "; sleep 1000 & echo $! > " + pids.resolve("child.tmp") + "; mv "
                + pids.resolve("child.tmp") + " " + pids.resolve("child.pid") + "; wait";
    }

    private List<Long> awaitFamily(Path pids) {
        ChildOutput.await(
                "the command started its family",
                Duration.ofSeconds(10),
                () -> readPid(pids.resolve("child.pid")).isPresent());
        List<Long> family = List.of(
                readPid(pids.resolve("shell.pid")).orElseThrow(),
                readPid(pids.resolve("child.pid")).orElseThrow(),
                readPid(pids.resolve("orphan.pid")).orElseThrow());
        assertThat(family).allMatch(CommandProviderContract::alive);
        long orphan = family.get(2);
        assertThat(ProcessHandle.of(family.get(0)).orElseThrow().descendants().map(ProcessHandle::pid))
                .as("the orphan escaped the shell's process tree")
                .doesNotContain(orphan);
        return family;
    }

    private CompletableFuture<Throwable> runAsync(Engine engine, Assignment x, Thread[] runner) {
        CompletableFuture<Throwable> done = new CompletableFuture<>();
        Thread t = new Thread(
                () -> {
                    try {
                        engine.runs().runAssignment(x.id(), Duration.ofSeconds(10));
                        done.complete(null);
                    } catch (Throwable e) {
                        done.complete(e);
                    }
                },
                "test-run");
        runner[0] = t;
        t.start();
        return done;
    }

    @Test
    void theCommandsWholeProcessGroupIsStoppedWhenTheAttemptIsLostAlsoAReparentedGrandchild() throws Exception {
        Path pids = Files.createDirectories(temp.dir().resolve("pids"));
        Assignment x = a.runs().assign("operator", familyCommand(pids));
        CompletableFuture<Throwable> run = runAsync(a, x, new Thread[1]);
        List<Long> family = awaitFamily(pids);

        // the holder stops renewing past its TTL; another process takes the actor over
        clock.advance(Duration.ofSeconds(11));
        b.leases().acquire("operator", Duration.ofSeconds(10));
        assertThat(a.heartbeatNow().lostAttempts()).hasSize(1); // the holder learns at its next beat

        ChildOutput.await(
                "the shell, its child and the orphaned grandchild were stopped",
                Duration.ofSeconds(10),
                () -> family.stream().noneMatch(CommandProviderContract::alive));
        Throwable refused = run.get(20, TimeUnit.SECONDS);
        assertThat(refused)
                .isInstanceOfSatisfying(
                        Refusal.class,
                        r -> assertThat(r.category())
                                .isIn(RefusalCategory.ACTOR_LEASE_LOST, RefusalCategory.EXECUTION_ATTEMPT_LOST));
        assertThat(a.runs().receipt(x.id())).isEmpty();
    }

    @Test
    void anInterruptedRunStopsTheCommandsWholeProcessGroupAndEndsFailedCancelled() throws Exception {
        Path pids = Files.createDirectories(temp.dir().resolve("pids"));
        Assignment x = a.runs().assign("operator", familyCommand(pids));
        Thread[] runner = new Thread[1];
        CompletableFuture<Throwable> run = runAsync(a, x, runner);
        List<Long> family = awaitFamily(pids);

        runner[0].interrupt(); // what Ctrl-C of 'sovereign run' does

        assertThat(run.get(20, TimeUnit.SECONDS)).isNull();
        assertThat(family).noneMatch(CommandProviderContract::alive); // the run waited for the group to end
        assertThat(a.runs().receipt(x.id())).get().satisfies(rc -> {
            assertThat(rc.status()).isEqualTo(Outcome.FAILED);
            assertThat(rc.failureCategory()).isEqualTo("cancelled");
        });
    }

    @Test
    void closingTheEngineStopsTheProcessGroupOfARunInProgress() throws Exception {
        Path pids = Files.createDirectories(temp.dir().resolve("pids"));
        Assignment x = a.runs().assign("operator", familyCommand(pids));
        CompletableFuture<Throwable> run = runAsync(a, x, new Thread[1]);
        List<Long> family = awaitFamily(pids);

        a.close();

        ChildOutput.await(
                "the command's group was stopped when its engine closed",
                Duration.ofSeconds(10),
                () -> family.stream().noneMatch(CommandProviderContract::alive));
        // The engine closed under its run. Which comes first is a race, and both ends are right: the run
        // fails because its engine closed, or its cancelled attempt still committed FAILED / cancelled
        // before the ledger closed. Never a COMPLETED run, never a run still going.
        Throwable ended = run.get(20, TimeUnit.SECONDS);
        if (ended == null) {
            Engine after = temp.open(clock);
            assertThat(after.runs().receipt(x.id())).get().satisfies(rc -> {
                assertThat(rc.status()).isEqualTo(Outcome.FAILED);
                assertThat(rc.failureCategory()).isEqualTo("cancelled");
            });
        }
    }

    @Test
    void anEmptyCommandIsAnUnknownProvider() {
        assertThatThrownBy(() -> a.runs().assign("operator", "command:"))
                .isInstanceOfSatisfying(
                        Refusal.class, r -> assertThat(r.category()).isEqualTo(RefusalCategory.UNKNOWN_PROVIDER));
    }

    /** Whether {@code pid} is a process that has not ended: /proc has it, and not as a zombie. */
    private static boolean alive(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
            return stat.charAt(stat.lastIndexOf(')') + 2) != 'Z';
        } catch (Exception gone) {
            return false;
        }
    }

    private static Optional<Long> readPid(Path file) {
        try {
            List<String> lines = Files.exists(file) ? Files.readAllLines(file) : List.of();
            return lines.isEmpty() || lines.get(0).isBlank()
                    ? Optional.empty()
                    : Optional.of(Long.parseLong(lines.get(0).strip()));
        } catch (Exception e) {
            return Optional.empty();
        }
    }
}
