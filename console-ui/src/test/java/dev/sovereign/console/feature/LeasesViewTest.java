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
import java.util.List;
import java.util.Set;
import javafx.collections.ListChangeListener;
import javafx.scene.Node;
import javafx.scene.control.Label;
import javafx.scene.control.Labeled;
import javafx.scene.control.TableColumn;
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
        return vm.leases().rows().stream()
                .filter(i -> i.actor().equals(actor))
                .findFirst()
                .map(LeaseItem::row)
                .orElseThrow();
    }

    @Test
    void everyActorIsARowWithItsStateHolderAndToken(FxRobot robot) {
        TableView<?> table = robot.lookup("#leases-table").queryAs(TableView.class);
        assertThat(table.getItems()).hasSize(5);
        assertThat(robot.lookup("#state-operator").queryAs(Label.class).getText())
                .isEqualTo("live");
        assertThat(robot.lookup("#state-planner").queryAs(Label.class).getText())
                .isEqualTo("expired");
        assertThat(robot.lookup("#state-archivist").queryAs(Label.class).getText())
                .isEqualTo("free");
        assertThat(robot.lookup("#leases-summary").queryAs(Label.class).getText())
                .isEqualTo("3 live \u00b7 0 expiring \u00b7 1 expired \u00b7 1 free");
        assertThat(robot.lookup(".table-cell").queryAll())
                .anyMatch(n -> n instanceof Labeled l
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
        assertThat(robot.lookup("#state-operator").queryAs(Label.class).getText())
                .isEqualTo("expiring");
        assertThat(gauge.getText()).isEqualTo("2.5 s of 10.0 s");

        robot.interact(() -> vm.tick(operator.expiresAt() + 1_000));
        assertThat(gauge.getFraction()).isZero();
        assertThat(gauge.getStyleClass()).contains("bad");
        assertThat(robot.lookup("#state-operator").queryAs(Label.class).getText())
                .isEqualTo("expired");
        assertThat(gauge.getText()).isEqualTo("expired 1.0 s ago");
        assertThat(robot.lookup("#renewal-operator").queryAs(TickingText.class).getText())
                .endsWith("(11 s ago)");
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
        assertThat(robot.lookup("#renewal-operator").queryAs(TickingText.class).getText())
                .endsWith("(just now)");
        assertThat(robot.lookup("#state-operator").queryAs(Label.class).getText())
                .isEqualTo("live");
    }

    @Test
    void aTakeoverShowsTheNewHolderAfterTheNextPoll(FxRobot robot) {
        fx.clock.advance(Duration.ofSeconds(11));
        Lease taken = scenario.workerA.leases().acquire("operator", Duration.ofSeconds(10));

        robot.interact(vm::pollNow);
        robot.interact(() -> vm.tick(fx.clock.millis()));

        assertThat(row("operator").token()).isEqualTo(taken.token());
        assertThat(row("operator").holder().label()).isEqualTo("worker 7101");
        assertThat(robot.lookup("#state-operator").queryAs(Label.class).getText())
                .isEqualTo("live");
        assertThat(robot.lookup(".table-cell").queryAll())
                .anyMatch(n ->
                        n instanceof Labeled l && Long.toString(taken.token()).equals(l.getText()));
    }

    private static List<String> actors(TableView<?> table) {
        return table.getItems().stream().map(i -> ((LeaseItem) i).actor()).toList();
    }

    @Test
    void clickingExpiresInSortsSoonestFirstWithAnArrowAndARenewalMovesItsRow(FxRobot robot) {
        @SuppressWarnings("unchecked")
        TableView<LeaseItem> table = robot.lookup("#leases-table").queryAs(TableView.class);
        assertThat(actors(table)).containsExactly("archivist", "indexer", "operator", "planner", "reviewer");

        robot.clickOn(robot.lookup("#leases-column-expires").queryAs(Node.class));

        // planner expired, then operator (10 s TTL), indexer (12 s), reviewer (15 s); archivist is free: last
        assertThat(actors(table)).containsExactly("planner", "operator", "indexer", "reviewer", "archivist");
        assertThat(table.getSortOrder())
                .singleElement()
                .extracting(TableColumn::getText)
                .isEqualTo("Expires in");
        Set<Node> arrows = robot.lookup("#leases-column-expires .arrow").queryAll();
        assertThat(arrows).as("the header shows its arrow").anyMatch(n -> n.isVisible());

        // 4 s later only operator is renewed: it now expires after indexer, and the poll moves it
        fx.clock.advance(Duration.ofSeconds(4));
        scenario.workerB.leases().renew("operator", scenario.operatorSecond.token());
        robot.interact(vm::pollNow);
        assertThat(actors(table)).containsExactly("planner", "indexer", "operator", "reviewer", "archivist");

        robot.clickOn(robot.lookup("#leases-column-expires").queryAs(Node.class));
        assertThat(actors(table))
                .as("descending")
                .containsExactly("archivist", "reviewer", "operator", "indexer", "planner");
    }

    @Test
    void aRenewalThatKeepsTheSortedOrderChangesNoRowOfTheTable(FxRobot robot) {
        @SuppressWarnings("unchecked")
        TableView<LeaseItem> table = robot.lookup("#leases-table").queryAs(TableView.class);
        robot.clickOn(robot.lookup("#leases-column-expires").queryAs(Node.class));
        int[] changes = new int[1];
        table.getItems().addListener((ListChangeListener<LeaseItem>) c -> changes[0]++);

        // every holder beats: every lease is renewed, and the order by expiry stays the same
        fx.clock.advance(Duration.ofSeconds(1));
        scenario.workerB.heartbeatNow();
        scenario.workerC.heartbeatNow();
        robot.interact(vm::pollNow);

        assertThat(row("operator").renewedAt()).isEqualTo(fx.clock.millis());
        assertThat(changes[0])
                .as("decision 0415: a renewal lays out no row, sorted or not")
                .isZero();
        assertThat(actors(table)).containsExactly("planner", "operator", "indexer", "reviewer", "archivist");
    }

    @Test
    void theSearchShowsOnlyTheActorsItFindsByActorHolderOrToken(FxRobot robot) {
        @SuppressWarnings("unchecked")
        TableView<LeaseItem> table = robot.lookup("#leases-table").queryAs(TableView.class);

        robot.interact(() -> vm.search().queryProperty().set("7103"));
        assertThat(actors(table)).as("worker 7103 (worker C) holds reviewer").containsExactly("reviewer");

        robot.interact(() -> vm.search().queryProperty().set("#" + scenario.operatorSecond.token()));
        assertThat(actors(table)).containsExactly("operator");

        robot.interact(() -> vm.search().queryProperty().set("INDEX"));
        assertThat(actors(table)).containsExactly("indexer");

        robot.interact(() -> vm.search().queryProperty().set(""));
        assertThat(table.getItems()).hasSize(5);
    }
}
