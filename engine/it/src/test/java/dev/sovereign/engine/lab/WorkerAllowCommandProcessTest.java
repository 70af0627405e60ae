package dev.sovereign.engine.lab;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.journal.FenceEvent;
import dev.sovereign.engine.run.Assignment;
import dev.sovereign.engine.run.AssignmentState;
import dev.sovereign.engine.testing.TempDatabase;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Commands from the ledger are not a remote shell (issue 19, decision 0800), with real {@code sovereign
 * worker} processes: a worker runs a {@code command:} assignment only when one of its
 * {@code --allow-command} patterns matches it; it refuses any other once, journalled, leaves it CREATED
 * and goes on with the rest of its work.
 */
class WorkerAllowCommandProcessTest {
    private static final Duration WAIT = Duration.ofSeconds(30);

    @RegisterExtension
    final TempDatabase temp = new TempDatabase();

    private WorkerProcess worker(List<String> allowed) throws Exception {
        return WorkerProcess.start(new WorkerProcess.Spec(
                temp.file(), "operator", Duration.ofSeconds(3), null, "allow-list worker", allowed));
    }

    @Test
    void aWorkerWithoutAnAllowListRefusesACommandOnceLeavesItCreatedAndStillRunsScriptedWork() throws Exception {
        Engine ops = temp.open(Clock.systemUTC());
        ops.actors().add("operator");
        Path marker = temp.dir().resolve("ran");
        Assignment command = ops.runs().assign("operator", "command:touch " + marker);
        Assignment scripted = ops.runs().assign("operator", "scripted:ms=0,outcome=completed");

        try (WorkerProcess w = worker(List.of())) {
            assertThat(w.awaitLine(l -> l.startsWith("started"), WAIT)).contains("commands none allowed");
            assertThat(w.awaitLine(l -> l.startsWith("refused"), WAIT))
                    .contains(command.id())
                    .contains("command_not_allowed");
            assertThat(w.awaitLine(l -> l.startsWith("ran") && l.contains(scripted.id()), WAIT))
                    .contains("COMPLETED");
            // more work later, so the worker has passed the refused one again: still one refusal, not one per loop
            Assignment later = ops.runs().assign("operator", "scripted:ms=0,outcome=completed");
            assertThat(w.awaitLine(l -> l.startsWith("ran") && l.contains(later.id()), WAIT))
                    .contains("COMPLETED");
            assertThat(w.lines()).filteredOn(l -> l.startsWith("refused")).hasSize(1);
            assertThat(w.terminate(WAIT)).isTrue();
        }

        assertThat(marker).doesNotExist();
        assertThat(ops.runs().get(command.id()).orElseThrow().state()).isEqualTo(AssignmentState.CREATED);
        List<FenceEvent> rejected = ops.journal().forResource("assignment", command.id()).stream()
                .filter(e -> e.kind().name().equals("REJECTED"))
                .toList();
        assertThat(rejected).singleElement().satisfies(e -> {
            assertThat(e.category()).isEqualTo("command_not_allowed");
            assertThat(e.detail()).contains("touch " + marker);
        });
    }

    @Test
    void aWorkerWithAMatchingPatternRunsTheCommand() throws Exception {
        Engine ops = temp.open(Clock.systemUTC());
        ops.actors().add("operator");
        Path marker = temp.dir().resolve("ran");
        Assignment command = ops.runs().assign("operator", "command:touch " + marker);

        try (WorkerProcess w = worker(List.of("echo *", "touch *"))) {
            assertThat(w.awaitLine(l -> l.startsWith("started"), WAIT)).contains("allowed by 2 pattern(s)");
            assertThat(w.awaitLine(l -> l.startsWith("ran") && l.contains(command.id()), WAIT))
                    .contains("COMPLETED");
        }

        assertThat(marker).exists();
        assertThat(ops.runs().get(command.id()).orElseThrow().state()).isEqualTo(AssignmentState.COMPLETED);
    }

    @Test
    void aWorkerWhosePatternsDoNotMatchRefusesTheCommand() throws Exception {
        Engine ops = temp.open(Clock.systemUTC());
        ops.actors().add("operator");
        Path marker = temp.dir().resolve("ran");
        // "touch *" would allow "touch <marker>", but not with a second command chained to it
        Assignment command = ops.runs().assign("operator", "command:touch " + marker + "; touch " + marker + "2");

        try (WorkerProcess w = worker(List.of("touch *"))) {
            assertThat(w.awaitLine(l -> l.startsWith("refused"), WAIT))
                    .contains(command.id())
                    .contains("command_not_allowed")
                    .contains("[touch *]");
        }

        assertThat(marker).doesNotExist();
        assertThat(ops.runs().get(command.id()).orElseThrow().state()).isEqualTo(AssignmentState.CREATED);
    }
}
