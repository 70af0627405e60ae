package dev.sovereign.console.feature.lab;

import atlantafx.base.theme.Styles;
import dev.sovereign.engine.lab.ScenarioInfo;
import javafx.geometry.Insets;
import javafx.geometry.Pos;
import javafx.scene.Node;
import javafx.scene.control.Button;
import javafx.scene.control.ComboBox;
import javafx.scene.control.Label;
import javafx.scene.control.ListCell;
import javafx.scene.control.ListView;
import javafx.scene.control.ScrollPane;
import javafx.scene.control.ToggleButton;
import javafx.scene.control.Tooltip;
import javafx.scene.layout.FlowPane;
import javafx.scene.layout.HBox;
import javafx.scene.layout.Priority;
import javafx.scene.layout.Region;
import javafx.scene.layout.VBox;

/**
 * The Lab page's scenario row: the list of scenarios with Run and Stop on the left, the narrative
 * and the verdict ({@link LabNarrativePane}) in the middle, and what the ledger says right now on the
 * right. Thin: binds to {@link LabViewModel}.
 */
final class LabScenarioSection {
    private final LabViewModel vm;

    LabScenarioSection(LabViewModel vm) {
        this.vm = vm;
    }

    Node create() {
        Node controls = createControls();
        VBox left = createScenarioList(controls);
        ToggleButton presenter = new ToggleButton("Presenter");
        presenter.setId("lab-presenter");
        presenter.setTooltip(new Tooltip("Larger type and the narrative alone on the page, for a projector (P)"));
        presenter.selectedProperty().bindBidirectional(vm.presenterProperty());
        presenter.setMinWidth(Region.USE_PREF_SIZE);
        Region grow = new Region();
        HBox.setHgrow(grow, Priority.ALWAYS);
        Label title = LabView.sectionTitle("Narrative");
        title.setId("lab-narrative-title");
        title.setMinWidth(Region.USE_PREF_SIZE);
        HBox header = new HBox(8, title, grow, presenter);
        header.setAlignment(Pos.CENTER_LEFT);
        VBox middle = new VBox(8, header, new LabNarrativePane(vm).create());
        HBox.setHgrow(middle, Priority.ALWAYS);
        HBox row = new HBox(16, left, middle, createLivePanel());
        VBox.setVgrow(row, Priority.ALWAYS);
        VBox section = new VBox(8, row);
        section.setPadding(new Insets(8, 0, 0, 0));
        section.setId("lab-scenario-section");
        // in a 1024x700 window the workers above keep their form and table: the list and the narrative scroll
        section.setMinHeight(130);
        // a projector shows the narrative: the list goes, the controls that drive the run move above it, and the
        // narrative has the width the list had (issue 31, item 15)
        Runnable place = () -> {
            boolean on = vm.presenterProperty().get();
            left.setVisible(!on);
            left.setManaged(!on);
            if (on && controls.getParent() != section) {
                left.getChildren().remove(controls);
                section.getChildren().add(0, controls);
            } else if (!on && controls.getParent() != left) {
                section.getChildren().remove(controls);
                left.getChildren().add(controls);
            }
        };
        vm.presenterProperty().addListener((obs, o, p) -> place.run());
        place.run();
        return section;
    }

    /** The scenarios (name and title), locked while one runs, and the Run and Stop buttons. */
    private VBox createScenarioList(Node controls) {
        ListView<ScenarioInfo> list = new ListView<>();
        list.setId("lab-scenarios");
        list.getItems().setAll(vm.scenarios());
        list.setPrefWidth(300);
        list.setMinWidth(260);
        list.setMinHeight(36); // about one scenario: the Run, Stop and pace controls under it stay in sight at 1024x700
        list.setCellFactory(l -> new ListCell<>() {
            @Override
            protected void updateItem(ScenarioInfo s, boolean empty) {
                super.updateItem(s, empty);
                if (empty || s == null) {
                    setGraphic(null);
                    setText(null);
                    return;
                }
                Label name = new Label(s.name());
                name.getStyleClass().add("text-bold");
                Label title = new Label(s.title());
                title.getStyleClass().add(Styles.TEXT_MUTED);
                title.setWrapText(true);
                title.setMinHeight(Region.USE_PREF_SIZE);
                setGraphic(new VBox(1, name, title));
                setText(null);
            }

            /**
             * No wider than the list makes it: the description wraps to the list's width (a fixed 240 px was wider
             * than a narrow list, which then scrolled sideways and cut the text at its edge).
             */
            @Override
            protected double computePrefWidth(double height) {
                return 0;
            }

            /** As tall as its description, wrapped to the width the list gives it. */
            @Override
            protected double computePrefHeight(double width) {
                Node shown = getGraphic();
                if (shown == null || width <= 0) {
                    return super.computePrefHeight(width);
                }
                return snappedTopInset()
                        + shown.prefHeight(width - snappedLeftInset() - snappedRightInset())
                        + snappedBottomInset();
            }
        });
        list.getSelectionModel().select(vm.selectedScenarioProperty().get());
        list.getSelectionModel().selectedItemProperty().addListener((obs, o, s) -> {
            if (s != null) {
                vm.selectedScenarioProperty().set(s);
            }
        });
        vm.selectedScenarioProperty()
                .addListener((obs, o, s) -> list.getSelectionModel().select(s));
        list.disableProperty().bind(vm.runningProperty());
        VBox.setVgrow(list, Priority.ALWAYS);
        VBox column = new VBox(8, LabView.sectionTitle("Scenarios"), list, controls);
        column.setPrefWidth(300);
        column.setMinWidth(260);
        return column;
    }

