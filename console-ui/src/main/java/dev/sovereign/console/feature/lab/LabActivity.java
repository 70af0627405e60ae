package dev.sovereign.console.feature.lab;

import dev.sovereign.console.fx.UiExecutor;
import dev.sovereign.engine.base.LedgerLocation;
import java.util.function.Consumer;
import javafx.beans.property.IntegerProperty;
import javafx.beans.property.ReadOnlyBooleanProperty;
import javafx.beans.property.ReadOnlyBooleanWrapper;
import javafx.beans.property.ReadOnlyStringProperty;
import javafx.beans.property.ReadOnlyStringWrapper;
import javafx.beans.property.SimpleIntegerProperty;

/**
 * The Lab page's one message line and its busy spinner: every lab action runs its work through the
 * {@link UiExecutor}'s background threads, says what it is doing meanwhile, and says what it did (or
 * why it failed) when it is back on the UI thread. UI-thread confined.
 */
final class LabActivity {
    /** Background work that may fail. */
    @FunctionalInterface
    interface Work<T> {
        T call() throws Exception;
    }

    private final UiExecutor ui;
    private final IntegerProperty inFlight = new SimpleIntegerProperty(this, "inFlight");
    private final ReadOnlyBooleanWrapper busy = new ReadOnlyBooleanWrapper(this, "busy");
    private final ReadOnlyStringWrapper message = new ReadOnlyStringWrapper(this, "message", "");
    private final ReadOnlyBooleanWrapper messageIsProblem = new ReadOnlyBooleanWrapper(this, "messageIsProblem");

    LabActivity(UiExecutor ui) {
        this.ui = ui;
        busy.bind(inFlight.greaterThan(0));
    }

    <T> void act(String what, Work<T> work, Consumer<T> then) {
        act(what, work, then, () -> {});
    }

    /** Says {@code what…}, runs {@code work} in the background, then {@code then} (or {@code onFailure}). */
    <T> void act(String what, Work<T> work, Consumer<T> then, Runnable onFailure) {
        inFlight.set(inFlight.get() + 1);
        message.set(what + "\u2026");
        messageIsProblem.set(false);
        ui.background(
                work::call,
                r -> {
                    inFlight.set(inFlight.get() - 1);
                    then.accept(r);
                },
                e -> {
                    inFlight.set(inFlight.get() - 1);
                    onFailure.run();
                    problem(LabSentences.failed(what, e));
                });
    }

    /** Every sentence passes through here with the secrets of any JDBC URL in it removed (a worker's words too). */
    void say(String text) {
        message.set(LedgerLocation.redactUrlsIn(text));
        messageIsProblem.set(false);
    }

    void problem(String text) {
        message.set(LedgerLocation.redactUrlsIn(text));
        messageIsProblem.set(true);
    }

    ReadOnlyBooleanProperty busyProperty() {
        return busy.getReadOnlyProperty();
    }

    ReadOnlyStringProperty messageProperty() {
        return message.getReadOnlyProperty();
    }

    ReadOnlyBooleanProperty messageIsProblemProperty() {
        return messageIsProblem.getReadOnlyProperty();
    }
}
