package dev.sovereign.console.shell;

import dev.sovereign.console.ledger.Health;
import dev.sovereign.console.ledger.LedgerStorage;
import dev.sovereign.console.ledger.LiveLedger;
import dev.sovereign.engine.admin.LedgerMetrics;
import dev.sovereign.engine.base.LedgerLocation;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import javafx.beans.binding.Bindings;
import javafx.beans.binding.StringBinding;
import javafx.beans.property.IntegerProperty;
import javafx.beans.property.SimpleIntegerProperty;
import javafx.beans.value.ObservableStringValue;
import javafx.geometry.Pos;
import javafx.scene.Node;
import javafx.scene.Parent;
import javafx.scene.control.Button;
import javafx.scene.control.Label;
import javafx.scene.control.Labeled;
import javafx.scene.control.ProgressBar;
import javafx.scene.control.Tooltip;
import javafx.scene.layout.HBox;
import javafx.scene.layout.Priority;
import javafx.scene.layout.Region;
import javafx.scene.text.Text;

/**
 * Database, schema version, change marker, last refresh and connection health, and the alerts. A narrow window
 * never cuts a text short: the bar gives up what matters least first, step by step, while its items would not fit
 * whole (issue 31) — the change marker, then the schema version, then the ledger's size on disk (issue 29; its tooltip
 * and the Supervisor page keep it), then the alerts become a badge ({@code ⚠ 2}),
 * then the refresh time loses its word, then the database is named by its file name (or host and database). The
 * database's tooltip always says the location, schema and change marker whole; the alerts' tooltip what they are.
 */
final class StatusBar {
    /** The steps of {@link Fitting#level}: at and above each, that item is left out or shortened. */
    static final int NO_CHANGE_MARKER = 1;

    static final int NO_SCHEMA = 2;
    static final int NO_SIZE = 3;
    static final int BADGE_ALERTS = 4;
    static final int SHORT_REFRESH = 5;
    static final int SHORT_PATH = 6;

    static final String ALERTS_HINT = "runs that need an operator (retry or acknowledge each), as on the Runs page."
            + " Click to open the one waiting longest, selected.";

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

