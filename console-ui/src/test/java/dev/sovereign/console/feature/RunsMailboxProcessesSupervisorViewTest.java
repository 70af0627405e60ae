package dev.sovereign.console.feature;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sovereign.console.feature.mailbox.MailboxView;
import dev.sovereign.console.feature.processes.ProcessesView;
import dev.sovereign.console.feature.processes.ProcessesViewModel;
import dev.sovereign.console.feature.runs.RunsView;
import dev.sovereign.console.feature.supervisor.SupervisorView;
import dev.sovereign.console.fx.LinkedSentence;
import dev.sovereign.console.shell.ShellViewModel;
import dev.sovereign.console.testing.ConsoleFixture;
import dev.sovereign.console.testing.Scenario;
import dev.sovereign.console.testing.ViewHarness;
import dev.sovereign.engine.Engine;
import dev.sovereign.engine.admin.AssignmentRow;
import dev.sovereign.engine.admin.MessageRow;
import dev.sovereign.engine.admin.ProcessRow;
import dev.sovereign.engine.base.EngineConfig;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javafx.scene.control.Label;
import javafx.scene.control.Labeled;
import javafx.scene.control.Tab;
import javafx.scene.control.TabPane;
import javafx.scene.control.TableView;
import javafx.stage.Stage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;
import org.testfx.util.WaitForAsyncUtils;

/** The runs, mailbox, processes and supervisor views, each on its own tab over one scenario. */
@ExtendWith(ApplicationExtension.class)
class RunsMailboxProcessesSupervisorViewTest {
    @RegisterExtension
    final ConsoleFixture fx = new ConsoleFixture();

    private ShellViewModel vm;
    private Scenario scenario;
    private TabPane tabs;

    @Start
    void start(Stage stage) {
        scenario = Scenario.build(fx);
        vm = fx.attachedShell();
        tabs = new TabPane(
                new Tab("runs", new RunsView(vm.runs(), vm.formats()).create()),
                new Tab("mailbox", new MailboxView(vm.mailbox(), vm.formats()).create()),
                new Tab("processes", new ProcessesView(vm.processes(), vm.formats()).create()),
                new Tab("supervisor", new SupervisorView(vm.supervisor()).create()));
        ViewHarness.show(stage, tabs);
    }

    private void showTab(FxRobot robot, int i) {
        robot.interact(() -> tabs.getSelectionModel().select(i));
        WaitForAsyncUtils.waitForFxEvents();
    }

    @Test
    void aWorkerLostRunIsFlaggedAndExplained(FxRobot robot) {
        showTab(robot, 0);
        String lost = scenario.lostRun.id();
        assertThat(robot.lookup("#assignments-table").queryAs(TableView.class).getItems())
                .hasSize(5);
        assertThat(robot.lookup("#worker-lost-" + lost).query().isVisible()).isTrue();
        assertThat(robot.lookup("#worker-lost-" + scenario.completedRun.id())
                        .query()
                        .isVisible())
                .isFalse();
        assertThat(robot.lookup("#assignment-" + lost).query().getStyleClass()).contains("worker-lost");
        assertThat(robot.lookup("#runs-attention").query().isVisible()).isTrue();

        robot.clickOn("#assignment-" + lost);
        WaitForAsyncUtils.waitForFxEvents();

        assertThat(robot.lookup("#attempts-table").queryAs(TableView.class).getItems())
                .hasSize(1);
        assertThat(robot.lookup("#run-detail").queryAs(LinkedSentence.class).getText())
                .contains("failed (worker_lost)")
                .contains("outcome is unknown")
                .contains("Needs an operator");
    }

    @Test
    void aReceiptNamesTheOutputFolderOfItsOwnAttempt(FxRobot robot) {
        showTab(robot, 0);
        String done = scenario.completedRun.id();

        robot.clickOn("#assignment-" + done);
        WaitForAsyncUtils.waitForFxEvents();

        assertThat(robot.lookup("#run-detail").queryAs(LinkedSentence.class).getText())
                .contains("Output folder (this attempt's own): ")
                .containsPattern("runs/" + done + "/att_[0-9a-f]+/output");
    }

