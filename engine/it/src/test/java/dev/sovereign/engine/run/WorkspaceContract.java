package dev.sovereign.engine.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.base.Refusal;
import dev.sovereign.engine.base.RefusalCategory;
import dev.sovereign.engine.internal.run.Workspaces;
import dev.sovereign.engine.provider.ProviderResult;
import dev.sovereign.engine.testing.Contract;
import dev.sovereign.engine.testing.SettableClock;
import dev.sovereign.engine.testing.TempDatabase;
import dev.sovereign.engine.testing.TestBackend;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

@Contract
abstract class WorkspaceContract {
    /** The backend this class's ledgers are on: each backend's module has its subclass (decision 0015). */
    protected abstract TestBackend backend();

    @RegisterExtension
    final TempDatabase temp = new TempDatabase(this::backend);

    private final SettableClock clock = new SettableClock();
    private Engine a;
    private Engine b;

    @BeforeEach
    void open() {
        a = temp.open(clock);
        b = temp.open(clock);
        a.actors().add("operator");
        a.providers().register("writer", arg -> job -> {
            Files.writeString(job.workspace().resolve("scratch.txt"), "scratch");
            Files.createDirectories(job.workspace().resolve("tmp/deeper"));
            Files.writeString(job.workspace().resolve("tmp/deeper/more.txt"), "more");
            Files.writeString(job.output().resolve("result.txt"), "the result");
            if (arg.equals("steal")) {
                b.runs().stealFence(job.assignmentId());
            }
            return ProviderResult.completed("wrote files");
        });
    }

    private static Stream<String> names(Path dir) throws Exception {
        try (Stream<Path> s = Files.list(dir)) {
            return s.map(p -> p.getFileName().toString()).sorted().toList().stream();
        }
    }

    @Test
    void theWorkspaceLivesUnderTheDataDirectory() {
        Assignment x = a.runs().assign("operator", "writer:");
        RunResult r = a.runs().runAssignment(x.id());
        assertThat(r.workspace())
                .isEqualTo(a.config().dataDirectory().resolve("runs").resolve(x.id()));
        assertThat(a.runs().workspace(x.id())).isEqualTo(r.workspace());
        assertThat(r.outputDirectory())
                .isEqualTo(r.workspace().resolve(r.attempt().id()).resolve("output"));
    }

    @Test
    void aTemporaryWorkspaceKeepsOnlyTheReceiptAndTheCommittedAttemptsOutputFolder() throws Exception {
        Assignment x = a.runs().assign("operator", "writer:", "temporary");
        RunResult r = a.runs().runAssignment(x.id());

        assertThat(names(r.workspace()))
                .containsExactly(r.attempt().id(), r.attempt().id() + ".receipt.json");
        assertThat(names(r.workspace().resolve(r.attempt().id()))).containsExactly("output");
        assertThat(Files.readString(r.outputDirectory().resolve("result.txt"))).isEqualTo("the result");
        assertThat(r.receiptFile()).isEqualTo(r.workspace().resolve(r.attempt().id() + ".receipt.json"));
        String receipt = Files.readString(r.receiptFile());
        assertThat(receipt)
                .contains("\"attempt\":\"" + r.attempt().id() + "\"")
                .contains("\"attempt_token\":" + r.attempt().token())
                .contains("\"status\":\"completed\"")
                .contains("\"output_dir\":\"" + r.outputDirectory() + "\"");
    }

    @Test
    void aPersistentWorkspaceKeepsEverythingOfTheCommittedAttempt() throws Exception {
        Assignment x = a.runs().assign("operator", "writer:", "persistent");
        RunResult r = a.runs().runAssignment(x.id());
        assertThat(names(r.workspace()))
                .containsExactly(r.attempt().id(), r.attempt().id() + ".receipt.json");
        assertThat(names(r.workspace().resolve(r.attempt().id()))).containsExactly("output", "scratch.txt", "tmp");
    }

