package dev.sovereign.console.actions;

import javafx.beans.property.ReadOnlyBooleanProperty;
import javafx.beans.property.ReadOnlyBooleanWrapper;
import javafx.beans.property.ReadOnlyObjectProperty;
import javafx.beans.property.ReadOnlyObjectWrapper;
import javafx.beans.property.ReadOnlyStringProperty;
import javafx.beans.property.ReadOnlyStringWrapper;

/**
 * How the last operator action of one feature went, for its view to show without blocking anything:
 * busy while it runs (a progress indicator), then one sentence saying what happened or why it was
 * refused. UI-thread confined.
 */
public final class ActionStatus {
    /** What the sentence is about. */
    public enum Tone {
        NONE,
        WORKING,
        DONE,
        REFUSED,
        FAILED
    }

    private final ReadOnlyBooleanWrapper busy = new ReadOnlyBooleanWrapper(this, "busy");
    private final ReadOnlyStringWrapper message = new ReadOnlyStringWrapper(this, "message", "");
    private final ReadOnlyObjectWrapper<Tone> tone = new ReadOnlyObjectWrapper<>(this, "tone", Tone.NONE);
    private int running;

    void working(String sentence) {
        running++;
        busy.set(true);
        set(Tone.WORKING, sentence);
    }

    void finished(Tone outcome, String sentence) {
        running = Math.max(0, running - 1);
        busy.set(running > 0);
        set(outcome, sentence);
    }

    /**
     * Forgets everything, also an action still in flight (its result is dropped by the desk): the
     * database it was about is no longer attached.
     */
    void forget() {
        running = 0;
        busy.set(false);
        set(Tone.NONE, "");
    }

    /** Forgets the last sentence (the view's close button). */
    public void clear() {
        if (!busy.get()) {
            set(Tone.NONE, "");
        }
    }

    private void set(Tone t, String sentence) {
        tone.set(t);
        message.set(sentence);
    }

    public ReadOnlyBooleanProperty busyProperty() {
        return busy.getReadOnlyProperty();
    }

    public boolean isBusy() {
        return busy.get();
    }

    public ReadOnlyStringProperty messageProperty() {
        return message.getReadOnlyProperty();
    }

    public String message() {
        return message.get();
    }

    public ReadOnlyObjectProperty<Tone> toneProperty() {
        return tone.getReadOnlyProperty();
    }

    public Tone tone() {
        return tone.get();
    }
}
