package dev.sovereign.console.shell;

import dev.sovereign.console.ledger.Health;
import dev.sovereign.console.ledger.LiveLedger;
import java.util.Locale;
import javafx.beans.binding.Bindings;
import javafx.geometry.Pos;
import javafx.scene.Parent;
import javafx.scene.control.Button;
import javafx.scene.control.Label;
import javafx.scene.control.ProgressBar;
import javafx.scene.control.Tooltip;
import javafx.scene.layout.HBox;
import javafx.scene.layout.Priority;
import javafx.scene.layout.Region;

/** Database, schema version, change marker, last refresh and connection health. */
final class StatusBar {
    private final ShellViewModel vm;

    StatusBar(ShellViewModel vm) {
        this.vm = vm;
    }

    Parent create() {
        LiveLedger ledger = vm.ledger();
        Region dot = new Region();
        dot.getStyleClass().add("health-dot");
        Label health = new Label();
        health.setId("status-health");
        health.textProperty()
                .bind(Bindings.createStringBinding(
                        () -> healthText(ledger.healthProperty().get()), ledger.healthProperty()));
        Tooltip healthTip = new Tooltip();
        healthTip.textProperty().bind(ledger.healthDetailProperty());
        health.setTooltip(healthTip);
        ledger.healthProperty().addListener((obs, o, h) -> restyle(dot, h));
        restyle(dot, ledger.healthProperty().get());
        HBox healthBox = new HBox(6, dot, health);
        healthBox.setAlignment(Pos.CENTER_LEFT);

        Label path = new Label();
        path.setId("status-database");
        path.textProperty()
                .bind(Bindings.createStringBinding(
                        () -> {
                            var p = vm.attachedLocationProperty().get() != null
                                    ? vm.attachedLocationProperty().get()
                                    : vm.attachment()
                                            .attachingLocationProperty()
                                            .get();
                            return p == null ? "No database attached" : p.toString(); // a URL without its secrets
                        },
                        vm.attachedLocationProperty(),
                        vm.attachment().attachingLocationProperty()));
        Label security = new Label();
        security.setId("status-connection-security");
        security.textProperty().bind(vm.attachment().connectionSecurityProperty());
        security.visibleProperty()
                .bind(vm.attachment().connectionSecurityProperty().isNotEmpty());
        security.managedProperty().bind(security.visibleProperty());
        Tooltip securityDetail = new Tooltip();
        securityDetail.textProperty().bind(vm.attachment().connectionDetailProperty());
        security.setTooltip(securityDetail);
        Label schema = new Label();
        schema.setId("status-schema");
        schema.textProperty()
                .bind(Bindings.createStringBinding(
                        () -> ledger.snapshot() == null
                                ? ""
                                : "schema v" + ledger.snapshot().schemaVersion(),
                        ledger.snapshotProperty()));
        Label version = new Label();
        version.setId("status-change-marker");
        version.textProperty()
                .bind(Bindings.createStringBinding(
                        () -> ledger.dataVersionProperty().get() < 0
                                ? ""
                                : "change " + ledger.dataVersionProperty().get(),
                        ledger.dataVersionProperty()));
        Label refreshed = new Label();
        refreshed.setId("status-refresh");
        refreshed
                .textProperty()
                .bind(Bindings.when(vm.attachedLocationProperty().isNull())
                        .then("")
                        .otherwise(vm.statusLine().refreshTextProperty()));

        ProgressBar export = new ProgressBar();
        export.setId("status-export-progress");
        export.setPrefWidth(120);
        export.progressProperty().bind(vm.journalExport().exportProgressProperty());
        Label exportLabel = new Label("Exporting journal\u2026");
        HBox exportBox = new HBox(6, exportLabel, export);
        exportBox.setAlignment(Pos.CENTER_LEFT);
        exportBox.visibleProperty().bind(vm.journalExport().exportingProperty());
        exportBox.managedProperty().bind(vm.journalExport().exportingProperty());

        Region grow = new Region();
        HBox.setHgrow(grow, Priority.ALWAYS);
        // the zone is said where a time is: "refreshed 08:01:40 UTC" (nothing added for local times)
        Tooltip zone = new Tooltip();
        zone.textProperty()
                .bind(Bindings.concat(
                        "Shown in ",
                        vm.statusLine().zoneTextProperty(),
                        "; View \u2192 Show times in UTC (Ctrl+Shift+U) switches."));
        refreshed.setTooltip(zone);
        Button alert = new Button();
        alert.setId("status-alerts");
        alert.getStyleClass().addAll(atlantafx.base.theme.Styles.SMALL, atlantafx.base.theme.Styles.DANGER);
        alert.setMinWidth(Region.USE_PREF_SIZE);
        Alerts alerts = vm.banners().alerts();
        alert.textProperty()
                .bind(Bindings.createStringBinding(
                        () -> alerts.unseenProperty().get() == 1
                                ? "1 alert"
                                : alerts.unseenProperty().get() + " alerts",
                        alerts.unseenProperty()));
        alert.visibleProperty().bind(alerts.unseenProperty().greaterThan(0));
        alert.managedProperty().bind(alert.visibleProperty());
        Tooltip said = new Tooltip();
        said.textProperty().bind(alerts.latestProperty());
        alert.setTooltip(said);
        alert.setOnAction(e -> vm.banners().showAlerts());
        Label history = new Label();
        history.setId("status-ledger-alarm");
        history.getStyleClass().add(atlantafx.base.theme.Styles.DANGER);
        history.textProperty().bind(vm.statusLine().ledgerAlarmShortProperty());
        history.visibleProperty()
                .bind(vm.statusLine().ledgerAlarmShortProperty().isNotEmpty());
        history.managedProperty().bind(history.visibleProperty());
        Tooltip historyDetail = new Tooltip();
        historyDetail.setWrapText(true);
        historyDetail.setMaxWidth(520);
        historyDetail.textProperty().bind(vm.statusLine().ledgerAlarmProperty());
        history.setTooltip(historyDetail);
        HBox bar = new HBox(healthBox, path, security, schema, version, history, grow, exportBox, alert, refreshed);
        bar.setId("status-bar");
        bar.getStyleClass().add("status-bar");
        return bar;
    }

    private static String healthText(Health h) {
        return switch (h) {
            case DETACHED -> "Detached";
            case CONNECTING -> "Connecting";
            case CONNECTED -> "Connected";
            case BUSY -> "Locked, retrying";
            case FAILING -> "Unreachable, retrying";
        };
    }

    private static void restyle(Region dot, Health h) {
        dot.getStyleClass().removeAll("connected", "connecting", "busy", "failing", "detached");
        dot.getStyleClass().add(h.name().toLowerCase(Locale.ROOT));
    }
}