    @Test
    void reclaimNeverRunsWhenTheTerminalWriteLost() throws Exception {
        Assignment x = a.runs().assign("operator", "writer:steal", "temporary");
        assertThatThrownBy(() -> a.runs().runAssignment(x.id()))
                .isInstanceOfSatisfying(
                        Refusal.class, r -> assertThat(r.category()).isEqualTo(RefusalCategory.EXECUTION_ATTEMPT_LOST));

        Path ws = a.runs().workspace(x.id());
        String attempt = a.runs().attempts(x.id()).get(0).id();
        assertThat(names(ws)).containsExactly(attempt); // untouched, and no receipt file
        assertThat(names(ws.resolve(attempt))).containsExactly("output", "scratch.txt", "tmp");
        assertThat(ws.resolve(attempt).resolve("tmp/deeper/more.txt")).exists();
    }

    @Test
    void aSymlinkedWorkspaceIsRefusedWithItsOwnCategoryAndNothingIsWrittenThrough() throws Exception {
        Assignment x = a.runs().assign("operator", "writer:", "temporary");
        Path elsewhere = Files.createDirectories(temp.dir().resolve("elsewhere"));
        Files.writeString(elsewhere.resolve("precious.txt"), "keep me");
        Files.createDirectories(a.config().dataDirectory().resolve("runs"));
        Files.createSymbolicLink(a.runs().workspace(x.id()), elsewhere);

        assertThatThrownBy(() -> a.runs().runAssignment(x.id()))
                .isInstanceOfSatisfying(
                        Refusal.class, r -> assertThat(r.category()).isEqualTo(RefusalCategory.SYMLINKED_WORKSPACE));

        assertThat(names(elsewhere)).containsExactly("precious.txt");
        Assignment after = a.runs().get(x.id()).orElseThrow();
        assertThat(after.state()).isEqualTo(AssignmentState.FAILED);
        assertThat(a.runs().receipt(x.id())).get().satisfies(rc -> {
            assertThat(rc.failureCategory()).isEqualTo("symlinked_workspace");
            assertThat(rc.outcomeKnown()).isTrue();
        });
        assertThat(a.leases().current("operator")).isEmpty();
    }

    @Test
    void aWorkspacePathThatIsAFileIsRefusedAsNotADirectory() throws Exception {
        Assignment x = a.runs().assign("operator", "writer:", "temporary");
        Path ws = a.runs().workspace(x.id());
        Files.createDirectories(ws.getParent());
        Files.writeString(ws, "a file where the workspace folder belongs");

        assertThatThrownBy(() -> a.runs().runAssignment(x.id()))
                .isInstanceOfSatisfying(
                        Refusal.class,
                        r -> assertThat(r.category()).isEqualTo(RefusalCategory.WORKSPACE_NOT_DIRECTORY));
        assertThat(a.runs().receipt(x.id()))
                .get()
                .extracting(Receipt::failureCategory)
                .isEqualTo("workspace_not_directory");
        assertThat(Files.readString(ws)).startsWith("a file");
    }

    @Test
    void aSymlinkedAttemptFolderOrOutputFolderIsRefusedAndNothingIsWrittenThrough() throws Exception {
        Workspaces workspaces = new Workspaces(a.config().dataDirectory());
        Path elsewhere = Files.createDirectories(temp.dir().resolve("elsewhere"));
        Path ws = Files.createDirectories(workspaces.workspace("asg_one"));
        Files.createSymbolicLink(ws.resolve("att_linked"), elsewhere);
        Path other = Files.createDirectories(ws.resolve("att_other"));
        Files.createSymbolicLink(other.resolve("output"), elsewhere);
        Files.writeString(Files.createDirectories(ws.resolve("att_file")).resolve("output"), "a file");

        assertThatThrownBy(() -> workspaces.prepare("asg_one", "att_linked"))
                .isInstanceOfSatisfying(
                        Refusal.class, r -> assertThat(r.category()).isEqualTo(RefusalCategory.SYMLINKED_WORKSPACE));
        assertThatThrownBy(() -> workspaces.prepare("asg_one", "att_other"))
                .isInstanceOfSatisfying(
                        Refusal.class, r -> assertThat(r.category()).isEqualTo(RefusalCategory.SYMLINKED_WORKSPACE));
        assertThatThrownBy(() -> workspaces.prepare("asg_one", "att_file"))
                .isInstanceOfSatisfying(
                        Refusal.class,
                        r -> assertThat(r.category()).isEqualTo(RefusalCategory.WORKSPACE_NOT_DIRECTORY));
        assertThat(names(elsewhere)).isEmpty();
        assertThat(workspaces.isPlainDirectory(ws.resolve("att_linked"))).isFalse();
        assertThat(workspaces.prepare("asg_one", "att_fine")).isEqualTo(ws.resolve("att_fine"));
        assertThat(ws.resolve("att_fine/output")).isDirectory();
    }

