package dev.sovereign.console.feature;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sovereign.console.actions.ActionStatus;
import dev.sovereign.console.feature.runs.RunsViewModel;
import dev.sovereign.console.feature.supervisor.SupervisorViewModel;
import dev.sovereign.console.shell.ShellViewModel;
import dev.sovereign.console.testing.ConsoleFixture;
import dev.sovereign.console.testing.Scenario;
import dev.sovereign.engine.Engine;
import dev.sovereign.engine.admin.AssignmentRow;
import dev.sovereign.engine.admin.ProcessRow;
import dev.sovereign.engine.run.Assignment;
import dev.sovereign.engine.run.AssignmentState;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Retry, acknowledge and "tick now" through the view models, against real engines on a temporary
 * file: the actions run on the console's own engine (kind console), the results come back through the
 * same live read path as everything else.
 */
class OperatorActionsViewModelTest {
    @RegisterExtension
    final ConsoleFixture fx = new ConsoleFixture();

    private static AssignmentRow row(ShellViewModel vm, String id) {
        return vm.runs().assignments().stream()
                .filter(a -> a.id().equals(id))
                .findFirst()
                .orElseThrow();
    }

    @Test
    void retryingAWorkerLostRunCreatesANewCreatedAssignmentThatRetriesItAndSelectsIt() {
        Scenario s = Scenario.build(fx);
        ShellViewModel vm = fx.attachedShell();
        RunsViewModel runs = vm.runs();
        runs.selectedProperty().set(row(vm, s.lostRun.id()));
        assertThat(runs.canRetryProperty().get()).isTrue();

        runs.retrySelected();

        assertThat(runs.status().tone()).isEqualTo(ActionStatus.Tone.DONE);
        assertThat(runs.status().message()).startsWith("Retried " + s.lostRun.id() + " as asg_");
        vm.pollNow();
        AssignmentRow retry = runs.assignments().stream()
                .filter(a -> s.lostRun.id().equals(a.retryOf()))
                .findFirst()
                .orElseThrow();
        assertThat(retry.state()).isEqualTo("CREATED");
        assertThat(retry.providerSpec()).isEqualTo(s.lostRun.providerSpec());
        assertThat(runs.status().message()).contains(retry.id());
        assertThat(runs.selectedProperty().get()).isEqualTo(retry);
        assertThat(row(vm, s.lostRun.id()).retriedBy()).isEqualTo(retry.id());
        assertThat(row(vm, s.lostRun.id()).needsOperator()).isFalse();
        assertThat(runs.attentionProperty().get())
                .as("only the scenario's failed run still waits (issue 31, item 18)")
                .startsWith("1 run ended failed or blocked");
        Assignment stored = s.workerB.runs().get(retry.id()).orElseThrow();
        assertThat(stored.state()).isEqualTo(AssignmentState.CREATED);
        assertThat(stored.retryOf()).isEqualTo(s.lostRun.id());
    }

    @Test
    void anActionResultDoesNotFollowTheOperatorToAnotherDatabase() {
        Scenario s = Scenario.build(fx);
        ShellViewModel vm = fx.attachedShell();
        RunsViewModel runs = vm.runs();
        runs.selectedProperty().set(row(vm, s.lostRun.id()));
        runs.retrySelected();
        vm.supervisor().tickNow();
        assertThat(runs.status().message()).startsWith("Retried " + s.lostRun.id() + " as asg_");
        assertThat(vm.supervisor().status().message()).isNotEmpty();
        Path other = fx.dir().resolve("sandbox.db");
        try (Engine e = Engine.open(other)) {
            e.actors().add("operator");
        }

        vm.attach(other);

        assertThat(vm.attachment().attachedProperty().get())
                .isEqualTo(other.toAbsolutePath().normalize());
        assertThat(runs.status().message())
                .as("the demo's retry is not shown on the sandbox's Runs page")
                .isEmpty();
        assertThat(runs.status().tone()).isEqualTo(ActionStatus.Tone.NONE);
        assertThat(vm.supervisor().status().message()).isEmpty();
        assertThat(runs.status().isBusy()).isFalse();
    }

