package dev.sovereign.engine.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.Refusal;
import dev.sovereign.engine.RefusalCategory;
import dev.sovereign.engine.provider.ProviderResult;
import dev.sovereign.engine.testing.SettableClock;
import dev.sovereign.engine.testing.TempDatabase;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class WorkspaceTest {
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
        assertThat(r.workspace()).isEqualTo(a.config().dataDirectory().resolve("runs").resolve(x.id()));
        assertThat(a.runs().workspace(x.id())).isEqualTo(r.workspace());
    }

    @Test
    void aTemporaryWorkspaceKeepsOnlyTheReceiptAndTheOutputFolder() throws Exception {
        Assignment x = a.runs().assign("operator", "writer:", "temporary");
        RunResult r = a.runs().runAssignment(x.id());

        assertThat(names(r.workspace())).containsExactly(r.attempt().id() + ".receipt.json", "output");
        assertThat(Files.readString(r.workspace().resolve("output/result.txt"))).isEqualTo("the result");
        assertThat(r.receiptFile()).isEqualTo(r.workspace().resolve(r.attempt().id() + ".receipt.json"));
        String receipt = Files.readString(r.receiptFile());
        assertThat(receipt).contains("\"attempt\":\"" + r.attempt().id() + "\"")
                .contains("\"attempt_token\":" + r.attempt().token()).contains("\"status\":\"completed\"");
    }

    @Test
    void aPersistentWorkspaceKeepsEverything() throws Exception {
        Assignment x = a.runs().assign("operator", "writer:", "persistent");
        RunResult r = a.runs().runAssignment(x.id());
        assertThat(names(r.workspace())).containsExactly(r.attempt().id() + ".receipt.json", "output",
                "scratch.txt", "tmp");
    }

    @Test
    void reclaimNeverRunsWhenTheTerminalWriteLost() throws Exception {
        Assignment x = a.runs().assign("operator", "writer:steal", "temporary");
        assertThatThrownBy(() -> a.runs().runAssignment(x.id()))
                .isInstanceOfSatisfying(Refusal.class,
                        r -> assertThat(r.category()).isEqualTo(RefusalCategory.EXECUTION_ATTEMPT_LOST));

        Path ws = a.runs().workspace(x.id());
        assertThat(names(ws)).containsExactly("output", "scratch.txt", "tmp"); // untouched, and no receipt file
        assertThat(ws.resolve("tmp/deeper/more.txt")).exists();
    }

    @Test
    void aSymlinkedWorkspaceIsRefusedWithItsOwnCategoryAndNothingIsWrittenThrough() throws Exception {
        Assignment x = a.runs().assign("operator", "writer:", "temporary");
        Path elsewhere = Files.createDirectories(temp.dir().resolve("elsewhere"));
        Files.writeString(elsewhere.resolve("precious.txt"), "keep me");
        Files.createDirectories(a.config().dataDirectory().resolve("runs"));
        Files.createSymbolicLink(a.runs().workspace(x.id()), elsewhere);

        assertThatThrownBy(() -> a.runs().runAssignment(x.id()))
                .isInstanceOfSatisfying(Refusal.class,
                        r -> assertThat(r.category()).isEqualTo(RefusalCategory.SYMLINKED_WORKSPACE));

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
    void anOutputPathThatIsAFileIsRefusedAsNotADirectory() throws Exception {
        Assignment x = a.runs().assign("operator", "writer:", "temporary");
        Path ws = Files.createDirectories(a.runs().workspace(x.id()));
        Files.writeString(ws.resolve("output"), "a file where the output folder belongs");

        assertThatThrownBy(() -> a.runs().runAssignment(x.id()))
                .isInstanceOfSatisfying(Refusal.class,
                        r -> assertThat(r.category()).isEqualTo(RefusalCategory.WORKSPACE_NOT_DIRECTORY));
        assertThat(a.runs().receipt(x.id())).get().extracting(Receipt::failureCategory)
                .isEqualTo("workspace_not_directory");
        assertThat(Files.readString(ws.resolve("output"))).startsWith("a file");
    }

    @Test
    void reclaimRemovesASymlinkInsideTheWorkspaceButNotWhatItPointsAt() throws Exception {
        Path elsewhere = Files.createDirectories(temp.dir().resolve("elsewhere"));
        Files.writeString(elsewhere.resolve("precious.txt"), "keep me");
        a.providers().register("linker", arg -> job -> {
            Files.createSymbolicLink(job.workspace().resolve("link"), elsewhere);
            return ProviderResult.completed("linked");
        });
        RunResult r = a.runs().runAssignment(a.runs().assign("operator", "linker", "temporary").id());
        assertThat(names(r.workspace())).containsExactly(r.attempt().id() + ".receipt.json", "output");
        assertThat(elsewhere.resolve("precious.txt")).exists();
    }
}
