package dev.sovereign.engine.run;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.Ledgers;
import dev.sovereign.engine.admin.AdminReader;
import dev.sovereign.engine.admin.AssignmentRow;
import dev.sovereign.engine.base.CommandAllowList;
import dev.sovereign.engine.base.StorageException;
import dev.sovereign.engine.testing.ChildJvm;
import dev.sovereign.engine.testing.ChildOutput;
import dev.sovereign.engine.testing.Sqlite;
import dev.sovereign.engine.testing.TempDatabase;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.ZoneOffset;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Issue 13, item 1, reproduced with real processes: P (a child JVM) runs a {@code command:} assignment;
 * P's JVM is SIGSTOPped past its TTL while its shell (not stopped: SIGSTOP hits the JVM only) waits; Q
 * (this JVM) takes the run over and commits COMPLETED; only then does P's shell write its attempt's
 * identity into its output. The folder the receipt names must hold Q's bytes only. Every step is
 * sequenced by files the shells create and the test polls for, with deadlines — no guessed sleeps.
 */
class StaleAttemptFilesProcessesTest {
    private static final Duration DEADLINE = Duration.ofSeconds(30);

    @RegisterExtension
    final TempDatabase temp = new TempDatabase();

    private Process child;
    private Path gates;

    @AfterEach
    void stopChild() throws Exception {
        if (child != null && child.isAlive()) {
            ChildJvm.signal(child, "CONT");
        }
        ChildJvm.destroy(child);
        if (gates != null) {
            Files.writeString(gates.resolve("go-all"), "end"); // no shell of this test waits on after it
        }
    }

    /**
     * The shell announces itself ({@code started-<attempt>}), waits for {@code go-<attempt>} (at most 30 s),
     * writes {@code <attempt> <token>} into its output and says so ({@code wrote-<attempt>}).
     */
    private String command() {
        String g = gates.toString();
        return "command:touch " + g + "/started-$SOVEREIGN_ATTEMPT; i=0; while [ ! -e " + g + "/go-$SOVEREIGN_ATTEMPT ]"
                + " && [ ! -e " + g + "/go-all ] && [ $i -lt 1500 ]; do sleep 0.02; i=$((i+1)); done;"
                + " echo \"$SOVEREIGN_ATTEMPT $SOVEREIGN_ATTEMPT_TOKEN\" > \"$SOVEREIGN_OUTPUT/result.txt\";"
                + " touch " + g + "/wrote-$SOVEREIGN_ATTEMPT";
    }

    private Optional<String> startedAttempt(String except) {
        try (Stream<Path> files = Files.list(gates)) {
            return files.map(p -> p.getFileName().toString())
                    .filter(n -> n.startsWith("started-"))
                    .map(n -> n.substring("started-".length()))
                    .filter(a -> !a.equals(except))
                    .findFirst();
        } catch (Exception e) {
            return Optional.empty();
        }
    }

    @Test
    void aStaleAttemptsLateWriteNeverLandsInTheFolderTheCommittedReceiptNames() throws Exception {
        gates = Files.createDirectories(temp.dir().resolve("gates"));
        Engine setup = temp.open(Clock.systemUTC());
        setup.actors().add("operator");
        // persistent: reclaim keeps the committed attempt's folder whole, so nothing but separate folders
        // keeps P's late bytes out of it
        Assignment x = setup.runs().assign("operator", command(), "persistent");

        Path log = temp.dir().resolve("p.log");
        String allowed = CommandAllowList.exactly(command().substring("command:".length()));
        child = ChildJvm.start(RunnerMain.class, log, temp.file().toString(), x.id(), "800", "100", allowed);
        String p = ChildOutput.awaitLine(log, "PROCESS ", child, DEADLINE).split(" ")[1];
        ChildOutput.await(
                "P's shell started", DEADLINE, () -> startedAttempt("").isPresent());
        String pAttempt = startedAttempt("").orElseThrow();

        Engine q = temp.open(temp.config(Clock.systemUTC())
                .busyBound(Duration.ofMillis(700))
                .allowCommands(CommandAllowList.of(allowed))
                .build());
        pauseOutsideATransaction(q);
        ChildOutput.await("P's lease and attempt expired", DEADLINE, () -> {
            long now = System.currentTimeMillis();
            return setup.runs().attempts(x.id()).get(0).expiresAt() <= now
                    && setup.leases()
                            .current("operator")
                            .map(l -> l.expiresAt() <= now)
                            .orElse(true);
        });

        CompletableFuture<RunResult> taking =
                CompletableFuture.supplyAsync(() -> q.runs().runAssignment(x.id(), Duration.ofSeconds(10)));
        ChildOutput.await(
                "Q's shell started", DEADLINE, () -> startedAttempt(pAttempt).isPresent());
        String qAttempt = startedAttempt(pAttempt).orElseThrow();
        Files.writeString(gates.resolve("go-" + qAttempt), "go");
        RunResult taken = taking.get(DEADLINE.toSeconds(), TimeUnit.SECONDS);
        assertThat(taken.assignment().state()).isEqualTo(AssignmentState.COMPLETED);
        assertThat(taken.attempt().id()).isEqualTo(qAttempt);

        // only now P's shell writes, while P's JVM is still stopped
        Files.writeString(gates.resolve("go-" + pAttempt), "go");
        ChildOutput.await("P's shell wrote", DEADLINE, () -> Files.exists(gates.resolve("wrote-" + pAttempt)));

        Receipt receipt = setup.runs().receipt(x.id()).orElseThrow();
        assertThat(receipt.attemptId()).isEqualTo(qAttempt);
        Path canonical = RunFolders.output(setup.runs().workspace(x.id()), receipt.attemptId());
        assertThat(canonical).isEqualTo(taken.outputDirectory());
        try (AdminReader reader = Ledgers.openReader(temp.file(), Clock.systemUTC(), ZoneOffset.UTC)) {
            AssignmentRow row = reader.snapshot().assignments().stream()
                    .filter(a -> a.id().equals(x.id()))
                    .findFirst()
                    .orElseThrow();
            assertThat(row.receipt().outputDir())
                    .as("the admin read model names the same folder")
                    .isEqualTo(canonical);
        }
        assertThat(Files.readString(canonical.resolve("result.txt")))
                .isEqualTo(qAttempt + " " + taken.attempt().token() + "\n");
        try (Stream<Path> files = Files.walk(canonical)) {
            assertThat(files.filter(Files::isRegularFile).toList())
                    .allSatisfy(f ->
                            assertThat(Files.readString(f)).as(f.toString()).doesNotContain(pAttempt));
        }

        // P resumes: its heartbeat finds the grants lost, its terminal write is refused
        ChildJvm.signal(child, "CONT");
        assertThat(child.waitFor(DEADLINE.toSeconds(), TimeUnit.SECONDS))
                .as(ChildOutput.read(log))
                .isTrue();
        assertThat(ChildOutput.line(log, "REFUSED "))
                .as(ChildOutput.read(log))
                .get()
                .asString()
                .matches("REFUSED (actor_lease_lost|execution_attempt_lost) .*");
        assertThat(setup.journal().rejections(20)).anyMatch(e -> p.equals(e.processIdentity()));
        assertThat(Files.readString(canonical.resolve("result.txt")))
                .isEqualTo(qAttempt + " " + taken.attempt().token() + "\n");
    }

    /** SIGSTOP P while it holds no SQLite write lock (a writer paused in a transaction blocks everyone). */
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
        throw new AssertionError("could not pause P outside a transaction");
    }
}