        Fitting bar = new Fitting();
        Label path = new Label();
        path.setId("status-database");
        StringBinding where = Bindings.createStringBinding(
                () -> {
                    LedgerLocation p = vm.attachedLocationProperty().get() != null
                            ? vm.attachedLocationProperty().get()
                            : vm.attachment().attachingLocationProperty().get();
                    return p == null ? "No database attached" : p.toString(); // a URL without its secrets
                },
                vm.attachedLocationProperty(),
                vm.attachment().attachingLocationProperty());
        StringBinding whereShort = Bindings.createStringBinding(
                () -> {
                    LedgerLocation p = vm.attachedLocationProperty().get() != null
                            ? vm.attachedLocationProperty().get()
                            : vm.attachment().attachingLocationProperty().get();
                    return p == null ? "No database attached" : shortName(p);
                },
                vm.attachedLocationProperty(),
                vm.attachment().attachingLocationProperty());
        path.textProperty()
                .bind(Bindings.when(bar.level.greaterThanOrEqualTo(SHORT_PATH))
                        .then(whereShort)
                        .otherwise(where));
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
        schema.visibleProperty().bind(bar.level.lessThan(NO_SCHEMA));
        schema.managedProperty().bind(schema.visibleProperty());
        Label version = new Label();
        version.setId("status-change-marker");
        version.textProperty()
                .bind(Bindings.createStringBinding(
                        () -> ledger.dataVersionProperty().get() < 0
                                ? ""
                                : "change " + ledger.dataVersionProperty().get(),
                        ledger.dataVersionProperty()));
        version.visibleProperty().bind(bar.level.lessThan(NO_CHANGE_MARKER));
        version.managedProperty().bind(version.visibleProperty());
        // whatever the status bar leaves out for room, the database's tooltip says whole
        Tooltip whole = new Tooltip();
        whole.textProperty()
                .bind(Bindings.createStringBinding(
                        () -> String.join(
                                " \u00b7 ",
                                java.util.stream.Stream.of(where.get(), schema.getText(), version.getText())
                                        .filter(t -> !t.isEmpty())
                                        .toList()),
                        where,
                        schema.textProperty(),
                        version.textProperty()));
        path.setTooltip(whole);
        Label refreshed = new Label();
        refreshed.setId("status-refresh");
        StringBinding refreshWhole = Bindings.createStringBinding(
                () -> vm.attachedLocationProperty().get() == null
                        ? ""
                        : vm.statusLine().refreshTextProperty().get(),
                vm.attachedLocationProperty(),
                vm.statusLine().refreshTextProperty());
        StringBinding refreshBrief = Bindings.createStringBinding(
                () -> vm.attachedLocationProperty().get() == null
                        ? ""
                        : vm.statusLine().refreshShortProperty().get(),
                vm.attachedLocationProperty(),
                vm.statusLine().refreshShortProperty());
        refreshed
                .textProperty()
                .bind(Bindings.when(bar.level.greaterThanOrEqualTo(SHORT_REFRESH))
                        .then(refreshBrief)
                        .otherwise(refreshWhole));

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
        StringBinding alertsWhole = Bindings.createStringBinding(
                () -> alertsText(alerts.unseenProperty().get(), false), alerts.unseenProperty());
        StringBinding alertsBadge = Bindings.createStringBinding(
                () -> alertsText(alerts.unseenProperty().get(), true), alerts.unseenProperty());
        alert.textProperty()
                .bind(Bindings.when(bar.level.greaterThanOrEqualTo(BADGE_ALERTS))
                        .then(alertsBadge)
                        .otherwise(alertsWhole));
        alert.visibleProperty().bind(alerts.unseenProperty().greaterThan(0));
        alert.managedProperty().bind(alert.visibleProperty());
        Tooltip said = new Tooltip();
        said.setWrapText(true);
        said.setMaxWidth(520);
        said.textProperty()
                .bind(Bindings.createStringBinding(
                        () -> alertsWhole.get() + ": " + ALERTS_HINT
                                + (alerts.latestProperty().get().isEmpty()
                                        ? ""
                                        : "\nLatest: " + alerts.latestProperty().get()),
                        alertsWhole,
                        alerts.latestProperty()));
        alert.setTooltip(said);
        alert.setOnAction(e -> vm.banners().showAlerts());
        // the ledger's size on disk, as 'sovereign status' says it; red when its disk runs low (decision 0606)
        Label size = new Label();
        size.setId("status-size");
        StringBinding sizeText = Bindings.createStringBinding(
                () -> sizeText(ledger.storageProperty().get()), ledger.storageProperty());
        size.textProperty().bind(sizeText);
        size.visibleProperty().bind(bar.level.lessThan(NO_SIZE).and(sizeText.isNotEmpty()));
        size.managedProperty().bind(size.visibleProperty());
        ledger.storageProperty().addListener((obs, o, st) -> {
            size.getStyleClass().remove(atlantafx.base.theme.Styles.DANGER);
            if (st != null && st.lowOnDisk()) {
                size.getStyleClass().add(atlantafx.base.theme.Styles.DANGER);
            }
        });
        Tooltip sizeDetail = new Tooltip();
        sizeDetail.setWrapText(true);
        sizeDetail.setMaxWidth(520);
        sizeDetail
                .textProperty()
                .bind(Bindings.createStringBinding(
                        () -> {
                            LedgerStorage st = ledger.storageProperty().get();
                            return st == null
                                    ? ""
                                    : "On disk: " + st.sizeText() + "\nGrowth: " + st.growthText() + "\n"
                                            + st.diskText()
                                            + (st.warning().isEmpty() ? "" : "\n" + st.warning())
                                            + "\nThe Supervisor page's Ledger section says more.";
                        },
                        ledger.storageProperty()));
        size.setTooltip(sizeDetail);
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
        bar.getChildren()
                .setAll(healthBox, path, security, schema, version, size, history, grow, exportBox, alert, refreshed);
        bar.shortened(schema, NO_SCHEMA, schema.textProperty());
        bar.shortened(version, NO_CHANGE_MARKER, version.textProperty());
        bar.shortened(size, NO_SIZE, sizeText);
        bar.shortened(path, SHORT_PATH, where, whereShort);
        bar.shortened(refreshed, SHORT_REFRESH, refreshWhole, refreshBrief);
        bar.shortened(alert, BADGE_ALERTS, alertsWhole, alertsBadge);
        bar.setId("status-bar");
        bar.getStyleClass().add("status-bar");
        return bar;
    }

    /** What the alerts button says: {@code 2 alerts}, or as a badge when the bar is short of room, {@code ⚠ 2}. */
    static String alertsText(int n, boolean badge) {
        return badge ? "\u26a0 " + n : n == 1 ? "1 alert" : n + " alerts";
    }

    /** {@code 1.6 MB on disk}, or with {@code disk nearly full} when its disk runs low; empty before the first read. */
    static String sizeText(LedgerStorage st) {
        if (st == null) {
            return "";
        }
        String on = LedgerMetrics.bytes(st.metrics().sizeBytes()) + " on disk";
        return st.lowOnDisk() ? on + " \u00b7 disk nearly full" : on;
    }

    /** A file by its name, a server by its host and database: what tells two ledgers apart at a glance. */
    static String shortName(LedgerLocation where) {
        if (where.file().isPresent()) {
            Path name = where.file().get().getFileName();
            return name == null ? where.toString() : name.toString();
        }
        String url = where.toString();
        int scheme = url.indexOf("//");
        String rest = scheme < 0 ? url : url.substring(scheme + 2);
        int query = rest.indexOf('?');
        rest = query < 0 ? rest : rest.substring(0, query);
        int at = rest.lastIndexOf('@');
        return at < 0 ? rest : rest.substring(at + 1);
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

    /**
     * The bar itself: before each layout it picks the first level at which every item fits whole, measuring the
     * texts each level would show (nothing is changed to find out, so a bar that fits is never laid out again for
     * it).
     */
    static final class Fitting extends HBox {
        final IntegerProperty level = new SimpleIntegerProperty(this, "level");
        private final Map<Node, Shortened> shortened = new HashMap<>();
        private final Text measure = new Text();

        /** {@code item} shows {@code whole}, and from {@code from} on {@code brief} (none: it is left out). */
        void shortened(Labeled item, int from, ObservableStringValue whole, ObservableStringValue... brief) {
            shortened.put(item, new Shortened(item, from, whole, brief.length == 0 ? null : brief[0]));
            whole.addListener(o -> requestLayout());
            for (ObservableStringValue b : brief) {
                b.addListener(o -> requestLayout());
            }
        }

        private record Shortened(Labeled item, int from, ObservableStringValue whole, ObservableStringValue brief) {}

        /** The width the items need at {@code l}, or more. */
        double need(int l) {
            double sum = snappedLeftInset() + snappedRightInset();
            int shown = 0;
            for (Node n : getChildren()) {
                Shortened s = shortened.get(n);
                if (s != null && s.item() instanceof Button && !n.isVisible()) {
                    continue; // the alerts button, hidden while there are none
                }
                if (s == null && !n.isManaged()) {
                    continue;
                }
                double w;
                if (s == null) {
                    w = n.prefWidth(-1);
                } else if (l >= s.from() && s.brief() == null) {
                    continue;
                } else {
                    w = width(
                            s.item(),
                            l >= s.from() ? s.brief().get() : s.whole().get());
                }
                sum += w;
                shown++;
            }
            return sum + snapSpaceX(getSpacing()) * Math.max(0, shown - 1);
        }

        private double width(Labeled l, String text) {
            measure.setFont(l.getFont());
            measure.setText(text == null ? "" : text);
            return Math.ceil(measure.getLayoutBounds().getWidth())
                    + l.snappedLeftInset()
                    + l.snappedRightInset()
                    + l.getLabelPadding().getLeft()
                    + l.getLabelPadding().getRight()
                    + 1; // rounding: a text a fraction too wide for its room is drawn with an ellipsis
        }

        @Override
        protected void layoutChildren() {
            int l = 0;
            while (l < SHORT_PATH && need(l) > getWidth()) {
                l++;
            }
            if (l != level.get()) {
                level.set(l);
            }
            super.layoutChildren();
        }
    }
}
