package dev.sovereign.console.feature.lab;

import atlantafx.base.theme.Styles;
import dev.sovereign.console.fx.Ui;
import dev.sovereign.console.fx.Ui.Tone;
import dev.sovereign.engine.lab.Check;
import dev.sovereign.engine.lab.LabStep;
import dev.sovereign.engine.lab.LabVerdict;
import javafx.application.Platform;
import javafx.beans.binding.Bindings;
import javafx.collections.ListChangeListener;
import javafx.geometry.Insets;
import javafx.geometry.Pos;
import javafx.scene.Node;
import javafx.scene.control.Label;
import javafx.scene.control.ProgressIndicator;
import javafx.scene.control.ScrollPane;
import javafx.scene.layout.HBox;
import javafx.scene.layout.Priority;
import javafx.scene.layout.Region;
import javafx.scene.layout.VBox;

/**
 * The scenario's story, scrolling: the verdict on top (once there is one), the scenario's summary,
 * its steps ticking as they run ({@code lab-step-N}), and the checks with their evidence below. Keeps
 * the running step in view. The words come from {@link LabSentences}; this class only lays them out
 * and colours them.
 */
final class LabNarrativePane {
    private final LabViewModel vm;

    LabNarrativePane(LabViewModel vm) {
        this.vm = vm;
    }

    ScrollPane create() {
        Label summary = new Label();
        summary.setId("lab-scenario-summary");
        summary.setWrapText(true);
        summary.textProperty()
                .bind(Bindings.createStringBinding(
                        () -> vm.selectedScenarioProperty().get() == null
                                ? ""
                                : vm.selectedScenarioProperty().get().summary(),
                        vm.selectedScenarioProperty()));
        summary.getStyleClass().add("step-detail");
        VBox narrative = new VBox(4);
        narrative.setId("lab-narrative");
        VBox verdict = new VBox(6);
        verdict.setId("lab-verdict");
        verdict.getStyleClass().add("detail-pane");
        VBox checks = new VBox(6);
        checks.setId("lab-checks");
        checks.getStyleClass().add("detail-pane");
        vm.verdictProperty().addListener((obs, o, v) -> fillVerdict(verdict, checks, v));
        fillVerdict(verdict, checks, null);
        Label pace = new Label();
        pace.setId("lab-pace-note");
        pace.setWrapText(true);
        pace.getStyleClass().add("step-detail");
        pace.textProperty()
                .bind(Bindings.createStringBinding(
                        () -> LabSentences.paceNote(vm.paceProperty().get()), vm.paceProperty()));
        pace.visibleProperty().bind(pace.textProperty().isNotEmpty());
        pace.managedProperty().bind(pace.visibleProperty());
        VBox right = new VBox(10, verdict, summary, pace, narrative, checks);
        // on a projector the steps come first: the summary (and what the pace does) below them, scrolling
        vm.presenterProperty().addListener((obs, o, p) -> {
            right.getChildren().removeAll(summary, pace);
            right.getChildren().add(p ? right.getChildren().indexOf(narrative) + 1 : 1, summary);
            right.getChildren().add(right.getChildren().indexOf(summary) + 1, pace);
        });
        right.setPadding(new Insets(0, 8, 8, 4));
        ScrollPane scroll = new ScrollPane(right);
        scroll.setFitToWidth(true);
        scroll.setId("lab-narrative-scroll");
        vm.steps().addListener((ListChangeListener<LabStep>) c -> {
            fillNarrative(narrative);
            keepInView(scroll, right, narrative);
        });
        vm.heldStepProperty().addListener((obs, o, h) -> {
            fillNarrative(narrative);
            keepInView(scroll, right, narrative);
        });
        vm.paceProperty().addListener((obs, o, p) -> fillNarrative(narrative));
        // a smaller window, or presenter mode switched on or off: the running or waiting step back in sight
        scroll.viewportBoundsProperty().addListener((obs, o, b) -> {
            if (o.getHeight() != b.getHeight()) {
                Platform.runLater(() -> keepInView(scroll, right, narrative));
            }
        });
        // presenter mode puts the steps first: from the top (the new viewport then brings a waiting step in sight)
        vm.presenterProperty().addListener((obs, o, p) -> scroll.setVvalue(0));
        vm.stepHolds().addListener((ListChangeListener<Boolean>) c -> fillNarrative(narrative));
        fillNarrative(narrative);
        HBox.setHgrow(scroll, Priority.ALWAYS);
        VBox.setVgrow(scroll, Priority.ALWAYS);
        return scroll;
    }

    private void fillNarrative(VBox narrative) {
        narrative.getChildren().clear();
        LabScenarioRun.Pace pace = vm.paceProperty().get();
        LabStep held = vm.heldStepProperty().get();
        for (LabStep s : vm.steps()) {
            boolean realTime = pace != LabScenarioRun.Pace.REAL_TIME
                    && s.status() == LabStep.Status.PENDING
                    && s.index() < vm.stepHolds().size()
                    && !vm.stepHolds().get(s.index());
            boolean waits = held != null && held.index() == s.index() && s.status() == LabStep.Status.PENDING;
            narrative.getChildren().add(stepLine(s, realTime, waits ? pace : null));
        }
    }

