package dev.sovereign.console.feature;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sovereign.console.feature.runs.RunsViewModel;
import dev.sovereign.console.shell.ShellViewModel;
import dev.sovereign.console.testing.ConsoleFixture;
import dev.sovereign.engine.Engine;
import dev.sovereign.engine.admin.AssignmentRow;
import dev.sovereign.engine.admin.ReceiptRow;
import dev.sovereign.engine.base.Refusal;
import dev.sovereign.engine.provider.ProviderResult;
import dev.sovereign.engine.run.Assignment;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The receipt panel says why a run's outcome is unknown, and only one reason: its worker died, or an
 * operator stole its fence. Real engines, a real supervisor, a real file.
 */
class RunsReceiptTruthTest {
    @RegisterExtension
    final ConsoleFixture fx = new ConsoleFixture();

    @Test
    void aRunRecoveredAfterItsFenceWasStolenIsNotSaidToHaveLostItsWorker() {
        Engine worker = fx.engine("worker 7201");
        Engine desk = fx.engine("operator desk");
        worker.actors().add("operator");
        worker.providers().register("thief", arg -> job -> {
            desk.runs().stealFence(job.assignmentId());
            return ProviderResult.completed("finished, but too late");
        });
        Assignment x = worker.runs().assign("operator", "thief");
        assertThatThrownBy(() -> worker.runs().runAssignment(x.id())).isInstanceOf(Refusal.class);
        fx.clock.advance(Duration.ofHours(1));
        assertThat(desk.supervisor().tick().recovered()).hasSize(1);
        ShellViewModel vm = fx.attachedShell();
        RunsViewModel runs = vm.runs();

        runs.selectedProperty()
                .set(runs.assignments().stream()
                        .filter(a -> a.id().equals(x.id()))
                        .findFirst()
                        .orElseThrow());

        assertThat(runs.detailProperty().get())
                .contains("an operator stole its fence")
                .contains("after its fence was stolen") // the engine's receipt summary, shown below
                .doesNotContain("the worker died");
    }

    @Test
    void theWorkerLostChipSaysAcknowledgedOrRetriedOnceAnOperatorActed() {
        AssignmentRow waiting = lost(null, null);
        assertThat(RunsViewModel.workerLostChip(waiting)).isEqualTo("worker lost");
        assertThat(RunsViewModel.workerLostChip(lost(1_000L, null))).isEqualTo("worker lost \u00b7 acknowledged");
        assertThat(RunsViewModel.workerLostChip(lost(null, "asg_next"))).isEqualTo("worker lost \u00b7 retried");
    }

    private static AssignmentRow lost(Long acknowledgedAt, String retriedBy) {
        return new AssignmentRow(
                "asg_x",
                "operator",
                "scripted",
                "shared",
                "FAILED",
                null,
                null,
                null,
                retriedBy,
                acknowledgedAt,
                0,
                0,
                1,
                new ReceiptRow(1, "asg_x", "att_x", 3, "proc_x", "failed", "worker_lost", false, null, 0, null, false));
    }
}