    @Test
    void acknowledgingAWorkerLostRunClearsTheFlagAndKeepsItFailed() {
        Scenario s = Scenario.build(fx);
        ShellViewModel vm = fx.attachedShell();
        RunsViewModel runs = vm.runs();
        runs.selectedProperty().set(row(vm, s.lostRun.id()));
        assertThat(runs.attentionProperty().get())
                .isEqualTo("2 runs need an operator: 1 was recovered after the worker died (worker_lost, outcome"
                        + " unknown), the other ended failed or blocked. Read their receipts, then retry or"
                        + " acknowledge each.");

        runs.acknowledgeSelected();
        vm.pollNow();

        AssignmentRow acked = row(vm, s.lostRun.id());
        assertThat(acked.state()).isEqualTo("FAILED");
        assertThat(acked.acknowledgedAt()).isEqualTo(fx.clock.millis());
        assertThat(acked.needsOperator()).isFalse();
        assertThat(runs.attentionProperty().get()).startsWith("1 run ended failed or blocked");
        assertThat(runs.status().message())
                .isEqualTo("Acknowledged " + s.lostRun.id() + ": it stays failed and is no longer flagged.");
        assertThat(runs.canAcknowledgeProperty().get()).isFalse();
        assertThat(runs.canRetryProperty().get())
                .as("an acknowledged run may still be retried")
                .isTrue();
    }

    @Test
    void aRetryThatLostTheRaceShowsTheRefusalInOneSentence() {
        Scenario s = Scenario.build(fx);
        ShellViewModel vm = fx.attachedShell();
        vm.runs().selectedProperty().set(row(vm, s.lostRun.id()));
        Assignment first = s.workerB.runs().retry(s.lostRun.id()); // another operator, before the next poll

        vm.runs().retrySelected();

        assertThat(vm.runs().status().tone()).isEqualTo(ActionStatus.Tone.REFUSED);
        assertThat(vm.runs().status().message())
                .isEqualTo("Assignment " + s.lostRun.id() + " was already retried as " + first.id()
                        + "; retry that one instead.");
        assertThat(vm.runs().status().isBusy()).isFalse();
    }

    @Test
    void tickNowRecoversAnExpiredAttemptAndTheSupervisorViewShowsTheReportAtOnce() {
        Engine worker = fx.engine("worker 7101");
        worker.actors().add("operator");
        Assignment abandoned = fx.gatedRun(worker, "operator", Duration.ofSeconds(5), "abandoned");
        ShellViewModel vm = fx.attachedShell();
        SupervisorViewModel sup = vm.supervisor();
        assertThat(vm.ledger().snapshot().processes()).extracting(p -> p.kind()).doesNotContain("console");
        fx.clock.advance(Duration.ofSeconds(6)); // worker 7101 went silent: nothing renewed its attempt

        sup.tickNow();

        assertThat(sup.status().tone()).isEqualTo(ActionStatus.Tone.DONE);
        assertThat(sup.status().message())
                .isEqualTo("Tick done at "
                        + vm.formats().time(sup.lastTickProperty().get().at())
                        + " by this console: 1 run recovered as worker_lost, 0 claims swept.");
        assertThat(sup.lastTickProperty().get().recovered()).isEqualTo(1);
        assertThat(sup.reportLines())
                .anyMatch(l -> l.startsWith("Recovered assignment " + abandoned.id() + " as failed / worker_lost"));
        assertThat(sup.headlineProperty().get()).startsWith("Last tick at ").contains("console ");
        assertThat(sup.lastRecoveryProperty().get())
                .startsWith("Last recovery at ")
                .contains(" by this console (")
                .contains("Recovered assignment " + abandoned.id());
        vm.pollNow();
        assertThat(row(vm, abandoned.id()).isWorkerLost()).isTrue();
        assertThat(vm.ledger().snapshot().processes())
                .filteredOn(p -> p.kind().equals("console"))
                .singleElement()
                .extracting(ProcessRow::process)
                .satisfies(
                        p -> assertThat(sup.lastTickProperty().get().process().identity())
                                .isEqualTo(p.identity()));
        assertThat(sup.lastTickProperty().get().seq())
                .isEqualTo(vm.ledger().snapshot().lastTick().orElseThrow().seq());
    }

    @Test
    void withoutADatabaseNoActionRunsAndAttachingAloneWritesNothing() {
        Scenario.build(fx);
        ShellViewModel vm = fx.shell();
        assertThat(vm.supervisor().canActProperty().get()).isFalse();
        vm.supervisor().tickNow();
        assertThat(vm.supervisor().status().tone()).isEqualTo(ActionStatus.Tone.NONE);

        vm.attach(fx.file());
        long version = vm.ledger().snapshot().changeMarker();
        vm.attachment().refresh();

        assertThat(vm.ledger().snapshot().changeMarker())
                .as("attaching wrote nothing")
                .isEqualTo(version);
        assertThat(vm.supervisor().canActProperty().get()).isTrue();
    }
}
