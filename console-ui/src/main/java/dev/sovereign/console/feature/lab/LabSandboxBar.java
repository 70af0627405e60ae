package dev.sovereign.console.feature.lab;

import atlantafx.base.theme.Styles;
import dev.sovereign.console.fx.Ui;
import dev.sovereign.console.fx.Ui.Tone;
import javafx.beans.binding.Bindings;
import javafx.geometry.Pos;
import javafx.scene.Node;
import javafx.scene.control.Button;
import javafx.scene.control.CheckBox;
import javafx.scene.control.Label;
import javafx.scene.control.Tooltip;
import javafx.scene.layout.FlowPane;
import javafx.scene.layout.HBox;
import javafx.scene.layout.Region;

/**
 * The Lab page's top bar: which database the lab acts on and whether it is the sandbox, the
 * "Break the fence" switch, and the sandbox's Open and Reset buttons. Thin: binds to {@link LabViewModel}.
 */
final class LabSandboxBar {
    private final LabViewModel vm;

    LabSandboxBar(LabViewModel vm) {
        this.vm = vm;
    }

    Node create() {
        Label caption = new Label("Database");
        caption.getStyleClass().add(Styles.TEXT_MUTED);
        Label path = new Label();
        path.setId("lab-target");
        path.getStyleClass().add("mono");
        path.textProperty()
                .bind(Bindings.createStringBinding(
                        () -> vm.targetProperty().get() != null
                                ? String.valueOf(vm.targetProperty().get().getFileName())
                                : vm.labTargetProperty().get() != null
                                        ? vm.labTargetProperty()
                                                .get()
                                                .withoutSecrets()
                                                .toString()
                                        : "none attached",
                        vm.targetProperty(),
                        vm.labTargetProperty()));
        Tooltip full = new Tooltip();
        full.textProperty()
                .bind(Bindings.createStringBinding(
                        () -> vm.labTargetProperty().get() == null
                                ? ""
                                : vm.labTargetProperty().get().withoutSecrets().toString(),
                        vm.labTargetProperty()));
        path.setTooltip(full);
        path.setMinWidth(Region.USE_PREF_SIZE);
        caption.setMinWidth(Region.USE_PREF_SIZE);
        Label kind = createKindBadge();
        CheckBox breakFence = new CheckBox("Break the fence");
        breakFence.setId("lab-break-fence");
        breakFence.selectedProperty().bindBidirectional(vm.breakFenceProperty());
        breakFence.setTooltip(new Tooltip("Starts new workers and scenarios with"
                + " -Dsovereign.fault.ignoreTerminalFence=true: their terminal writes skip the fence, so a stale"
                + " holder's result can land. For teaching only."));
        breakFence.setMinWidth(Region.USE_PREF_SIZE);
        Button open = new Button("Open lab sandbox");
        open.setId("lab-open-sandbox");
        open.setOnAction(e -> vm.openSandbox());
        open.disableProperty().bind(vm.targetIsSandboxProperty());
        Button reset = new Button("Reset sandbox");
        reset.setId("lab-reset-sandbox");
        reset.getStyleClass().add(Styles.DANGER);
        reset.setTooltip(new Tooltip("Stops every worker started here and attaches a brand-new, empty sandbox"));
        reset.setOnAction(e -> vm.resetSandbox());
        reset.disableProperty().bind(vm.targetIsSandboxProperty().not().or(vm.busyProperty()));
        // one of the two at a time (the other would only be disabled): on a sandbox Reset, elsewhere Open; the row
        // then fits a 1024x700 window (issue 31, item 3). File → Open lab sandbox (Ctrl+L) stays.
        open.visibleProperty().bind(vm.targetIsSandboxProperty().not());
        open.managedProperty().bind(open.visibleProperty());
        reset.visibleProperty().bind(vm.targetIsSandboxProperty());
        reset.managedProperty().bind(reset.visibleProperty());
        open.setMinWidth(Region.USE_PREF_SIZE);
        reset.setMinWidth(Region.USE_PREF_SIZE);
        kind.setMinWidth(Region.USE_PREF_SIZE);
        HBox which = new HBox(10, caption, path, kind);
        which.setAlignment(Pos.CENTER_LEFT);
        which.setMinWidth(Region.USE_PREF_SIZE);
        HBox actions = new HBox(10, breakFence, open, reset);
        actions.setAlignment(Pos.CENTER_LEFT);
        actions.setMinWidth(Region.USE_PREF_SIZE);
        // a sandbox's long file name and the three controls do not fit one row of a 1024x700 window: the controls
        // wrap to a second row instead of pushing the page wider than the window (issue 31, item 3)
        FlowPane bar = new FlowPane(24, 6, which, actions);
        bar.setAlignment(Pos.CENTER_LEFT);
        bar.setId("lab-target-bar");
        return bar;
    }

    /** "lab sandbox" (good), "not a sandbox" (warning) or "nothing attached". */
    private Label createKindBadge() {
        Label kind = Ui.badge("", Tone.QUIET);
        kind.setId("lab-target-kind");
        Runnable rekind = () -> {
            if (vm.serverLabProperty().get() == LabViewModel.ServerLab.SANDBOX) {
                Ui.retone(kind, "lab sandbox on the server", Tone.GOOD);
            } else if (vm.serverLabProperty().get() == LabViewModel.ServerLab.NOT_A_SANDBOX) {
                Ui.retone(kind, "not a sandbox", Tone.WARN);
            } else if (vm.targetProperty().get() == null) {
                Ui.retone(kind, "nothing attached", Tone.QUIET);
            } else if (vm.targetIsSandboxProperty().get()) {
                Ui.retone(kind, "lab sandbox", Tone.GOOD);
            } else {
                Ui.retone(kind, "not a sandbox", Tone.WARN);
            }
        };
        vm.targetProperty().addListener((obs, o, n) -> rekind.run());
        vm.targetIsSandboxProperty().addListener((obs, o, n) -> rekind.run());
        vm.serverLabProperty().addListener((obs, o, n) -> rekind.run());
        rekind.run();
        return kind;
    }
}