    @Test
    void anAttemptIdThatIsNotAPlainNameNeverBecomesAPath() {
        Workspaces workspaces = new Workspaces(a.config().dataDirectory());
        assertThatThrownBy(() -> workspaces.prepare("asg_one", "../asg_two"))
                .isInstanceOfSatisfying(
                        Refusal.class, r -> assertThat(r.category()).isEqualTo(RefusalCategory.INVALID_ARGUMENT));
    }

    @ParameterizedTest
    @ValueSource(strings = {"temporary", "persistent"})
    void eachAttemptWorksInItsOwnFolderAndATakeoverKeepsOnlyItsOwnOutput(String policy) throws Exception {
        CountDownLatch firstStarted = new CountDownLatch(1);
        CountDownLatch releaseFirst = new CountDownLatch(1);
        // the first holder writes its identity, then stalls until the test lets it go on (like a paused process)
        a.providers().register("stalling", arg -> job -> {
            Files.writeString(job.output().resolve("result.txt"), job.attemptId() + "\n");
            firstStarted.countDown();
            releaseFirst.await(30, TimeUnit.SECONDS);
            Files.writeString(job.output().resolve("result.txt"), "late " + job.attemptId() + "\n");
            return ProviderResult.completed("the stale holder finished");
        });
        b.providers().register("stalling", arg -> job -> {
            Files.writeString(job.output().resolve("result.txt"), job.attemptId() + "\n");
            return ProviderResult.completed("the taker finished");
        });
        Assignment x = a.runs().assign("operator", "stalling", policy);
        CompletableFuture<Throwable> stale = CompletableFuture.supplyAsync(() -> {
            try {
                a.runs().runAssignment(x.id(), Duration.ofSeconds(5));
                return null;
            } catch (Throwable t) {
                return t;
            }
        });
        assertThat(firstStarted.await(10, TimeUnit.SECONDS)).isTrue();
        String staleAttempt = a.runs().attempts(x.id()).get(0).id();
        Path staleFolder = a.runs().workspace(x.id()).resolve(staleAttempt);
        assertThat(staleFolder.resolve("output/result.txt")).exists();
        clock.advance(Duration.ofSeconds(6)); // the holder did not renew past its TTL

        RunResult taken = b.runs().runAssignment(x.id(), Duration.ofSeconds(5));
        assertThat(taken.assignment().state()).isEqualTo(AssignmentState.COMPLETED);
        assertThat(taken.attempt().id()).isNotEqualTo(staleAttempt);
        // the superseded attempt's folder was removed at reclaim, under both policies
        assertThat(names(taken.workspace()))
                .containsExactly(taken.attempt().id(), taken.attempt().id() + ".receipt.json");
        assertThat(staleFolder).doesNotExist();
        assertThat(names(taken.outputDirectory())).containsExactly("result.txt");

        releaseFirst.countDown(); // the stale holder writes on, into its own (removed) folder only
        assertThat(stale.get(20, TimeUnit.SECONDS)).isInstanceOf(Refusal.class);
        assertThat(names(taken.outputDirectory())).containsExactly("result.txt");
        assertThat(Files.readString(taken.outputDirectory().resolve("result.txt")))
                .isEqualTo(taken.attempt().id() + "\n");
        assertThat(a.runs().receipt(x.id()))
                .get()
                .extracting(Receipt::attemptId)
                .isEqualTo(taken.attempt().id());
    }

    @Test
    void reclaimRemovesASymlinkInsideTheWorkspaceButNotWhatItPointsAt() throws Exception {
        Path elsewhere = Files.createDirectories(temp.dir().resolve("elsewhere"));
        Files.writeString(elsewhere.resolve("precious.txt"), "keep me");
        a.providers().register("linker", arg -> job -> {
            Files.createSymbolicLink(job.workspace().resolve("link"), elsewhere);
            return ProviderResult.completed("linked");
        });
        RunResult r = a.runs()
                .runAssignment(
                        a.runs().assign("operator", "linker", "temporary").id());
        assertThat(names(r.workspace().resolve(r.attempt().id()))).containsExactly("output");
        assertThat(elsewhere.resolve("precious.txt")).exists();
    }
}