    /**
     * One step: its number coloured by status (green done, red where the fence failed or the run could not
     * carry on), its title, what was seen, a spinner while it runs.
     */
    private HBox stepLine(LabStep s, boolean realTime, LabScenarioRun.Pace heldAt) {
        Label number = Ui.badge(
                Integer.toString(s.index() + 1),
                switch (s.status()) {
                    case PENDING, SKIPPED -> Tone.QUIET;
                    case RUNNING -> Tone.INFO;
                    case DONE -> Tone.GOOD;
                    // a stale write accepted, a rightful result lost: the fence failed here, never green
                    case VIOLATED, FAILED -> Tone.BAD;
                });
        number.setMinWidth(Region.USE_PREF_SIZE); // 28 px, 36 px on a projector (lab.css)
        number.setAlignment(Pos.CENTER);
        Label title = new Label(LabSentences.stepTitle(s) + (realTime ? LabSentences.REAL_TIME_TAG : ""));
        title.setWrapText(true);
        if (s.status() == LabStep.Status.RUNNING) {
            title.getStyleClass().add("text-bold");
        } else if (s.status() == LabStep.Status.PENDING || s.status() == LabStep.Status.SKIPPED) {
            title.getStyleClass().add(Styles.TEXT_MUTED);
        }
        VBox text = new VBox(1, title);
        if (!s.detail().isEmpty()) {
            Label detail = new Label(vm.humanize(s.detail())); // "until 07:41:44.669", never the ISO instant
            detail.setWrapText(true);
            detail.setId("lab-step-" + (s.index() + 1) + "-detail");
            detail.getStyleClass()
                    .add(
                            s.status() == LabStep.Status.FAILED || s.status() == LabStep.Status.VIOLATED
                                    ? Styles.DANGER
                                    : "step-detail");
            text.getChildren().add(detail);
        }
        if (heldAt != null) {
            Label waits = new Label(LabSentences.heldLine(heldAt));
            waits.setWrapText(true);
            waits.setId("lab-step-held");
            waits.getStyleClass().add("text-bold");
            text.getChildren().add(waits);
        }
        HBox.setHgrow(text, Priority.ALWAYS);
        HBox line = new HBox(8, number, text);
        if (s.status() == LabStep.Status.RUNNING) {
            ProgressIndicator spin = new ProgressIndicator();
            spin.setMaxSize(14, 14);
            line.getChildren().add(spin);
        }
        line.setId("lab-step-" + (s.index() + 1));
        line.getStyleClass().addAll("lab-step", s.status().code());
        if (heldAt != null) {
            line.getStyleClass().add("held");
        }
        return line;
    }

    /** The verdict on top (badge and headline); the checks with their evidence below the narrative. */
    private static void fillVerdict(VBox box, VBox checks, LabVerdict v) {
        box.getChildren().clear();
        checks.getChildren().clear();
        box.setVisible(v != null);
        box.setManaged(v != null);
        checks.setVisible(v != null);
        checks.setManaged(v != null);
        if (v == null) {
            return;
        }
        Label badge = Ui.badge(
                v.verdict().name(),
                switch (v.verdict()) {
                    case HELD -> Tone.GOOD;
                    case VIOLATED -> Tone.BAD;
                    case INCONCLUSIVE -> Tone.WARN;
                });
        badge.setId("lab-verdict-badge");
        badge.setMinWidth(Region.USE_PREF_SIZE);
        Label headline = new Label(LabSentences.headline(v));
        headline.setId("lab-verdict-headline");
        headline.setWrapText(true);
        headline.getStyleClass().add("text-bold");
        HBox top = new HBox(10, badge, headline);
        top.setAlignment(Pos.CENTER_LEFT);
        box.getChildren().add(top);
        Label checksTitle = new Label(LabSentences.checksTitle(v));
        checksTitle.setWrapText(true);
        checksTitle.getStyleClass().add(Styles.TEXT_MUTED);
        checks.getChildren().add(checksTitle);
        for (Check c : v.checks()) {
            checks.getChildren().add(checkLine(c));
        }
    }

    /** One check: ok (green) or failed (red for safety, amber for setup), its kind, statement and evidence. */
    private static HBox checkLine(Check c) {
        Label mark = Ui.badge(
                LabSentences.checkMark(c),
                c.passed() ? Tone.GOOD : c.kind() == Check.Kind.SAFETY ? Tone.BAD : Tone.WARN);
        mark.setMinWidth(52);
        mark.setAlignment(Pos.CENTER);
        Label kind = new Label(LabSentences.checkKind(c));
        kind.getStyleClass().add(Styles.TEXT_MUTED);
        kind.setMinWidth(46);
        Label statement = new Label(c.statement());
        statement.setWrapText(true);
        Label evidence = new Label(c.evidence());
        evidence.setWrapText(true);
        evidence.getStyleClass().addAll("step-detail", "mono");
        VBox text = new VBox(1, statement, evidence);
        HBox.setHgrow(text, Priority.ALWAYS);
        return new HBox(8, mark, kind, text);
    }

    /**
     * Scrolls the narrative the least that shows the running (or waiting) step whole; with neither, nothing. A
     * step already in sight stays where it is, so in presenter mode the steps stay on top.
     */
    private static void keepInView(ScrollPane scroll, VBox content, VBox narrative) {
        Node running = narrative.getChildren().stream()
                .filter(n -> n.getStyleClass().contains("held"))
                .findFirst()
                .or(() -> narrative.getChildren().stream()
                        .filter(n -> n.getStyleClass().contains("running"))
                        .findFirst())
                .orElse(null);
        content.applyCss();
        content.layout();
        double contentHeight = content.getHeight();
        double viewport = scroll.getViewportBounds().getHeight();
        if (running == null || contentHeight <= viewport || viewport <= 0) {
            return;
        }
        double range = contentHeight - viewport;
        double top = scroll.getVvalue() * range;
        double y = narrative.getBoundsInParent().getMinY()
                + running.getBoundsInParent().getMinY();
        double h = running.getBoundsInParent().getHeight();
        double want = top;
        if (y < top) {
            want = y - 4;
        } else if (y + h > top + viewport) {
            want = y + h + 4 - viewport;
        }
        if (want != top) {
            scroll.setVvalue(Math.max(0, Math.min(1, want / range)));
        }
    }
}
