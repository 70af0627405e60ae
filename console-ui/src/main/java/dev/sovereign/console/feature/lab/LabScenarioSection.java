package dev.sovereign.console.feature.lab;

import atlantafx.base.theme.Styles;
import dev.sovereign.engine.lab.ScenarioInfo;
import javafx.geometry.Insets;
import javafx.scene.Node;
import javafx.scene.control.Button;
import javafx.scene.control.Label;
import javafx.scene.control.ListCell;
import javafx.scene.control.ListView;
import javafx.scene.control.ScrollPane;
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
        VBox left = createScenarioList();
        VBox middle = new VBox(8, LabView.sectionTitle("Narrative"), new LabNarrativePane(vm).create());
        HBox.setHgrow(middle, Priority.ALWAYS);
        HBox row = new HBox(16, left, middle, createLivePanel());
        row.setPadding(new Insets(8, 0, 0, 0));
        row.setId("lab-scenario-section");
        // in a 1024x700 window the workers above keep their form and table: the list and the narrative scroll
        row.setMinHeight(130);
        return row;
    }

    /** The scenarios (name and title), locked while one runs, and the Run and Stop buttons. */
    private VBox createScenarioList() {
        ListView<ScenarioInfo> list = new ListView<>();
        list.setId("lab-scenarios");
        list.getItems().setAll(vm.scenarios());
        list.setPrefWidth(300);
        list.setMinWidth(260);
        list.setMinHeight(48);
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
                title.setMaxWidth(240);
                title.setMinHeight(Region.USE_PREF_SIZE);
                setGraphic(new VBox(1, name, title));
                setText(null);
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
        VBox.setVgrow(list, Priority.ALWAYS);
        return new VBox(8, LabView.sectionTitle("Scenarios"), list, buttons);
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