    /** Run and Stop, the pace and Next step: under the list, or above the narrative in presenter mode. */
    private Node createControls() {
        Button run = new Button("Run scenario");
        run.setId("lab-run");
        run.getStyleClass().add(Styles.ACCENT);
        run.setOnAction(e -> vm.runScenario());
        run.disableProperty()
                .bind(vm.runningProperty().or(vm.labTargetProperty().isNull()));
        Button cancel = new Button("Stop");
        cancel.setId("lab-cancel");
        cancel.setOnAction(e -> vm.cancelScenario());
        cancel.disableProperty().bind(vm.runningProperty().not());
        run.setMinWidth(Region.USE_PREF_SIZE);
        cancel.setMinWidth(Region.USE_PREF_SIZE);
        HBox buttons = new HBox(8, run, cancel);
        buttons.setMinWidth(Region.USE_PREF_SIZE);
        FlowPane controls = new FlowPane(16, 8, buttons, createPace());
        controls.setPrefWrapLength(240);
        // above the narrative (presenter mode) they have the page's width: one row
        vm.presenterProperty().addListener((obs, o, p) -> controls.setPrefWrapLength(p ? 900 : 240));
        controls.setId("lab-scenario-controls");
        return controls;
    }

    /**
     * How the scenario plays (decision 0117): real time, step by step (Next step, Space, →) or slow motion; the
     * Next step button while one waits.
     */
    private Node createPace() {
        ComboBox<LabScenarioRun.Pace> pace = new ComboBox<>();
        pace.setId("lab-pace");
        pace.getItems().setAll(LabScenarioRun.Pace.values());
        pace.valueProperty().bindBidirectional(vm.paceProperty());
        pace.setTooltip(new Tooltip(LabSentences.PACE_NOTE));
        pace.setMinWidth(Region.USE_PREF_SIZE);
        Button next = new Button("Next \u25B6");
        next.setId("lab-next-step");
        next.setTooltip(new Tooltip("Lets the lab begin the step it waits before (Space or \u2192)"));
        next.setOnAction(e -> vm.nextStep());
        next.disableProperty().bind(vm.heldStepProperty().isNull());
        next.visibleProperty().bind(vm.paceProperty().isNotEqualTo(LabScenarioRun.Pace.REAL_TIME));
        next.managedProperty().bind(next.visibleProperty());
        next.setMinWidth(Region.USE_PREF_SIZE);
        FlowPane row = new FlowPane(8, 6, pace, next);
        row.setAlignment(Pos.CENTER_LEFT);
        row.setPrefWrapLength(260); // the two side by side in the list's width, one above the other when narrower
        return row;
    }

    /**
     * What the ledger says right now about the watched actor, a stale write it accepted (only with the fence
     * switched off), and the scenario's newest rejection.
     */
    private Node createLivePanel() {
        Label lease = new Label();
        lease.setId("lab-live-lease");
        lease.setWrapText(true);
        lease.textProperty().bind(vm.liveLeaseProperty());
        Label rejection = new Label();
        rejection.setId("lab-live-rejection");
        rejection.setWrapText(true);
        rejection.textProperty().bind(vm.liveRejectionProperty());
        Label leaseCaption = new Label("Lease now");
        leaseCaption.getStyleClass().add(Styles.TEXT_MUTED);
        Label rejectionCaption = new Label("Newest rejection");
        rejectionCaption.getStyleClass().add(Styles.TEXT_MUTED);
        // a stale write accepted comes before the refusal it causes: the refusal alone would blame the rightful one
        Label staleCaption = new Label("Stale write accepted");
        staleCaption.getStyleClass().addAll(Styles.TEXT_MUTED);
        Label stale = new Label();
        stale.setId("lab-live-stale-commit");
        stale.setWrapText(true);
        stale.setMinHeight(Region.USE_PREF_SIZE);
        stale.getStyleClass().add(Styles.DANGER);
        stale.textProperty().bind(vm.liveStaleCommitProperty());
        for (Label l : new Label[] {staleCaption, stale}) {
            l.visibleProperty().bind(vm.liveStaleCommitProperty().isNotEmpty());
            l.managedProperty().bind(l.visibleProperty());
        }
        VBox pane = new VBox(6, leaseCaption, lease, staleCaption, stale, rejectionCaption, rejection);
        pane.getStyleClass().add("detail-pane");
        lease.setMinHeight(Region.USE_PREF_SIZE);
        rejection.setMinHeight(Region.USE_PREF_SIZE);
        // a long refusal scrolls in its box instead of ending in "…"
        ScrollPane scroll = new ScrollPane(pane);
        scroll.setId("lab-live-scroll");
        scroll.setFitToWidth(true);
        scroll.getStyleClass().add("edge-to-edge");
        VBox.setVgrow(scroll, Priority.ALWAYS);
        VBox live = new VBox(8, LabView.sectionTitle("Ledger, live"), scroll);
        live.setPrefWidth(280);
        live.setMinWidth(240);
        live.setMaxWidth(320);
        return live;
    }
}
