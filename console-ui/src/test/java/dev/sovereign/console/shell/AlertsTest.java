package dev.sovereign.console.shell;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sovereign.console.testing.ConsoleFixture;
import dev.sovereign.console.testing.Scenario;
import dev.sovereign.engine.Engine;
import dev.sovereign.engine.Ledgers;
import dev.sovereign.engine.admin.OperatorActions;
import dev.sovereign.engine.base.Refusal;
import dev.sovereign.engine.run.Assignment;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Issue 17, item 10: an alert when a run comes to need the operator (worker-lost, failed or blocked: issue 31) or
 * refused writes spike; it can be turned off.
 */
class AlertsTest {
    @RegisterExtension
    final ConsoleFixture fx = new ConsoleFixture();

    private Assignment loseARun(String label, String actor) {
        Engine silent = fx.engine(label);
        silent.leases().acquire(actor, Duration.ofSeconds(5));
        Assignment run = fx.gatedRun(silent, actor, Duration.ofSeconds(5), label);
        fx.clock.advance(Duration.ofSeconds(6));
        try (Engine supervisor = fx.engine("supervisor of " + label)) {
            supervisor.supervisor().tick();
        }
        return run;
    }

    @Test
    void aRunTurningWorkerLostRaisesOneAlertAndThePastIsNotNews() {
        // one run is worker-lost already, one failed: the database's past
        Scenario scenario = Scenario.build(fx);
        ShellViewModel vm = fx.attachedShell();
        assertThat(vm.banners().alerts().latestProperty().get())
                .as("no alert about the past")
                .isEmpty();
        assertThat(vm.banners().alerts().unseenProperty().get())
                .as("but the runs it left waiting are counted, as on the Runs page (issue 31)")
                .isEqualTo(2);

        Assignment lost = loseARun("worker 7105", "archivist");
        vm.pollNow();

        assertThat(vm.banners().alerts().unseenProperty().get()).isEqualTo(3);
        assertThat(vm.banners().alerts().latestProperty().get())
                .isEqualTo("Run " + lost.id() + " of actor archivist needs an"
                        + " operator: its worker died and the supervisor recovered it as worker_lost.");
        vm.pollNow();
        assertThat(vm.banners().alerts().unseenProperty().get()).as("told once").isEqualTo(3);

        vm.banners().showAlerts();
        assertThat(vm.pageProperty().get()).isEqualTo(Page.RUNS);
        assertThat(vm.runs().selectedProperty().get().id())
                .as("the oldest run that needs the operator")
                .isEqualTo(scenario.lostRun.id());
        assertThat(vm.bannerProperty().get().text()).contains(scenario.lostRun.id());
        assertThat(vm.banners().alerts().unseenProperty().get())
                .as("looking does not see to the runs: the count stays the ledger's")
                .isEqualTo(vm.runs().needsOperatorProperty().get())
                .isEqualTo(3);
    }

    /**
     * Issue 31, item 18: a run that ends failed or blocked, worker-lost or not, needs the operator as much: it raises
     * an alert saying how it ended, and is counted until it is retried or acknowledged.
     */
    @Test
    void aRunEndingFailedOrBlockedNeedsTheOperatorToo() {
        Engine worker = fx.engine("worker 7109");
        worker.actors().add("planner");
        ShellViewModel vm = fx.attachedShell();
        assertThat(vm.banners().alerts().unseenProperty().get()).isZero();

        Assignment blocked = worker.runs()
                .runAssignment(
                        worker.runs()
                                .assign("planner", "scripted:ms=0,outcome=blocked")
                                .id(),
                        Duration.ofSeconds(5))
                .assignment();
        vm.pollNow();
        assertThat(vm.banners().alerts().unseenProperty().get()).isEqualTo(1);
        assertThat(vm.banners().alerts().latestProperty().get())
                .as("the run as read: " + vm.runs().assignments())
                .startsWith("Run " + blocked.id() + " of actor planner needs an operator: it ended BLOCKED");

        fx.clock.advance(Duration.ofSeconds(1));
        Assignment failed = worker.runs()
                .runAssignment(
                        worker.runs()
                                .assign("planner", "scripted:ms=0,outcome=failed")
                                .id(),
                        Duration.ofSeconds(5))
                .assignment();
        vm.pollNow();
        assertThat(vm.banners().alerts().unseenProperty().get())
                .isEqualTo(vm.runs().needsOperatorProperty().get())
                .isEqualTo(2);
        assertThat(vm.banners().alerts().latestProperty().get())
                .isEqualTo("Run " + failed.id() + " of actor planner needs an operator: it ended FAILED"
                        + " (scripted_failure).");

        worker.runs().acknowledge(blocked.id());
        worker.runs().retry(failed.id());
        vm.pollNow();
        assertThat(vm.banners().alerts().unseenProperty().get()).isZero();
        assertThat(vm.runs().needsOperatorProperty().get()).isZero();
    }

