package dev.sovereign.console.feature.supervisor;

import atlantafx.base.theme.Styles;
import dev.sovereign.console.fx.Ui;
import dev.sovereign.engine.admin.SupervisorTickRow;
import javafx.scene.Parent;
import javafx.scene.control.Label;
import javafx.scene.control.ScrollPane;
import javafx.scene.layout.FlowPane;
import javafx.scene.layout.VBox;

/** The last supervisor tick: what it found and what it did. */
public final class SupervisorView {
    private final SupervisorViewModel vm;

    public SupervisorView(SupervisorViewModel vm) {
        this.vm = vm;
    }

    public Parent create() {
        FlowPane tiles = new FlowPane(12, 12);
        tiles.setId("supervisor-tiles");
        Label report = new Label();
        report.setId("supervisor-report");
        report.getStyleClass().add("report");
        report.setWrapText(true);
        VBox reportPane = new VBox(6, sectionTitle("Report"), report);
        reportPane.getStyleClass().add("detail-pane");
        VBox body = new VBox(14, tiles, reportPane);
        vm.lastTickProperty().addListener((obs, o, t) -> show(t, tiles, report, reportPane));
        show(vm.lastTickProperty().get(), tiles, report, reportPane);
        ScrollPane scroll = new ScrollPane(body);
        scroll.setFitToWidth(true);
        return Ui.page("supervisor", "Supervisor",
                "Each tick reports expired leases and stale processes, sweeps expired claims and recovers"
                        + " abandoned attempts as worker_lost. It never creates work.", vm.headlineProperty(), scroll);
    }

    private static void show(SupervisorTickRow t, FlowPane tiles, Label report, VBox reportPane) {
        tiles.getChildren().clear();
        reportPane.setVisible(t != null);
        if (t == null) {
            report.setText("");
            return;
        }
        tiles.getChildren().addAll(tile("expired leases", t.expiredLeases()), tile("stale processes", t.staleProcesses()),
                tile("claims swept", t.sweptClaims()), tile("attempts recovered", t.recovered()),
                tile("failures", t.failures()));
        report.setText(t.report());
    }

    private static VBox tile(String what, int n) {
        Label number = new Label(Integer.toString(n));
        number.getStyleClass().add("tile-number");
        if (n > 0 && (what.equals("failures") || what.equals("attempts recovered"))) {
            number.getStyleClass().add(Styles.DANGER);
        }
        Label caption = new Label(what);
        caption.getStyleClass().add(Styles.TEXT_MUTED);
        VBox box = new VBox(number, caption);
        box.setId("tile-" + what.replace(' ', '-'));
        box.getStyleClass().add("tile");
        return box;
    }

    private static Label sectionTitle(String text) {
        Label l = new Label(text);
        l.getStyleClass().add(Styles.TITLE_4);
        return l;
    }
}