    @Test
    void theMailboxFiltersByStateAndShowsTheClaim(FxRobot robot) throws Exception {
        showTab(robot, 1);
        TableView<?> table = robot.lookup("#messages-table").queryAs(TableView.class);
        assertThat(table.getItems()).hasSize(4);

        robot.clickOn("#mailbox-filter-claimed");
        WaitForAsyncUtils.waitForFxEvents();

        assertThat(table.getItems()).hasSize(1);
        // Cells are laid out on the next pulse: wait for the claimer's cell (a link to its process), with a deadline.
        WaitForAsyncUtils.waitFor(
                5,
                TimeUnit.SECONDS,
                () -> robot.lookup(".table-link").queryAll().stream()
                        .anyMatch(n -> n instanceof Labeled l && "worker 7102".equals(l.getText())));
        assertThat(robot.lookup("#mailbox-summary").queryAs(Label.class).getText())
                .isEqualTo("1 new \u00b7 1 claimed \u00b7 1 done \u00b7 1 dead");
    }

    @Test
    void anAcknowledgedWorkerLostRunIsNoLongerRed(FxRobot robot) {
        showTab(robot, 0);
        String lost = scenario.lostRun.id();
        assertThat(robot.lookup("#worker-lost-" + lost).query().getStyleClass()).contains("bad");
        assertThat(robot.lookup("#run-state-" + lost).query().getStyleClass()).contains("bad");

        scenario.workerB.runs().acknowledge(lost);
        robot.interact(vm::pollNow);

        Label chip = robot.lookup("#worker-lost-" + lost).queryAs(Label.class);
        assertThat(chip.getText()).isEqualTo("worker lost \u00b7 acknowledged");
        assertThat(chip.getStyleClass()).contains("quiet").doesNotContain("bad");
        assertThat(robot.lookup("#run-state-" + lost).query().getStyleClass())
                .contains("quiet")
                .doesNotContain("bad");
        assertThat(robot.lookup("#assignment-" + lost).query().getStyleClass()).doesNotContain("worker-lost");
    }

    @Test
    void processesAreLiveStaleOrStoppedByTheirOwnHeartbeat(FxRobot robot) {
        showTab(robot, 2);
        String a = scenario.workerA.processIdentity();
        String b = scenario.workerB.processIdentity();
        assertThat(robot.lookup("#process-state-" + a).queryAs(Label.class).getText())
                .isEqualTo("stale");
        assertThat(robot.lookup("#process-state-" + b).queryAs(Label.class).getText())
                .isEqualTo("live");
        assertThat(robot.lookup("#processes-summary").queryAs(Label.class).getText())
                .isEqualTo("2 live \u00b7 2 stale \u00b7 2 stopped (hidden)");

        robot.interact(() -> vm.tick(fx.clock.millis() + 3_001));

        assertThat(robot.lookup("#process-state-" + b).queryAs(Label.class).getText())
                .isEqualTo("stale");
    }

    @Test
    void aProcessWhoseIdentityWasClaimedWithProcessSaysByWhom(FxRobot robot) {
        showTab(robot, 2);
        String b = scenario.workerB.processIdentity();
        try (Engine claimer = Engine.open(EngineConfig.forDatabase(fx.file())
                .clock(fx.clock)
                .heartbeat(false)
                .processKind("cli")
                .processLabel("sovereign assign")
                .actAs(b)
                .build())) {
            claimer.runs().assign("operator", "scripted:ms=0"); // a write: the claim is journalled with it
        }
        robot.interact(vm::pollNow);
        WaitForAsyncUtils.waitForFxEvents();

        TableView<?> table = robot.lookup("#processes-table").queryAs(TableView.class);
        assertThat(table.getColumns()).anySatisfy(c -> assertThat(c.getText()).isEqualTo("Claimed by (--process)"));
        assertThat(table.getItems()).anySatisfy(item -> {
            ProcessRow row = (ProcessRow) item;
            assertThat(row.process().identity()).isEqualTo(b);
            assertThat(row.lastClaimedBy())
                    .startsWith("OS user " + System.getProperty("user.name") + " on host ")
                    .contains("sovereign assign");
        });
    }

