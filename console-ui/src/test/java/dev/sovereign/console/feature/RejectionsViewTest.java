package dev.sovereign.console.feature;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sovereign.console.feature.rejections.RejectionsView;
import dev.sovereign.console.fx.LinkedSentence;
import dev.sovereign.console.ledger.FilterChoice;
import dev.sovereign.console.shell.ShellViewModel;
import dev.sovereign.console.testing.ConsoleFixture;
import dev.sovereign.console.testing.LayoutChecks;
import dev.sovereign.console.testing.Scenario;
import dev.sovereign.console.testing.ViewHarness;
import dev.sovereign.engine.admin.JournalEntry;
import dev.sovereign.engine.base.Refusal;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import javafx.scene.Scene;
import javafx.scene.control.Label;
import javafx.scene.control.Labeled;
import javafx.scene.control.TableView;
import javafx.scene.control.ToggleButton;
import javafx.stage.Stage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;
import org.testfx.util.WaitForAsyncUtils;

@ExtendWith(ApplicationExtension.class)
class RejectionsViewTest {
    @RegisterExtension
    final ConsoleFixture fx = new ConsoleFixture();

    private ShellViewModel vm;
    private Scenario scenario;
    private Stage stage;

    @Start
    void start(Stage stage) {
        this.stage = stage;
        scenario = Scenario.build(fx);
        vm = fx.attachedShell();
        ViewHarness.show(stage, new RejectionsView(vm.rejections()).create());
    }

    /**
     * Issue 31: a selected refusal's text stays inside its half of the split, however little room the window leaves
     * it (it scrolls there), never drawn across or hidden past the divider.
     */
    @Test
    void theSelectedRefusalStaysInsideItsPaneInASmallWindow(FxRobot robot) {
        List<String> outside = new ArrayList<>();
        robot.interact(() -> {
            stage.setWidth(760);
            stage.setHeight(320);
            vm.rejections().selectedProperty().set(vm.rejections().rows().get(0));
        });
        WaitForAsyncUtils.waitForFxEvents();
        robot.interact(() -> {
            Scene scene = stage.getScene();
            scene.getRoot().applyCss();
            scene.getRoot().layout();
            LayoutChecks.outside(scene.getRoot(), scene.getWidth(), scene.getHeight(), outside, "760x320: ");
        });
        robot.interact(
                () -> { // the primary stage outlives this class: give the next test its size back
                    stage.setWidth(1280);
                    stage.setHeight(760);
                });
        assertThat(robot.lookup("#rejection-detail")
                        .queryAs(LinkedSentence.class)
                        .getText())
                .startsWith(vm.rejections().rows().get(0).sentence());
        assertThat(outside).isEmpty();
    }

    /**
     * The scenario's late write (worker A's refused renewal, then its run's refused terminal write) is one row, an
     * incident of two refusals (decision 0320); the contested acquire after it is another.
     */
    @Test
    void theFeedListsRefusalsNewestFirstAndExplainsTheSelectedOne(FxRobot robot) {
        TableView<?> table = robot.lookup("#rejections-table").queryAs(TableView.class);
        assertThat(table.getItems()).hasSize(2);
        JournalEntry stale = vm.rejections().rows().get(1);
        assertThat(stale.category()).isEqualTo("actor_lease_lost");
        assertThat(vm.rejections().incident(stale).partWords()).isEqualTo("lease renewal, terminal write");

        robot.clickOn("#rejection-" + stale.seq());
        WaitForAsyncUtils.waitForFxEvents();

        assertThat(robot.lookup("#rejection-detail")
                        .queryAs(LinkedSentence.class)
                        .getText())
                .startsWith(stale.sentence())
                .contains("category actor_lease_lost");
        assertThat(robot.lookup(".table-cell").queryAll())
                .anyMatch(n -> n instanceof Labeled l
                        && (scenario.operatorFirst.token() + " vs " + scenario.operatorSecond.token())
                                .equals(l.getText()));
    }

    @Test
    void aNewRefusalAppearsAtTheTopOnTheNextPoll(FxRobot robot) throws Exception {
        try {
            scenario.workerA.leases().renew("operator", scenario.operatorFirst.token());
        } catch (Refusal expected) {
            // journalled as REJECTED
        }

        robot.interact(vm::pollNow);

        TableView<?> table = robot.lookup("#rejections-table").queryAs(TableView.class);
        assertThat(table.getItems())
                .as("a later renewal is another incident (decision 0320)")
                .hasSize(3);
        JournalEntry newest = vm.rejections().rows().get(0);
        assertThat(newest.seq()).isGreaterThan(vm.rejections().rows().get(1).seq());
        // The table lays its rows out on the next pulse: wait for the row, with a deadline.
        WaitForAsyncUtils.waitFor(
                5,
                TimeUnit.SECONDS,
                () -> robot.lookup("#rejection-" + newest.seq()).tryQuery().isPresent());
        assertThat(robot.lookup("#rejections-summary").queryAs(Label.class).getText())
                .isEqualTo("3 incidents, 4 refused writes");
    }

    @Test
    void categoryFiltersCarryTheDatabasesCountsAndTheTimeHeaderSortsInJournalOrder(FxRobot robot) {
        @SuppressWarnings("unchecked")
        TableView<JournalEntry> table = robot.lookup("#rejections-table").queryAs(TableView.class);
        // the filters count refusals, as the database does; a row is an incident of one or more of them
        Map<String, Long> byCategory = new TreeMap<>();
        Map<String, Long> incidents = new TreeMap<>();
        table.getItems().forEach(row -> {
            vm.rejections().incident(row).parts().forEach(e -> byCategory.merge(e.category(), 1L, Long::sum));
            incidents.merge(row.category(), 1L, Long::sum);
        });
        assertThat(vm.rejections().filterChoices())
                .extracting(FilterChoice::label)
                .first()
                .isEqualTo("All 3");
        byCategory.forEach((category, n) -> assertThat(robot.lookup("#rejections-filter-" + category)
                        .queryAs(ToggleButton.class)
                        .getText())
                .isEqualTo(category + " " + n));

        robot.clickOn("#rejections-filter-actor_lease_lost");
        assertThat(table.getItems())
                .isNotEmpty()
                .allSatisfy(e -> assertThat(e.category()).isEqualTo("actor_lease_lost"))
                .hasSize(incidents.get("actor_lease_lost").intValue());

        robot.clickOn("#rejections-filter-all");
        robot.clickOn(robot.lookup(".column-header .label")
                .match(n -> n instanceof Label l && l.getText().equals("Time"))
                .queryAs(Label.class));
        assertThat(table.getItems()).extracting(JournalEntry::seq).isSorted().hasSize(2);
    }
}
