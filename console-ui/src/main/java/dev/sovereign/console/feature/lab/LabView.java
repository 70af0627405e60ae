package dev.sovereign.console.feature.lab;

import atlantafx.base.theme.Styles;
import dev.sovereign.console.fx.Ui;
import javafx.beans.binding.Bindings;
import javafx.geometry.Orientation;
import javafx.geometry.Pos;
import javafx.scene.Node;
import javafx.scene.Parent;
import javafx.scene.control.Label;
import javafx.scene.control.ProgressIndicator;
import javafx.scene.control.SplitPane;
import javafx.scene.layout.HBox;
import javafx.scene.layout.Priority;
import javafx.scene.layout.Region;
import javafx.scene.layout.VBox;

/**
 * The Lab page: the target database (and the lab sandbox), real worker processes with their
 * controls, and the teaching scenarios with a narrative that ticks as it runs and the verdict. Thin:
 * every decision is the {@link LabViewModel}'s.
 *
 * <p>Top to bottom: {@link LabSandboxBar} (the database, the fence switch, the sandbox buttons), the
 * notices and the message line (here), then a split of {@link LabWorkersSection} (the form and the
 * worker table, with {@link LabWorkerControlsCell}) over {@link LabScenarioSection} (the scenario list,
 * the {@link LabNarrativePane} with the verdict, and the live ledger panel).
 */
public final class LabView {
    private final LabViewModel vm;

    public LabView(LabViewModel vm) {
        this.vm = vm;
    }

    public Parent create() {
        Region scenarios = (Region) new LabScenarioSection(vm).create();
        SplitPane split = new SplitPane(new LabWorkersSection(vm).create(), scenarios);
        split.setOrientation(Orientation.VERTICAL);
        split.setDividerPositions(0.36);
        // the scenarios keep about two thirds, but never the room the workers' form and table need (issue 31: in a
        // 1024x700 window the form wraps to a second row and the table went under the divider)
        Ui.keepLowerShare(split, scenarios, 0.64);
        split.setId("lab-split");
        VBox.setVgrow(split, Priority.ALWAYS);
        VBox body = new VBox(10, new LabSandboxBar(vm).create(), createNotices(), createMessageBar(), split);
        VBox page = Ui.page(
                "lab",
                "Lab",
                "Real contention on demand. Every worker here is a real OS process against the attached database:"
                        + " pause one past its TTL, kill one, skew its clock, and watch Leases (Ctrl+1), Timeline"
                        + " (Ctrl+2) and Rejections (Ctrl+3) show what the ledger allowed.",
                vm.summaryProperty(),
                body);
        page.getStylesheets().add(LabView.class.getResource("lab.css").toExternalForm());
        return page;
    }

    /** The warning when the target is not a sandbox, and where there is no SIGSTOP, what Pause does. */
    private Node createNotices() {
        VBox box = new VBox(6);
        Label notSandbox = new Label("These controls start real processes against this database and add actors and"
                + " jobs to it. Open the lab sandbox unless you mean to.");
        notSandbox.setId("lab-not-sandbox");
        notSandbox.setWrapText(true);
        notSandbox.setMinHeight(Region.USE_PREF_SIZE);
        notSandbox.setMinWidth(0);
        HBox warn = new HBox(notSandbox);
        warn.getStyleClass().add("attention");
        warn.visibleProperty()
                .bind(vm.targetProperty()
                        .isNotNull()
                        .and(vm.targetIsSandboxProperty().not()));
        warn.managedProperty().bind(warn.visibleProperty());
        box.getChildren().add(warn);
        if (!vm.hasStopSignals()) {
            Label platform = new Label(vm.platformNote());
            platform.setId("lab-platform-note");
            platform.setWrapText(true);
            platform.setMinHeight(Region.USE_PREF_SIZE);
            HBox note = new HBox(platform);
            note.getStyleClass().add("lab-note");
            box.getChildren().add(note);
        }
        box.visibleProperty()
                .bind(warn.visibleProperty().or(Bindings.size(box.getChildren()).greaterThan(1)));
        box.managedProperty().bind(box.visibleProperty());
        return box;
    }

    /** The spinner and what the last action did (red when it failed). */
    private Node createMessageBar() {
        ProgressIndicator spin = new ProgressIndicator();
        spin.setId("lab-busy");
        spin.setMaxSize(16, 16);
        spin.visibleProperty().bind(vm.busyProperty().or(vm.runningProperty()));
        Label message = new Label();
        message.setId("lab-message");
        message.setWrapText(true);
        message.textProperty().bind(vm.messageProperty());
        vm.messageIsProblemProperty().addListener((obs, o, p) -> restyle(message, p));
        restyle(message, vm.messageIsProblemProperty().get());
        HBox bar = new HBox(8, spin, message);
        bar.setAlignment(Pos.CENTER_LEFT);
        bar.setMinHeight(24);
        // nothing to say, no room taken: a 1024x700 window needs it for the scenarios (issue 31)
        bar.visibleProperty()
                .bind(vm.messageProperty().isNotEmpty().or(vm.busyProperty()).or(vm.runningProperty()));
        bar.managedProperty().bind(bar.visibleProperty());
        return bar;
    }

    private static void restyle(Label message, boolean problem) {
        message.getStyleClass().removeAll(Styles.DANGER, Styles.TEXT_MUTED);
        message.getStyleClass().add(problem ? Styles.DANGER : Styles.TEXT_MUTED);
    }

    /** A section's title, the same on every section of the page. */
    static Label sectionTitle(String text) {
        Label l = new Label(text);
        l.getStyleClass().add(Styles.TITLE_4);
        return l;
    }
}
