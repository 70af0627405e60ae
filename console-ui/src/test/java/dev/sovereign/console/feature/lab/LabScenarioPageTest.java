package dev.sovereign.console.feature.lab;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sovereign.console.shell.Page;
import dev.sovereign.engine.lab.LabStep;
import dev.sovereign.engine.lab.LabVerdict;
import dev.sovereign.engine.lab.Verdict;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import javafx.collections.ListChangeListener;
import javafx.scene.Node;
import javafx.scene.control.Label;
import javafx.scene.control.ScrollPane;
import javafx.scene.control.TableCell;
import javafx.scene.text.Text;
import javafx.stage.Stage;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;
import org.testfx.util.WaitForAsyncUtils;

/**
 * A one-click scenario from the Lab page: its narrative ticks step by step while it runs (the Timeline
 * shows it live), the verdict appears, and resetting the sandbox leaves a fresh database and no
 * process behind. Also renders the pictures for docs/teaching.md.
 */
@ExtendWith(ApplicationExtension.class)
class LabScenarioPageTest {
    private LabConsole console;

    @Start
    void start(Stage stage) throws Exception {
        console = new LabConsole();
        console.show(stage, 1000);
    }

    @AfterEach
    void tearDown(FxRobot robot) throws Exception {
        console.close(robot);
        console.cleanUp();
    }

