package dev.sovereign.console.feature.lab;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sovereign.console.shell.Page;
import dev.sovereign.engine.admin.JournalEntry;
import dev.sovereign.engine.admin.LeaseRow;
import dev.sovereign.engine.lab.Lab;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import javafx.scene.control.Button;
import javafx.scene.control.ChoiceBox;
import javafx.scene.control.Label;
import javafx.scene.control.Labeled;
import javafx.scene.control.TableView;
import javafx.stage.Stage;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;

/**
 * The Lab page by hand, headless, with real worker processes: two workers for one actor, a job, the
 * holder paused mid-job, the other taking over in the Leases view, the holder resumed and its late
 * write appearing in the Rejections view; then the console closes and no process it started is left.
 */
@ExtendWith(ApplicationExtension.class)
class LabPageTest {
    private LabConsole console;

    @Start
    void start(Stage stage) throws Exception {
        console = new LabConsole();
        console.show(stage);
    }

    @AfterEach
    void tearDown(FxRobot robot) throws Exception {
        console.close(robot);
        console.cleanUp();
    }

    @Test
    void attachingAnotherDatabaseStopsTheWorkersStartedAgainstTheOldOne(FxRobot robot) throws Exception {
        Path other = Lab.createSandbox(console.dir.resolve("elsewhere"));
        console.openSandboxFromTheMenu(robot);
        // watching a database writes nothing: no lab process until the first lab action
        assertThat(console.vm.ledger().snapshot().processes())
                .noneMatch(p -> "console lab".equals(p.process().label()));
        robot.clickOn("#lab-start-worker");
        console.await(() -> console.vm.lab().workers().size() == 1
                && console.worker("manual worker A").hostingProperty().get());
        long pid = console.worker("manual worker A").pid();

        robot.interact(() -> console.vm.attach(other));

        console.await(() -> console.vm.attachment().attachedProperty().get() != null
                && console.vm
                        .attachment()
                        .attachedProperty()
                        .get()
                        .equals(other.toAbsolutePath().normalize()));
        assertThat(console.vm.lab().workers()).isEmpty();
        assertThat(console.vm.lab().targetIsSandboxProperty().get()).isFalse();
        assertThat(robot.lookup("#lab-not-sandbox").queryAs(Label.class).isVisible())
                .isTrue();
        ProcessHandle worker = ProcessHandle.of(pid).orElse(null);
        if (worker != null) {
            worker.onExit().get(30, TimeUnit.SECONDS);
        }
    }

    @Test
    @SuppressWarnings("unchecked")
    void aPausedHolderIsTakenOverInTheLeasesViewAndItsLateWriteShowsAsARejection(FxRobot robot) throws Exception {
        console.openSandboxFromTheMenu(robot);
        assertThat(robot.lookup("#lab-target-kind").queryAs(Label.class).getText())
                .isEqualTo("lab sandbox");
        robot.interact(() -> robot.lookup("#lab-ttl").queryAs(ChoiceBox.class).setValue(Duration.ofSeconds(1)));

        // two workers for the same actor: one hosts it, the other waits
        robot.clickOn("#lab-start-worker");
        console.await(() -> console.vm.lab().workers().size() == 1
                && console.worker("manual worker A").hostingProperty().get());
        robot.clickOn("#lab-start-worker");
        console.await(() -> console.vm.lab().workers().size() == 2
                && console.worker("manual worker B").ledgerProperty().get().startsWith("waits"));
        LabWorkerItem a = console.worker("manual worker A");
        LabWorkerItem b = console.worker("manual worker B");
        assertThat(robot.lookup("#lab-state-manual-worker-A")
                        .queryAs(Label.class)
                        .getText())
                .isEqualTo("running");

        // a job for the actor; A runs it; freeze A in the middle of it
        robot.clickOn("#lab-give-job");
        console.await(() -> console.vm.ledger().snapshot().attempts().stream()
                .anyMatch(t ->
                        t.process().identity().equals(a.identity()) && t.state().equals("ACTIVE")));
        robot.clickOn("#lab-pause-manual-worker-A");
        console.await(() -> a.state() == LabWorkerItem.State.PAUSED);
        assertThat(robot.lookup("#lab-pause-manual-worker-A")
                        .queryAs(Button.class)
                        .getText())
                .isEqualTo("Resume");
        assertThat(robot.lookup("#lab-state-manual-worker-A")
                        .queryAs(Label.class)
                        .getText())
                .isEqualTo("paused");

        // the Leases view shows B taking operator over with a greater token
        long aToken = console.vm.ledger().snapshot().leases().stream()
                .filter(l -> l.actor().equals("operator"))
                .findFirst()
                .orElseThrow()
                .token();
        robot.clickOn("#nav-leases");
        console.await(() -> console.vm.leases().rows().stream()
                .anyMatch(r -> r.actor().equals("operator")
                        && !r.row().isFree()
                        && r.row().holder().identity().equals(b.identity())));
        LeaseRow taken = console.vm.leases().rows().stream()
                .filter(r -> r.actor().equals("operator"))
                .findFirst()
                .orElseThrow()
                .row();
        assertThat(taken.token()).isGreaterThan(aToken);
        console.await(() -> a.ledgerProperty().get().contains("the ledger says"));
        assertThat(a.ledgerProperty().get())
                .as("frozen, it still believes its old token; it waits for nobody")
                .isEqualTo("paused: still believes it holds token " + aToken + "; the ledger says manual worker B"
                        + " holds token " + taken.token());
        TableView<?> leases = robot.lookup("#leases-table").queryAs(TableView.class);
        assertThat(robot.from(leases)
                        .lookup((Labeled l) -> "manual worker B".equals(l.getText()))
                        .tryQuery())
                .as("the holder's name (a link to its process)")
                .isPresent();
        assertThat(robot.lookup("#state-operator").queryAs(Label.class).getText())
                .isIn("live", "expiring");
        console.screenshot(robot, "lab-leases-takeover");

        // back on the Lab page, wake A: its late write is refused, and the Rejections view shows it
        robot.clickOn("#nav-lab");
        robot.clickOn("#lab-pause-manual-worker-A");
        console.await(() -> a.state() == LabWorkerItem.State.RUNNING);
        robot.clickOn("#nav-rejections");
        console.await(() -> console.vm.rejections().rows().stream()
                .anyMatch(e -> e.process() != null && e.process().identity().equals(a.identity())));
        JournalEntry refused = console.vm.rejections().rows().stream()
                .filter(e -> e.process().identity().equals(a.identity()))
                .findFirst()
                .orElseThrow();
        assertThat(refused.presentedToken()).isNotNull();
        assertThat(refused.currentToken() == null || refused.currentToken() > refused.presentedToken())
                .isTrue();
        assertThat(robot.lookup("#rejections-table").queryAs(TableView.class).getItems())
                .isNotEmpty();
        console.screenshot(robot, "lab-rejections-late-write");
        robot.clickOn("#nav-lab");
        console.screenshot(robot, "lab-workers");
        assertThat(console.vm.pageProperty().get()).isEqualTo(Page.LAB);

        // the console closes: every process the page started is gone
        console.close(robot);
        assertThat(console.pids).hasSize(2);
        for (long pid : console.pids) {
            assertThat(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false))
                    .as("pid %d", pid)
                    .isFalse();
        }
    }
}