    /**
     * Issue 31, item 10: the alert opens Runs with its run selected; a run retried or acknowledged is no longer
     * counted in the status bar, and the banner about it goes.
     */
    @Test
    void theAlertOpensItsRunSelectedAndGoesOnceTheRunIsSeenTo() throws Exception {
        fx.engine("admin").actors().add("archivist");
        fx.engine("admin 2").actors().add("indexer");
        ShellViewModel vm = fx.attachedShell();
        Assignment first = loseARun("worker 7107", "archivist");
        vm.pollNow();
        Assignment second = loseARun("worker 7108", "indexer");
        vm.pollNow();
        assertThat(vm.banners().alerts().unseenProperty().get()).isEqualTo(2);

        try (OperatorActions ops = Ledgers.openOperatorActions(fx.file(), fx.clock)) {
            ops.acknowledge(second.id());
            vm.pollNow();
            assertThat(vm.banners().alerts().unseenProperty().get())
                    .as("the acknowledged run's alert is no longer counted")
                    .isEqualTo(1);

            vm.banners().showAlerts();
            assertThat(vm.pageProperty().get()).isEqualTo(Page.RUNS);
            assertThat(vm.runs().selectedProperty().get())
                    .as("the run the alert is about, selected")
                    .isNotNull();
            assertThat(vm.runs().selectedProperty().get().id()).isEqualTo(first.id());
            assertThat(vm.bannerProperty().get().text()).contains(first.id());

            ops.retry(first.id());
            vm.pollNow();
            assertThat(vm.bannerProperty().get())
                    .as("the banner about a run retried since")
                    .isNull();
        }
    }

    @Test
    void tenRefusedWritesWithinAMinuteAreASpike() {
        Scenario s = Scenario.build(fx);
        ShellViewModel vm = fx.attachedShell();
        // stale renewals, each journalled: a repeated acquire of a live lease is counted in one row instead
        // (decision 0019), so contention alone is no spike
        for (int i = 0; i < 9; i++) {
            assertThatThrownBy(() -> s.workerA.leases().renew("operator", 999_999_999L, Duration.ofSeconds(5)))
                    .isInstanceOf(Refusal.class);
        }
        vm.tick(fx.clock.millis());
        vm.pollNow();
        assertThat(vm.banners().alerts().latestProperty().get())
                .as("nine are not a spike")
                .isEmpty();

        assertThatThrownBy(() -> s.workerA.leases().renew("operator", 999_999_999L, Duration.ofSeconds(5)))
                .isInstanceOf(Refusal.class);
        vm.pollNow();

        assertThat(vm.banners().alerts().latestProperty().get())
                .isEqualTo("10 refused writes in the last minute: see the" + " Rejections page.");
        vm.banners().showAlerts();
        assertThat(vm.pageProperty().get()).isEqualTo(Page.REJECTIONS);
    }

    @Test
    void turnedOffThereAreNoAlertsAndTheChoiceIsRemembered() {
        Scenario.build(fx);
        ShellViewModel vm = fx.attachedShell();
        assertThat(vm.banners().alerts().unseenProperty().get())
                .as("the runs the scenario left waiting")
                .isEqualTo(2);
        vm.banners().alerts().enabledProperty().set(false);
        assertThat(vm.banners().alerts().unseenProperty().get())
                .as("off: the count goes at once")
                .isZero();

        loseARun("worker 7106", "archivist");
        vm.pollNow();

        assertThat(vm.banners().alerts().unseenProperty().get()).isZero();
        assertThat(vm.banners().alerts().latestProperty().get()).isEmpty();
        assertThat(fx.settings().alerts()).isFalse();
    }
}