    @Test
    void theSupervisorPageShowsTheLastTickReport(FxRobot robot) {
        showTab(robot, 3);
        assertThat(robot.lookup("#supervisor-summary").queryAs(Label.class).getText())
                .startsWith("Last tick at ")
                .contains("supervisor 7110");
        assertThat(robot.lookup("#tile-attempts-recovered")
                        .lookup(".tile-number")
                        .queryAs(Label.class)
                        .getText())
                .isEqualTo("1");
        assertThat(robot.lookup("#supervisor-report")
                        .queryAs(LinkedSentence.class)
                        .getText())
                .contains("as failed / worker_lost");
    }

    private static String text(FxRobot robot, String id) {
        return robot.lookup(id).queryAs(Labeled.class).getText();
    }

    @Test
    void runsFilterByStateWithTheDatabasesCountsAndSortByAnyHeader(FxRobot robot) {
        showTab(robot, 0);
        @SuppressWarnings("unchecked")
        TableView<AssignmentRow> table = robot.lookup("#assignments-table").queryAs(TableView.class);
        assertThat(text(robot, "#runs-filter-all")).isEqualTo("All 5");
        assertThat(text(robot, "#runs-filter-created")).isEqualTo("Created 1");
        assertThat(text(robot, "#runs-filter-running")).isEqualTo("Running 1");
        assertThat(text(robot, "#runs-filter-completed")).isEqualTo("Completed 1");
        assertThat(text(robot, "#runs-filter-blocked")).isEqualTo("Blocked 0");
        assertThat(text(robot, "#runs-filter-failed")).isEqualTo("Failed 2");
        // worker-lost or not, a failed run nobody retried or acknowledged needs action (issue 31, item 18)
        assertThat(text(robot, "#runs-filter-needs_action")).isEqualTo("Needs action 2");

        robot.clickOn("#runs-filter-failed");
        assertThat(table.getItems())
                .extracting(AssignmentRow::id)
                .containsExactlyInAnyOrder(scenario.lostRun.id(), scenario.failedRun.id());
        robot.clickOn("#runs-filter-needs_action");
        assertThat(table.getItems())
                .extracting(AssignmentRow::id)
                .containsExactlyInAnyOrder(scenario.lostRun.id(), scenario.failedRun.id());

        robot.clickOn("#runs-filter-all");
        robot.clickOn(robot.lookup(".column-header .label")
                .match(n -> n instanceof Label l && l.getText().equals("Actor"))
                .queryAs(Label.class));
        assertThat(table.getItems())
                .extracting(AssignmentRow::actor)
                .isSortedAccordingTo(String::compareTo)
                .hasSize(5);
    }

    @Test
    void mailboxFilterButtonsCarryTheDatabasesCounts(FxRobot robot) {
        showTab(robot, 1);
        assertThat(text(robot, "#mailbox-filter-all")).isEqualTo("All 4");
        assertThat(text(robot, "#mailbox-filter-new")).isEqualTo("New 1");
        assertThat(text(robot, "#mailbox-filter-dead")).isEqualTo("Dead 1");
        robot.clickOn("#mailbox-filter-claimed");
        assertThat(robot.lookup("#messages-table").queryAs(TableView.class).getItems())
                .singleElement()
                .isEqualTo(vm.mailbox().rows().get(0));
        assertThat(vm.mailbox().rows().get(0).id()).isEqualTo(scenario.claimedMessage.id());
    }

    @Test
    void theSearchFindsAnAssignmentAMessageAndAProcessOnTheirPages(FxRobot robot) {
        showTab(robot, 0);
        robot.interact(
                () -> vm.search().queryProperty().set(scenario.runningRun.id().substring(0, 10)));
        assertThat(robot.lookup("#assignments-table").queryAs(TableView.class).getItems())
                .hasSize(1);
        assertThat(vm.runs().assignments()).extracting(AssignmentRow::id).containsExactly(scenario.runningRun.id());
        assertThat(vm.search().searchSummaryProperty().get()).isEqualTo("Found in Runs 1.");

        robot.interact(() -> vm.search().queryProperty().set("rotate the KEYS"));
        assertThat(vm.mailbox().rows()).extracting(MessageRow::id).containsExactly(scenario.claimedMessage.id());

        robot.interact(() -> vm.search().queryProperty().set("supervisor 7110"));
        assertThat(vm.processes().rows())
                .singleElement()
                .extracting(r -> r.process().label())
                .isEqualTo("supervisor 7110");
        assertThat(vm.search().searchSummaryProperty().get()).isEqualTo("Found in Processes 1.");

        robot.interact(() -> vm.search().queryProperty().set("no such thing"));
        assertThat(vm.search().searchSummaryProperty().get()).isEqualTo("Nothing matches \u201cno such thing\u201d.");
        assertThat(vm.runs().assignments()).isEmpty();
    }

