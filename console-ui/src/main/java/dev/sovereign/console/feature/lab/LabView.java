package dev.sovereign.console.feature.lab;

import atlantafx.base.theme.Styles;
import dev.sovereign.console.fx.Ui;
import java.util.List;
import javafx.beans.binding.Bindings;
import javafx.beans.property.BooleanProperty;
import javafx.beans.property.SimpleBooleanProperty;
import javafx.geometry.Orientation;
import javafx.geometry.Pos;
import javafx.scene.Node;
import javafx.scene.Parent;
import javafx.scene.control.Label;
import javafx.scene.control.ProgressIndicator;
import javafx.scene.control.SplitPane;
import javafx.scene.control.TextInputControl;
import javafx.scene.input.KeyCode;
import javafx.scene.input.KeyEvent;
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

    /**
     * The Lab page's own keys, {key, what it does}, for Help → Keyboard shortcuts: the page's key handler reads the
     * same codes.
     */
    public static final List<String[]> KEYS = List.of(
            new String[] {"Space or \u2192", "Lab \u2192 Next step (step by step, slow motion)"},
            new String[] {"P", "Lab \u2192 Presenter mode on or off"});

    public Parent create() {
        Region scenarios = (Region) new LabScenarioSection(vm).create();
        Node workers = new LabWorkersSection(vm).create();
        SplitPane split = new SplitPane(workers, scenarios);
        split.setOrientation(Orientation.VERTICAL);
        split.setDividerPositions(0.36);
        // the scenarios keep about two thirds, but never the room the workers' form and table need (issue 31: in a
        // 1024x700 window the form wraps to a second row and the table went under the divider)
        // placed again when presenter mode gives the scenarios back to the split
        BooleanProperty backInSplit = new SimpleBooleanProperty();
        // (and when workers come or go: the worker table's least height follows them, up to three rows)
        Ui.keepLowerShare(split, scenarios, 0.64, backInSplit, vm.workers());
        split.setId("lab-split");
        VBox.setVgrow(split, Priority.ALWAYS);
        Node sandboxBar = new LabSandboxBar(vm).create();
        VBox body = new VBox(10, sandboxBar, createNotices(), createMessageBar(), split);
        VBox page = Ui.page(
                "lab",
                "Lab",
                "Real contention on demand. Every worker here is a real OS process against the attached database:"
                        + " pause one past its TTL, kill one, skew its clock, and watch Leases (Ctrl+1), Timeline"
                        + " (Ctrl+2) and Rejections (Ctrl+3) show what the ledger allowed.",
                vm.summaryProperty(),
                body);
        page.getStylesheets().add(LabView.class.getResource("lab.css").toExternalForm());
        presenting(page, body, split, sandboxBar, workers, scenarios, backInSplit);
        page.addEventFilter(KeyEvent.KEY_PRESSED, e -> {
            if (e.getTarget() instanceof TextInputControl || e.isShortcutDown() || e.isAltDown()) {
                return;
            }
            if ((e.getCode() == KeyCode.SPACE || e.getCode() == KeyCode.RIGHT)
                    && vm.heldStepProperty().get() != null) {
                vm.nextStep();
                e.consume();
            } else if (e.getCode() == KeyCode.P && !e.isShiftDown()) {
                vm.presenterProperty().set(!vm.presenterProperty().get());
                e.consume();
            }
        });
        return page;
    }

    /**
     * Presenter mode (issue 31, item 15): for a projector, larger type and the scenario alone; the page's header,
     * the database bar, the message line and the worker processes go until it is switched off.
     */
    private void presenting(
            VBox page,
            VBox body,
            SplitPane split,
            Node bar,
            Node workers,
            Region scenarios,
            BooleanProperty backInSplit) {
        // the page's title, description and summary: the room the steps need on a projector
        Node header = page.lookup(".page-header");

        Runnable apply = () -> {
            boolean on = vm.presenterProperty().get();
            if (on) {
                page.getStyleClass().add("presenter");
                split.getItems().remove(scenarios);
                body.getChildren().removeAll(bar, split);
                VBox.setVgrow(scenarios, Priority.ALWAYS);
                body.getChildren().add(scenarios);
            } else {
                page.getStyleClass().remove("presenter");
                body.getChildren().remove(scenarios);
                if (!split.getItems().contains(scenarios)) {
                    split.getItems().setAll(workers, scenarios);
                    split.setDividerPositions(0.36);
                }
                if (!body.getChildren().contains(split)) {
                    body.getChildren().add(0, bar);
                    body.getChildren().add(split);
                }
                backInSplit.set(!backInSplit.get());
            }
            if (header != null) {
                header.setVisible(!on);
                header.setManaged(!on);
            }
        };
        vm.presenterProperty().addListener((obs, o, p) -> apply.run());
        apply.run();
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
                .bind(vm.messageProperty()
                        .isNotEmpty()
                        .or(vm.busyProperty())
                        .or(vm.runningProperty())
                        .and(vm.presenterProperty().not())); // presenter mode: the steps say it
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
