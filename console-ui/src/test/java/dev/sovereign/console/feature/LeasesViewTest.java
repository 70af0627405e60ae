package dev.sovereign.console.feature;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.sovereign.console.feature.leases.LeaseItem;
import dev.sovereign.console.feature.leases.LeasesView;
import dev.sovereign.console.fx.CountdownGauge;
import dev.sovereign.console.fx.TickingText;
import dev.sovereign.console.shell.ShellViewModel;
import dev.sovereign.console.testing.ConsoleFixture;
import dev.sovereign.console.testing.Scenario;
import dev.sovereign.console.testing.ViewHarness;
import dev.sovereign.engine.admin.LeaseRow;
import dev.sovereign.engine.lease.Lease;
import java.time.Duration;
import javafx.scene.control.Label;
import javafx.scene.control.TableView;
import javafx.stage.Stage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;

@ExtendWith(ApplicationExtension.class)
class LeasesViewTest {
    @RegisterExtension
    final ConsoleFixture fx = new ConsoleFixture();

    private ShellViewModel vm;
    private Scenario scenario;

    @Start
    void start(Stage stage) {
        scenario = Scenario.build(fx);
        vm = fx.attachedShell();
        ViewHarness.show(stage, new LeasesView(vm.leases(), vm.formats()).create());
    }

    private LeaseRow row(String actor) {
        return vm.leases().rows().stream().filter(i -> i.actor().equals(actor)).findFirst().map(LeaseItem::row)
                .orElseThrow();
    }

    @Test
    void everyActorIsARowWithItsStateHolderAndToken(FxRobot robot) {
        TableView<?> table = robot.lookup("#leases-table").queryAs(TableView.class);
        assertThat(table.getItems()).hasSize(5);
        assertThat(robot.lookup("#state-operator").queryAs(Label.class).getText()).isEqualTo("live");
        assertThat(robot.lookup("#state-planner").queryAs(Label.class).getText()).isEqualTo("expired");
        assertThat(robot.lookup("#state-archivist").queryAs(Label.class).getText()).isEqualTo("free");
        assertThat(robot.lookup("#leases-summary").queryAs(Label.class).getText())
                .isEqualTo("3 live \u00b7 0 expiring \u00b7 1 expired \u00b7 1 free");
        assertThat(robot.lookup(".table-cell").queryAll()).anyMatch(n -> n instanceof javafx.scene.control.Labeled l
                && Long.toString(scenario.operatorSecond.token()).equals(l.getText()));
    }

    @Test
    void theCountdownDrainsWithTheClockAndTurnsExpired(FxRobot robot) {
        LeaseRow operator = row("operator");
        CountdownGauge gauge = robot.lookup("#countdown-operator").queryAs(CountdownGauge.class);
        assertThat(gauge.getFraction()).isCloseTo(1.0, within(1e-9));
        assertThat(gauge.getText()).isEqualTo("10.0 s of 10.0 s");
        assertThat(gauge.getStyleClass()).contains("good");

        robot.interact(() -> vm.tick(operator.expiresAt() - 2_500));
        assertThat(gauge.getFraction()).isCloseTo(0.25, within(1e-9));
        assertThat(gauge.getStyleClass()).contains("warn").doesNotContain("good");
        assertThat(robot.lookup("#state-operator").queryAs(Label.class).getText()).isEqualTo("expiring");
        assertThat(gauge.getText()).isEqualTo("2.5 s of 10.0 s");

        robot.interact(() -> vm.tick(operator.expiresAt() + 1_000));
        assertThat(gauge.getFraction()).isZero();
        assertThat(gauge.getStyleClass()).contains("bad");
        assertThat(robot.lookup("#state-operator").queryAs(Label.class).getText()).isEqualTo("expired");
        assertThat(gauge.getText()).isEqualTo("expired 1.0 s ago");
        assertThat(robot.lookup("#renewal-operator").queryAs(TickingText.class).getText())
                .endsWith("(11.0 s ago)");
    }

    @Test
    void aRenewalRefillsTheCountdownAtThePollThatBringsIt(FxRobot robot) {
        LeaseRow operator = row("operator");
        CountdownGauge gauge = robot.lookup("#countdown-operator").queryAs(CountdownGauge.class);
        fx.clock.advance(Duration.ofMillis(operator.expiresAt() - 2_500 - fx.clock.millis()));
        robot.interact(() -> vm.tick(fx.clock.millis()));
        assertThat(gauge.getText()).isEqualTo("2.5 s of 10.0 s");

        scenario.workerB.leases().renew("operator", scenario.operatorSecond.token());
        // no tick: the poll alone must repaint the row's clocked cells
        robot.interact(vm::pollNow);

        assertThat(gauge.getText()).isEqualTo("10.0 s of 10.0 s");
        assertThat(gauge.getFraction()).isCloseTo(1.0, within(1e-9));
        assertThat(robot.lookup("#renewal-operator").queryAs(TickingText.class).getText()).endsWith("(0 ms ago)");
        assertThat(robot.lookup("#state-operator").queryAs(Label.class).getText()).isEqualTo("live");
    }

    @Test
    void aTakeoverShowsTheNewHolderAfterTheNextPoll(FxRobot robot) {
        fx.clock.advance(Duration.ofSeconds(11));
        Lease taken = scenario.workerA.leases().acquire("operator", Duration.ofSeconds(10));

        robot.interact(vm::pollNow);
        robot.interact(() -> vm.tick(fx.clock.millis()));

        assertThat(row("operator").token()).isEqualTo(taken.token());
        assertThat(row("operator").holder().label()).isEqualTo("worker 7101");
        assertThat(robot.lookup("#state-operator").queryAs(Label.class).getText()).isEqualTo("live");
        assertThat(robot.lookup(".table-cell").queryAll()).anyMatch(n -> n instanceof javafx.scene.control.Labeled l
                && Long.toString(taken.token()).equals(l.getText()));
    }
}
