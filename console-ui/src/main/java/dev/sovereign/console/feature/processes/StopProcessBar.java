package dev.sovereign.console.feature.processes;

import atlantafx.base.theme.Styles;
import dev.sovereign.console.fx.Ui;
import javafx.beans.binding.Bindings;
import javafx.geometry.Pos;
import javafx.scene.control.Button;
import javafx.scene.control.Label;
import javafx.scene.control.Tooltip;
import javafx.scene.layout.HBox;
import javafx.scene.layout.Priority;
import javafx.scene.layout.Region;
import javafx.scene.layout.VBox;

/**
 * "Stop process…", its question in the page (never a modal dialog) and the outcome in one sentence. Ids:
 * {@code <id>-stop}, {@code <id>-stop-question}, {@code <id>-stop-confirm}, {@code <id>-stop-cancel},
 * {@code <id>-stop-action-message}.
 */
public final class StopProcessBar {
    private StopProcessBar() {}

    /** The button and the outcome, on one row. */
    public static HBox button(String id, StopProcessAction action) {
        Button stop = Ui.button(id + "-stop", "Stop process\u2026");
        stop.setTooltip(new Tooltip("Mark the selected process stopped (journalled); it releases nothing: its leases"
                + " expire and the supervisor recovers its runs. Asks first."));
        stop.disableProperty().bind(action.canStopProperty().not());
        stop.setOnAction(e -> action.ask());
        HBox bar = new HBox(8, stop, Ui.actionFeedback(id + "-stop-action", action.status()));
        bar.setAlignment(Pos.CENTER_LEFT);
        bar.getStyleClass().add("action-bar");
        HBox.setHgrow(bar.getChildren().get(1), Priority.ALWAYS);
        return bar;
    }

    /** The question, shown while one is pending. */
    public static HBox question(String id, StopProcessAction action) {
        Label question = new Label();
        question.setId(id + "-stop-question");
        question.setWrapText(true);
        question.setMinWidth(0);
        question.setMinHeight(Region.USE_PREF_SIZE);
        question.setMaxWidth(Double.MAX_VALUE);
        question.textProperty()
                .bind(Bindings.createStringBinding(
                        () -> action.pendingProperty().get() == null
                                ? ""
                                : action.pendingProperty().get().text(),
                        action.pendingProperty()));
        Button confirm = Ui.button(id + "-stop-confirm", "Stop process");
        confirm.getStyleClass().add(Styles.DANGER);
        confirm.setOnAction(e -> action.confirm());
        Button cancel = Ui.button(id + "-stop-cancel", "Cancel");
        cancel.setOnAction(e -> action.cancel());
        VBox buttons = new VBox(6, confirm, cancel);
        HBox.setHgrow(question, Priority.ALWAYS);
        HBox bar = new HBox(10, question, buttons);
        bar.setId(id + "-stop-confirm-bar");
        bar.setAlignment(Pos.CENTER_LEFT);
        bar.getStyleClass().add("attention");
        bar.visibleProperty().bind(action.pendingProperty().isNotNull());
        bar.managedProperty().bind(bar.visibleProperty());
        return bar;
    }
}
