package dev.sovereign.console.shell;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sovereign.console.testing.ConsoleFixture;
import dev.sovereign.console.testing.Scenario;
import dev.sovereign.engine.admin.AdminReader;
import dev.sovereign.engine.admin.AssignmentRow;
import dev.sovereign.engine.base.Refusal;
import dev.sovereign.engine.lease.Lease;
import dev.sovereign.engine.mailbox.Message;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import javafx.scene.Scene;
import javafx.scene.control.Label;
import javafx.scene.control.TableView;
import javafx.scene.image.WritableImage;
import javafx.scene.text.Text;
import javafx.stage.Stage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;
import org.testfx.util.WaitForAsyncUtils;

/**
 * More rows than a snapshot carries ({@link AdminReader#FINISHED_ROWS_SHOWN}): the Runs and Mailbox
 * summaries and the navigation badge give the database's totals, and the old worker-lost run that
 * fell out of the most recent page still shows, flagged.
 */
@ExtendWith(ApplicationExtension.class)
class TrueCountsTest {
    private static final int MORE_RUNS = 330;
    private static final int MORE_DONE = 364;
    private static final int MORE_REFUSALS = 520;

    @RegisterExtension
    final ConsoleFixture fx = new ConsoleFixture();

    private ShellViewModel vm;
    private Scenario scenario;
    private Scene scene;

    @Start
    void start(Stage stage) {
        scenario = Scenario.build(fx);
        for (int i = 0; i < MORE_RUNS; i++) { // newer than the worker-lost run: it leaves the recent page
            fx.clock.advance(Duration.ofMillis(1));
            scenario.workerB.runs().assign("planner", "scripted:ms=0,outcome=completed");
        }
        Lease archivist = scenario.workerB.leases().acquire("archivist", Duration.ofHours(1));
        for (int i = 0; i < MORE_DONE; i++) {
            Message m = scenario.workerB.mailbox().send("operator", "archivist", "batch " + i, null);
            scenario.workerB
                    .mailbox()
                    .complete(
                            m.id(),
                            scenario.workerB
                                    .mailbox()
                                    .claim(m.id(), "archivist", Duration.ofMinutes(5))
                                    .token());
        }
        scenario.workerB.leases().release("archivist", archivist.token());
        scenario.workerB.actors().add("contested");
        scenario.workerB.leases().acquire("contested", Duration.ofHours(1));
        for (int i = 0; i < MORE_REFUSALS; i++) { // more refused writes than the feed loads on attach
            try {
                scenario.workerC.leases().acquire("contested", Duration.ofSeconds(5));
                throw new AssertionError("the lease is held");
            } catch (Refusal expected) {
                // refused (actor_lease_held): the window's first journalled, the rest counted (decision 0019)
            }
        }
        vm = fx.shell();
        vm.themeProperty().set(ConsoleTheme.LIGHT);
        MainWindow window = new MainWindow(vm, () -> {});
        scene = new Scene(window.create(), 1320, 820);
        window.install(scene);
        stage.setScene(scene);
        stage.show();
        vm.attach(fx.file());
        vm.pageProperty().set(Page.RUNS);
    }

    @Test
    void runsAndMailboxCountTheDatabaseNotTheCappedPage(FxRobot robot) throws Exception {
        WaitForAsyncUtils.waitForFxEvents();
        int total = 5 + MORE_RUNS; // the scenario's five runs and the new ones
        // the recent page and the two old runs that need an operator: worker-lost, and failed (issue 31, item 18)
        int shown = AdminReader.FINISHED_ROWS_SHOWN + 2;

        assertThat(robot.lookup("#runs-summary").queryAs(Label.class).getText())
                .isEqualTo(total + " assignments (latest " + shown + " shown) \u00b7 1 running \u00b7 2 need action");
        assertThat(robot.lookup("#nav-count-runs").queryAs(Label.class).getText())
                .isEqualTo("2");
        assertThat(robot.lookup("#runs-attention").query().isVisible()).isTrue();
        TableView<?> table = robot.lookup("#assignments-table").queryAs(TableView.class);
        assertThat(table.getItems()).hasSize(shown);
        assertThat(table.getItems().stream()
                        .map(AssignmentRow.class::cast)
                        .filter(AssignmentRow::needsOperator)
                        .map(AssignmentRow::id))
                .as("the old runs needing an operator are never dropped")
                .containsExactlyInAnyOrder(scenario.lostRun.id(), scenario.failedRun.id());

        Path dir = Path.of("target", "screenshots");
        Files.createDirectories(dir);
        WritableImage[] shot = new WritableImage[1];
        robot.interact(() -> shot[0] = scene.snapshot(null));
        ScreenshotTest.write(shot[0], dir.resolve("console-runs-true-counts-light.png"));

        int refusals = 3 + MORE_REFUSALS; // the scenario's three and the new ones
        assertThat(robot.lookup("#nav-count-rejections").queryAs(Label.class).getText())
                .isEqualTo(Integer.toString(refusals));
        for (String id : new String[] {"#nav-rejections", "#nav-runs"}) {
            // what is drawn: a cut-off label draws an ellipsis instead of its text
            List<String> drawn = robot.lookup(id).query().lookupAll(".text").stream()
                    .filter(n -> n instanceof Text)
                    .map(n -> ((Text) n).getText())
                    .toList();
            assertThat(drawn).as(id).isNotEmpty();
            assertThat(drawn)
                    .as(id + " draws its title, count and shortcut whole")
                    .noneMatch(t -> t.contains("\u2026") || t.contains("..."));
        }
        // the count is the database's (the journal's rows and the refusals counted in contention windows,
        // decision 0019), never the page's
        assertThat(vm.rejections().summaryProperty().get()).startsWith(refusals + " refused writes (latest ");
        assertThat(vm.rejections().rows().size()).isLessThan(refusals);

        robot.interact(() -> vm.pageProperty().set(Page.MAILBOX));
        assertThat(robot.lookup("#mailbox-summary").queryAs(Label.class).getText())
                .isEqualTo("1 new \u00b7 1 claimed \u00b7 " + (MORE_DONE + 1) + " done \u00b7 1 dead (latest "
                        + (AdminReader.FINISHED_ROWS_SHOWN + 2) + " of " + (MORE_DONE + 4) + " shown)");
    }
}
