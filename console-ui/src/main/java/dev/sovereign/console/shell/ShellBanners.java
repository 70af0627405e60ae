package dev.sovereign.console.shell;

import dev.sovereign.console.fx.UiExecutor;
import dev.sovereign.console.ledger.Health;
import dev.sovereign.console.ledger.LedgerStorage;
import dev.sovereign.console.ledger.Links;
import dev.sovereign.console.ledger.LiveLedger;
import dev.sovereign.engine.admin.AdminSnapshot;
import dev.sovereign.engine.base.LedgerLocation;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import javafx.beans.property.ObjectProperty;
import javafx.beans.value.ObservableBooleanValue;

/**
 * The banner across the top, as far as the shell itself puts one up or takes it down: the connection's trouble,
 * a problem, the demo's notice going with the demo, and the alerts ({@link Alerts}: a run turned worker-lost,
 * refused writes spiked) — counted in the status bar, one across the top on request, on the desktop where it offers
 * that. The banner itself is the shell view model's; every part of the shell that says something sets it.
 *
 * <p>UI-thread confined.
 */
public final class ShellBanners {
    private final ObjectProperty<Banner> banner;
    private final LiveLedger ledger;
    private final UiExecutor ui;
    private final Links links;
    private final ObjectProperty<Page> page;
    private final Alerts alerts;
    /** The banner {@link #showAlerts} put up about a run, and that run. */
    private Banner alertBanner;

    private String alertRun;

    /**
     * @param banner      the banner across the top
     * @param links       where the alert about a run goes: to that run
     * @param page        the page shown (an alert not about a run shows the Rejections page)
     * @param demoRunning whether a demo runs: its notice goes with it
     */
    ShellBanners(
            ObjectProperty<Banner> banner,
            LiveLedger ledger,
            UiExecutor ui,
            ConsoleSettings settings,
            Links links,
            ObjectProperty<Page> page,
            ObservableBooleanValue demoRunning) {
        this.banner = banner;
        this.ledger = ledger;
        this.ui = ui;
        this.links = links;
        this.page = page;
        ledger.healthProperty().addListener((obs, old, h) -> onHealth(h));
        // the demo's notice goes with the demo: not over the sandbox, the welcome page or another file
        demoRunning.addListener((obs, was, running) -> {
            if (!running && banner.get() != null && banner.get().isDemoNotice()) {
                banner.set(null);
            }
        });
        // decision 0606: the disk holding the ledger's file runs low; said across the top when it starts (a dismissed
        // warning stays dismissed until the disk had room again), gone when there is room or the ledger is let go
        ledger.storageProperty().addListener((obs, old, s) -> onStorage(s));
        alerts = new Alerts(ledger);
        ledger.snapshotProperty().addListener((obs, old, s) -> dropResolvedAlertBanner(s));
        alerts.enabledProperty().set(settings.alerts());
        alerts.enabledProperty().addListener((obs, was, on) -> settings.setAlerts(on));
        alerts.unseenProperty().addListener((obs, was, n) -> {
            if (n.intValue() > was.intValue()) {
                notifyDesktop(alerts.latestProperty().get());
            }
        });
    }

    /** A run turned worker-lost, refused writes spiked: one sentence each, counted in the status bar. */
    public Alerts alerts() {
        return alerts;
    }

    /**
     * The status bar's alert button: the oldest run that needs the operator opened on Runs, selected, and its
     * sentence across the top (its id a link); when the latest alert is a spike of refusals not yet looked at, that
     * alert and the Rejections page.
     */
    public void showAlerts() {
        String run = alerts.spikeIsNews() ? null : alerts.runToOpen();
        String said = run == null ? alerts.latestProperty().get() : alerts.runToOpenSentence();
        if (said.isEmpty()) {
            return;
        }
        Banner b = new Banner(Banner.Severity.WARNING, "Alert", said, false);
        banner.set(b);
        alertBanner = run == null ? null : b;
        alertRun = run;
        if (run != null) {
            links.openAssignment(run); // the run itself, selected, whatever the filter or the search (issue 31)
        } else {
            page.set(Page.REJECTIONS);
        }
        alerts.seen();
    }

    /** The alert banner about a run, gone once that run is retried or acknowledged. */
    private void dropResolvedAlertBanner(AdminSnapshot s) {
        if (s == null || alertBanner == null || banner.get() != alertBanner) {
            return;
        }
        s.assignments().stream()
                .filter(a -> a.id().equals(alertRun))
                .findFirst()
                .ifPresent(a -> {
                    if (!a.needsOperator()) {
                        banner.set(null);
                        alertBanner = null;
                    }
                });
    }

    /**
     * Also on the desktop, where the desktop offers it: Linux's {@code notify-send}, started in the
     * background; without it the status bar is the only sign.
     */
    private void notifyDesktop(String sentence) {
        Path tool = null;
        for (String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
            Path p = Path.of(dir, "notify-send");
            if (Files.isExecutable(p)) {
                tool = p;
                break;
            }
        }
        if (tool == null || Boolean.getBoolean("sovereign.console.noDesktopNotifications")) {
            return;
        }
        Path found = tool;
        ui.background(
                () -> new ProcessBuilder(
                                found.toString(), "--app-name=Sovereign console", "Sovereign console", sentence)
                        .redirectErrorStream(true)
                        .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                        .start(),
                p -> {},
                problem -> {});
    }

    /** Shows one problem across the top; its text never shows a secret of a URL in it. */
    public void showProblem(String title, String sentence) {
        banner.set(new Banner(Banner.Severity.DANGER, title, LedgerLocation.redactUrlsIn(sentence), false));
    }

    public void dismissBanner() {
        banner.set(null);
    }

    /** Whether the last storage read found the disk low: the banner goes up only when that starts. */
    private boolean diskLow;

    private void onStorage(LedgerStorage s) {
        Banner now = banner.get();
        if (s == null) { // let go, or another ledger is opening: its own read decides
            if (now != null && now.isDiskWarning()) {
                banner.set(null);
            }
            diskLow = false;
            return;
        }
        boolean low = s.lowOnDisk();
        if (low && (!diskLow || (now != null && now.isDiskWarning()))) {
            // a problem (a red banner: a ledger that would not open, an action that failed) keeps the top
            if (now == null || now.severity() != Banner.Severity.DANGER) {
                banner.set(Banner.diskLow(s.warning()));
            }
        } else if (!low && now != null && now.isDiskWarning()) {
            banner.set(null);
        }
        diskLow = low;
    }

    private void onHealth(Health h) {
        if (h == Health.BUSY || h == Health.FAILING) {
            banner.set(Banner.connectionTrouble(
                    h == Health.BUSY, ledger.healthDetailProperty().get()));
        } else if (h == Health.CONNECTED && banner.get() != null && banner.get().connection()) {
            banner.set(null);
        }
    }
}
