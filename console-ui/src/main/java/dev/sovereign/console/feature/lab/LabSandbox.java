package dev.sovereign.console.feature.lab;

import dev.sovereign.console.fx.UiExecutor;
import dev.sovereign.engine.lab.Lab;
import java.nio.file.Path;
import java.util.function.Consumer;
import javafx.beans.property.ReadOnlyBooleanProperty;
import javafx.beans.property.ReadOnlyBooleanWrapper;
import javafx.beans.property.ReadOnlyObjectProperty;

/**
 * The lab sandbox: a throw-away database in the sandbox folder that the console attaches like any
 * other file. Knows where sandboxes are made, whether the attached database is one, opens the latest
 * (or a new) one and deletes an old one. Resetting it spans the whole page, so {@link LabViewModel}
 * does that with the parts this class offers. UI-thread confined.
 */
final class LabSandbox {
    private final ReadOnlyObjectProperty<Path> target;
    private final Consumer<Path> attach;
    private final UiExecutor ui;
    private final LabActivity activity;
    private final ReadOnlyBooleanWrapper targetIsSandbox = new ReadOnlyBooleanWrapper(this, "targetIsSandbox");
    private Path directory;

    LabSandbox(
            ReadOnlyObjectProperty<Path> target,
            Consumer<Path> attach,
            UiExecutor ui,
            LabActivity activity,
            Path directory) {
        this.target = target;
        this.attach = attach;
        this.ui = ui;
        this.activity = activity;
        this.directory = directory;
        targetIsSandbox.set(isSandbox(target.get()));
    }

    /** Where sandboxes are made: the lab's one folder per user ({@link Lab#defaultSandboxFolder()}). */
    static Path defaultDirectory() {
        return Lab.defaultSandboxFolder();
    }

    void useDirectory(Path dir) {
        this.directory = dir;
        targetChanged();
    }

    Path directory() {
        return directory;
    }

    /** Whether {@code p} is a lab sandbox in this page's sandbox folder. */
    boolean isSandbox(Path p) {
        return p != null
                && Lab.isSandbox(p)
                && directory != null
                && p.toAbsolutePath()
                        .normalize()
                        .startsWith(directory.toAbsolutePath().normalize());
    }

    /** Re-reads whether the attached database is a sandbox. */
    void targetChanged() {
        targetIsSandbox.set(isSandbox(target.get()));
    }

    /** Attaches the most recent lab sandbox, or a new one when there is none. */
    void open() {
        Path dir = directory;
        activity.act(
                "Opening the lab sandbox", () -> Lab.latestSandbox(dir).orElseGet(() -> Lab.createSandbox(dir)), p -> {
                    attach.accept(p);
                    activity.say(LabSentences.sandboxOpened(p));
                });
    }

    /** Deletes a sandbox that is no longer attached, in the background. */
    void deleteInBackground(Path old) {
        ui.background(
                () -> {
                    Lab.deleteSandbox(old);
                    return null;
                },
                x -> {},
                x -> {});
    }

    ReadOnlyBooleanProperty targetIsSandboxProperty() {
        return targetIsSandbox.getReadOnlyProperty();
    }
}