    @Test
    void gcPauseRunsFromThePageTickingItsNarrativeAndEndsHeld(FxRobot robot) throws Exception {
        console.openSandboxFromTheMenu(robot);
        List<String> seen = new CopyOnWriteArrayList<>();
        robot.interact(() -> console.vm.lab().steps().addListener((ListChangeListener<LabStep>)
                c -> seen.add(progress(console.vm.lab().steps()))));
        robot.clickOn("gc-pause");
        assertThat(console.vm.lab().selectedScenarioProperty().get().name()).isEqualTo("gc-pause");
        assertThat(robot.lookup("#lab-step-9").tryQuery()).isPresent();

        List<String> ledgerSays = new CopyOnWriteArrayList<>();
        robot.interact(() -> console.vm.lab().workers().addListener((ListChangeListener<LabWorkerItem>) c -> {
            while (c.next()) {
                for (LabWorkerItem w : c.getAddedSubList()) {
                    w.ledgerProperty()
                            .addListener((obs, o, text) ->
                                    ledgerSays.add(w.label() + " [" + w.state().text() + "]: " + text));
                }
            }
        }));
        robot.clickOn("#lab-run");
        // mid-run: B has re-run the job while A is frozen; picture the page and the timeline
        console.await(() -> console.vm.lab().steps().get(5).status() == LabStep.Status.DONE);
        console.screenshot(robot, "lab-scenario-running");
        robot.clickOn("#nav-timeline");
        robot.interact(() -> {
            for (int i = 0; i < 3; i++) {
                console.vm.timeline().zoomIn(); // to the shortest window: a scenario lasts seconds
            }
        });
        console.await(() -> console.vm.timeline().lanes().stream()
                .anyMatch(l -> l.actor()
                        .equals(console.vm.lab().scenarioActorProperty().get())));
        console.screenshot(robot, "lab-timeline-during-gc-pause");
        robot.clickOn("#nav-lab");

        console.await(() -> console.vm.lab().verdictProperty().get() != null);
        assertThat(console.vm.lab().verdictProperty().get().verdict())
                .as(console.describe())
                .isEqualTo(Verdict.HELD);
        assertThat(robot.lookup("#lab-verdict-badge").queryAs(Label.class).getText())
                .isEqualTo("HELD");
        assertThat(console.vm.lab().steps()).allMatch(s -> s.status() == LabStep.Status.DONE);
        // the steps' details in the console's time format, never the engine's ISO instants ("until 2026-…Z")
        for (int step = 1; step <= console.vm.lab().steps().size(); step++) {
            robot.lookup("#lab-step-" + step + "-detail")
                    .tryQueryAs(Label.class)
                    .ifPresent(
                            l -> assertThat(l.getText()).doesNotContainPattern("\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}"));
        }
        assertThat(console.vm.lab().steps().stream().map(LabStep::detail))
                .as("the scenario does tell an instant, in the engine's words")
                .anyMatch(d -> d.matches("(?s).*\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}.*"));
        // it ticked: one step after another, never all at once
        assertThat(seen).containsSubsequence("R........", "DR.......", "DDDDDR...", "DDDDDDDDR", "DDDDDDDDD");
        // frozen, worker A is said to be paused with the token it still believes in; it never "waits" then
        // (whether the console's poll sees B's takeover before A wakes depends on timing: not asserted)
        assertThat(ledgerSays)
                .as(String.join("\n", ledgerSays))
                .anyMatch(t ->
                        t.startsWith("worker A (") && t.contains(" [paused]: paused: still believes it holds token 1"))
                .noneMatch(t -> t.contains(" [paused]: waits"));
        assertThat(console.vm.lab().workers())
                .isNotEmpty()
                .allMatch(LabWorkerItem::isFromScenario)
                .noneMatch(LabWorkerItem::isFaultInjected);
        console.await(() -> console.vm.lab().workers().stream().allMatch(w -> w.state() == LabWorkerItem.State.ENDED));
        console.await(() -> console.vm.rejections().rows().stream()
                .anyMatch(e -> console.vm.lab().scenarioActorProperty().get().equals(e.actor())));
        console.screenshot(robot, "lab-scenario-held");
        // issue 31: a worker's name ("worker A (gc-pause)") and its PID are shown whole, never "11…"; and what the
        // ledger says of it, which changes in the row: a waiting worker's sentence, set as the lab sets it mid-run
        robot.interact(
                () -> console.vm.lab().workers().get(0).setLedger("waits: worker B (gc-pause-1) holds token 3", false));
        WaitForAsyncUtils.waitForFxEvents();
        List<String> cut = new ArrayList<>();
        robot.interact(() -> robot.lookup("#lab-workers .table-cell").queryAll().forEach(n -> {
            if (n instanceof TableCell<?, ?> cell
                    && cell.getTableColumn() != null
                    && List.of("Worker", "PID", "Ledger says")
                            .contains(cell.getTableColumn().getText())
                    && cell.getText() != null
                    && !cell.getText().isEmpty()
                    && cell.lookup(".text") instanceof Text drawn
                    && !cell.getText().equals(drawn.getText())) {
                cut.add(cell.getText() + " shown as " + drawn.getText());
            }
        }));
        assertThat(cut)
                .as("worker names, PIDs and what the ledger says of them cut off")
                .isEmpty();
        robot.clickOn("#nav-timeline");
        String actor = console.vm.lab().scenarioActorProperty().get();
        console.await(() -> console.vm.timeline().lanes().stream()
                .filter(l -> l.actor().equals(actor))
                .flatMap(l -> l.markers().stream())
                .anyMatch(m -> m.event().isRejection()));
        robot.interact(() -> console.vm
                .timeline()
                .selectedProperty()
                .set(console.vm.timeline().lanes().stream()
                        .filter(l -> l.actor().equals(actor))
                        .flatMap(l -> l.markers().stream())
                        .filter(m -> m.event().isRejection())
                        .findFirst()
                        .orElseThrow()));
        console.screenshot(robot, "lab-timeline-after-gc-pause");
        robot.clickOn("#nav-lab");

        // the same lesson with the fence switched off in the workers (issue 31 items 13 and 14): the stale write
        // accepted, the rightful result lost, told plainly and in red; the live panel shows this run only
        String before = console.vm.lab().scenarioActorProperty().get();
        assertThat(console.vm.lab().liveRejectionProperty().get()).contains(before);
        robot.clickOn("#lab-break-fence");
        List<String> liveSaid = new CopyOnWriteArrayList<>();
        robot.interact(
                () -> console.vm.lab().liveRejectionProperty().addListener((obs, o, text) -> liveSaid.add(text)));
        robot.clickOn("#lab-run");
        robot.interact(
                () -> liveSaid.add(console.vm.lab().liveRejectionProperty().get()));
        console.await(() -> !console.vm.lab().runningProperty().get()
                && console.vm.lab().verdictProperty().get() != null
                && console.vm.lab().verdictProperty().get().faultInjected());
        LabVerdict broken = console.vm.lab().verdictProperty().get();
        assertThat(broken.verdict()).as(console.describe()).isEqualTo(Verdict.VIOLATED);
        assertThat(broken.actor()).isNotEqualTo(before);
        assertThat(liveSaid)
                .as("the previous run's refusal never shows during this one")
                .isNotEmpty()
                .noneMatch(t -> t.contains(before));
        assertThat(robot.lookup("#lab-verdict-badge").queryAs(Label.class).getText())
                .isEqualTo("VIOLATED");
        // the page shows the engine's own sentences: the same words `sovereign lab gc-pause --break-fence` prints
        String headline =
                robot.lookup("#lab-verdict-headline").queryAs(Label.class).getText();
        assertThat(headline)
                .isEqualTo(LabSentences.headline(broken))
                .startsWith("The fence was broken: A's stale write was accepted after B's takeover")
                .contains("and B's rightful result was lost")
                .doesNotContain("did not hold");
        for (int step : new int[] {7, 8, 9}) {
            LabStep s = broken.steps().get(step - 1);
            assertThat(s.status()).as(s.detail()).isEqualTo(LabStep.Status.VIOLATED);
            Label detail = robot.lookup("#lab-step-" + step + "-detail").queryAs(Label.class);
            assertThat(detail.getText()).isEqualTo(console.vm.lab().humanize(s.detail()));
            assertThat(detail.getStyleClass()).contains("danger");
            assertThat(robot.lookup("#lab-step-" + step + " .badge")
                            .queryAs(Label.class)
                            .getStyleClass())
                    .as("a stale write accepted is the fence failing, never green")
                    .contains("bad")
                    .doesNotContain("good");
        }
        assertThat(broken.steps().get(6).detail()).contains("stale result was ACCEPTED");
        assertThat(broken.steps().get(7).detail()).startsWith("worker B's result was lost");
        assertThat(broken.steps())
                .extracting(LabStep::detail)
                .as("no raw SQL error reaches the narrative")
                .noneMatch(d -> d.contains("SQLITE") || d.contains("RAISE") || d.contains("SQL"));
        console.await(() -> !console.vm.lab().liveStaleCommitProperty().get().isEmpty());
        assertThat(robot.lookup("#lab-live-stale-commit").queryAs(Label.class).getText())
                .contains("of worker A (" + broken.actor() + ") committed its result at journal #")
                .endsWith("the stale write was accepted.");
        // the picture shows where the story turns: steps 7 and 8 in red, in view
        robot.interact(() -> {
            ScrollPane scroll = robot.lookup("#lab-narrative-scroll").queryAs(ScrollPane.class);
            Node content = scroll.getContent();
            Node step = robot.lookup("#lab-step-6").query();
            double y = content.sceneToLocal(step.localToScene(0, 0)).getY();
            double room = content.getBoundsInLocal().getHeight()
                    - scroll.getViewportBounds().getHeight();
            scroll.setVvalue(room <= 0 ? 0 : Math.min(1, y / room));
        });
        console.screenshot(robot, "lab-scenario-violated");
        robot.clickOn("#lab-break-fence");

        // reset: a brand-new sandbox is attached, the old one is deleted
        Path old = console.vm.attachment().attachedProperty().get();
        robot.clickOn("#lab-reset-sandbox");
        console.await(() -> console.vm.attachment().attachedProperty().get() != null
                && !console.vm.attachment().attachedProperty().get().equals(old)
                && console.vm.ledger().snapshot() != null);
        console.await(() -> !Files.exists(old));
        assertThat(console.vm.lab().workers()).isEmpty();
        assertThat(console.vm.lab().targetIsSandboxProperty().get()).isTrue();
        assertThat(console.vm.pageProperty().get()).isEqualTo(Page.LAB);

        console.close(robot);
        assertThat(console.pids).hasSizeGreaterThanOrEqualTo(2);
        for (long pid : console.pids) {
            assertThat(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false))
                    .as("pid %d", pid)
                    .isFalse();
        }
    }

    /** {@code DDR......}: each step's status as one letter (Done, Violated, Running, Failed, Skipped, . pending). */
    private static String progress(List<LabStep> steps) {
        StringBuilder b = new StringBuilder();
        for (LabStep s : steps) {
            b.append(
                    switch (s.status()) {
                        case DONE -> 'D';
                        case VIOLATED -> 'V';
                        case RUNNING -> 'R';
                        case FAILED -> 'F';
                        case SKIPPED -> 'S';
                        case PENDING -> '.';
                    });
        }
        return b.toString();
    }
}
