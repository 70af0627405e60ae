package dev.sovereign.console.feature.lab;

import atlantafx.base.theme.Styles;
import java.time.Duration;
import javafx.beans.InvalidationListener;
import javafx.geometry.Pos;
import javafx.scene.Node;
import javafx.scene.control.Button;
import javafx.scene.control.Label;
import javafx.scene.control.MenuButton;
import javafx.scene.control.MenuItem;
import javafx.scene.control.TableCell;
import javafx.scene.layout.HBox;

/**
 * Pause/resume, kill, skew, stop for one worker in the Lab page's table; disabled while an action on
 * it is in flight and for ended or starting ones; a scenario's worker shows "driven by the scenario"
 * instead. The ids name the row: {@code lab-pause-worker-A}.
 */
final class LabWorkerControlsCell extends TableCell<LabWorkerItem, LabWorkerItem> {
    private final Button pause = new Button();
    private final Button kill = new Button("Kill");
    private final MenuButton skew = new MenuButton("Skew");
    private final Button stop = new Button("Stop");
    private final HBox box = new HBox(6, pause, kill, skew, stop);
    private LabWorkerItem bound;
    private final InvalidationListener onChange = o -> refresh();

    LabWorkerControlsCell(LabViewModel vm) {
        box.setAlignment(Pos.CENTER_LEFT);
        for (Node n : box.getChildren()) {
            n.getStyleClass().add(Styles.SMALL);
        }
        kill.getStyleClass().add(Styles.DANGER);
        pause.setOnAction(e -> {
            if (bound != null) {
                if (bound.state() == LabWorkerItem.State.PAUSED) {
                    vm.resume(bound);
                } else {
                    vm.pause(bound);
                }
            }
        });
        kill.setOnAction(e -> {
            if (bound != null) {
                vm.kill(bound);
            }
        });
        stop.setOnAction(e -> {
            if (bound != null) {
                vm.stop(bound);
            }
        });
        for (Duration d : LabViewModel.SKEW_CHOICES) {
            MenuItem i = new MenuItem(LabSentences.skewChoice(d));
            i.setOnAction(e -> {
                if (bound != null) {
                    vm.skew(bound, d);
                }
            });
            skew.getItems().add(i);
        }
    }

    @Override
    protected void updateItem(LabWorkerItem item, boolean empty) {
        super.updateItem(item, empty);
        if (bound != null) {
            bound.stateProperty().removeListener(onChange);
            bound.busyProperty().removeListener(onChange);
            bound = null;
        }
        if (empty || item == null) {
            setGraphic(null);
            return;
        }
        bound = item;
        String id = LabWorkersSection.idOf(item);
        pause.setId("lab-pause-" + id);
        kill.setId("lab-kill-" + id);
        skew.setId("lab-skew-" + id);
        stop.setId("lab-stop-" + id);
        item.stateProperty().addListener(onChange);
        item.busyProperty().addListener(onChange);
        refresh();
        setGraphic(item.isFromScenario() ? scenarioNote() : box);
    }

    private Label scenarioNote() {
        Label l = new Label("driven by the scenario");
        l.getStyleClass().add(Styles.TEXT_MUTED);
        return l;
    }

    private void refresh() {
        if (bound == null) {
            return;
        }
        LabWorkerItem.State s = bound.state();
        boolean off = bound.busyProperty().get() || s == LabWorkerItem.State.ENDED || s == LabWorkerItem.State.STARTING;
        pause.setText(LabSentences.pauseButton(s));
        pause.setDisable(off);
        kill.setDisable(off);
        skew.setDisable(off);
        stop.setDisable(off);
    }
}
