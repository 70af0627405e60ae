package dev.sovereign.engine.run;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sovereign.engine.internal.run.Workspaces;
import dev.sovereign.engine.testing.Together;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two processes running their first assignments at the same moment both find {@code runs/} missing and
 * both create it: the one that loses that race must not fail its run (it used to end FAILED with
 * {@code workspace_error} and throw an {@code UncheckedIOException}).
 */
class WorkspaceRaceTest {
    @TempDir
    Path dir;

    @Test
    void twoRunsPreparingTheirFirstWorkspacesAtOnceBothGetThem() throws Exception {
        for (int i = 0; i < 200; i++) {
            Path data = dir.resolve("data-" + i);
            Workspaces one = new Workspaces(data);
            Workspaces two = new Workspaces(data);
            List<Supplier<Object>> racers = List.of(
                    () -> prepare(one, "asg_one", "att_one"),
                    () -> prepare(two, "asg_two", "att_two"),
                    () -> prepare(two, "asg_one", "att_three"));
            assertThat(Together.run(racers))
                    .as("round %d", i)
                    .allSatisfy(r -> assertThat(r).isInstanceOf(Path.class));
            assertThat(Files.isDirectory(data.resolve("runs/asg_one/att_one/output")))
                    .isTrue();
            assertThat(Files.isDirectory(data.resolve("runs/asg_two/att_two/output")))
                    .isTrue();
        }
    }

    private static Object prepare(Workspaces w, String assignment, String attempt) {
        try {
            return w.prepare(assignment, attempt);
        } catch (RuntimeException e) {
            return e;
        }
    }
}