    @Test
    void stoppedProcessesAreHiddenUntilTheToggleShowsThem(FxRobot robot) {
        showTab(robot, 2);
        TableView<?> table = robot.lookup("#processes-table").queryAs(TableView.class);
        assertThat(table.getItems())
                .hasSize(4)
                .noneSatisfy(item -> assertThat(((ProcessRow) item).stoppedAt()).isNotNull());
        assertThat(text(robot, "#processes-show-stopped")).isEqualTo("Show stopped (2)");

        robot.clickOn("#processes-show-stopped");

        assertThat(table.getItems()).hasSize(6);
        assertThat(robot.lookup("#processes-summary").queryAs(Label.class).getText())
                .isEqualTo("2 live \u00b7 2 stale \u00b7 2 stopped");
    }

    @Test
    void aCliIdentityThatNeverBeatSaysNoHeartbeatInsteadOfStale(FxRobot robot) {
        showTab(robot, 2);
        // what 'sovereign lease acquire' leaves: a durable CLI identity that holds a lease and never beats
        try (Engine cli = Engine.open(EngineConfig.forDatabase(fx.file())
                .clock(fx.clock)
                .heartbeat(false)
                .processKind("cli")
                .processLabel("sovereign lease acquire")
                .actAs("proc_durable-cli")
                .build())) {
            cli.leases().acquire("archivist", Duration.ofMinutes(5));
        }
        fx.clock.advance(Duration.ofSeconds(30));
        robot.interact(vm::pollNow);
        robot.interact(() -> vm.tick(fx.clock.millis()));
        WaitForAsyncUtils.waitForFxEvents();

        assertThat(robot.lookup("#process-state-proc_durable-cli")
                        .queryAs(Label.class)
                        .getText())
                .isEqualTo("no heartbeat (CLI)");
        ProcessRow row = vm.processes().rows().stream()
                .filter(r -> r.process().identity().equals("proc_durable-cli"))
                .findFirst()
                .orElseThrow();
        assertThat(ProcessesViewModel.beatsEvery(row)).isEqualTo("\u2014");
        assertThat(robot.lookup("#processes-summary").queryAs(Label.class).getText())
                .contains("1 CLI without heartbeat");
    }

    @Test
    void aSelectedRunShowsItsHistoryFromTheJournalOldestFirst(FxRobot robot) {
        showTab(robot, 0);
        String lost = scenario.lostRun.id();
        robot.interact(() -> vm.runs()
                .selectedProperty()
                .set(vm.runs().assignments().stream()
                        .filter(a -> a.id().equals(lost))
                        .findFirst()
                        .orElseThrow()));

        List<String> lines = List.of(vm.runs().historyProperty().get().split("\n"));
        assertThat(lines).hasSizeGreaterThanOrEqualTo(3);
        // #seq in order: created, its attempt started, the refused late write, the recovery
        List<Long> seqs = lines.stream()
                .map(l -> Long.parseLong(l.replaceFirst("^\\S+  #(\\d+) .*$", "$1")))
                .toList();
        assertThat(seqs).isSorted().doesNotHaveDuplicates();
        assertThat(lines).anySatisfy(l -> assertThat(l).contains("presented token 1 for assignment " + lost));
        assertThat(lines).anySatisfy(l -> assertThat(l).containsIgnoringCase("recover"));
        assertThat(robot.lookup("#run-history").queryAs(LinkedSentence.class).getText())
                .isEqualTo(vm.runs().historyProperty().get());
    }
}
