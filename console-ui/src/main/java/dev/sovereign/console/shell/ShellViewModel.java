package dev.sovereign.console.shell;

import dev.sovereign.console.feature.leases.LeasesViewModel;
import dev.sovereign.console.feature.mailbox.MailboxViewModel;
import dev.sovereign.console.feature.processes.ProcessesViewModel;
import dev.sovereign.console.feature.rejections.RejectionsViewModel;
import dev.sovereign.console.feature.runs.RunsViewModel;
import dev.sovereign.console.feature.supervisor.SupervisorViewModel;
import dev.sovereign.console.feature.timeline.TimelineViewModel;
import dev.sovereign.console.fx.UiExecutor;
import dev.sovereign.console.ledger.Formats;
import dev.sovereign.console.ledger.Health;
import dev.sovereign.console.ledger.LedgerPoller;
import dev.sovereign.console.ledger.LiveLedger;
import dev.sovereign.engine.admin.AdminReader;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.ZoneId;
import java.util.List;
import javafx.beans.binding.Bindings;
import javafx.beans.property.ObjectProperty;
import javafx.beans.property.ReadOnlyBooleanProperty;
import javafx.beans.property.ReadOnlyBooleanWrapper;
import javafx.beans.property.ReadOnlyDoubleProperty;
import javafx.beans.property.ReadOnlyDoubleWrapper;
import javafx.beans.property.ReadOnlyObjectProperty;
import javafx.beans.property.ReadOnlyObjectWrapper;
import javafx.beans.property.ReadOnlyStringProperty;
import javafx.beans.property.ReadOnlyStringWrapper;
import javafx.beans.property.SimpleObjectProperty;
import javafx.collections.FXCollections;
import javafx.collections.ObservableList;

/**
 * The console's top-level state and commands: which database is attached (and attaching one),
 * which page shows, the banner, the theme, recent files, refresh and CSV export. Owns the live
 * ledger, its poller and every feature's view model. Never touches {@code javafx.scene}; all
 * database work goes through the {@link UiExecutor}'s background threads.
 *
 * <p>UI-thread confined.
 */
public final class ShellViewModel implements AutoCloseable {
    /** Opens a reader on a file; the app uses {@link AdminReader#open(Path)}, tests may count calls. */
    @FunctionalInterface
    public interface ReaderOpener {
        AdminReader open(Path database);
    }

    private final ConsoleSettings settings;
    private final UiExecutor ui;
    private final Clock clock;
    private final ReaderOpener opener;
    private final Duration pollInterval;
    private final Formats formats;
    private final LiveLedger ledger = new LiveLedger();

    private final ReadOnlyObjectWrapper<Path> attached = new ReadOnlyObjectWrapper<>(this, "attached");
    private final ReadOnlyObjectWrapper<Path> attaching = new ReadOnlyObjectWrapper<>(this, "attaching");
    private final ObjectProperty<Page> page = new SimpleObjectProperty<>(this, "page", Page.LEASES);
    private final ReadOnlyObjectWrapper<Banner> banner = new ReadOnlyObjectWrapper<>(this, "banner");
    private final ObjectProperty<ConsoleTheme> theme = new SimpleObjectProperty<>(this, "theme");
    private final ObservableList<Path> recentFiles = FXCollections.observableArrayList();
    /** Made once: a fresh unmodifiable wrapper per call would drop listeners when collected. */
    private final ObservableList<Path> recentFilesView = FXCollections.unmodifiableObservableList(recentFiles);
    private final ReadOnlyBooleanWrapper exporting = new ReadOnlyBooleanWrapper(this, "exporting");
    private final ReadOnlyDoubleWrapper exportProgress = new ReadOnlyDoubleWrapper(this, "exportProgress");
    private final ReadOnlyStringWrapper refreshText = new ReadOnlyStringWrapper(this, "refreshText", "");

    private final LeasesViewModel leases;
    private final TimelineViewModel timeline;
    private final RejectionsViewModel rejections;
    private final RunsViewModel runs;
    private final MailboxViewModel mailbox;
    private final ProcessesViewModel processes;
    private final SupervisorViewModel supervisor;

    private AdminReader reader;
    private LedgerPoller poller;
    private long attachGeneration;

    /**
     * @param pollInterval how often the poller checks {@code data_version}; {@link Duration#ZERO} means
     *                     never by itself (tests call {@link #pollNow()})
     */
    public ShellViewModel(ConsoleSettings settings, UiExecutor ui, Clock clock, ZoneId zone, ReaderOpener opener,
                          Duration pollInterval) {
        this.settings = settings;
        this.ui = ui;
        this.clock = clock;
        this.opener = opener;
        this.pollInterval = pollInterval;
        this.formats = new Formats(zone);
        ledger.tick(clock.millis());
        theme.set(settings.theme());
        theme.addListener((obs, old, t) -> settings.setTheme(t));
        recentFiles.setAll(settings.recentFiles());
        leases = new LeasesViewModel(ledger);
        timeline = new TimelineViewModel(ledger, formats);
        rejections = new RejectionsViewModel(ledger, formats);
        runs = new RunsViewModel(ledger, formats);
        mailbox = new MailboxViewModel(ledger);
        processes = new ProcessesViewModel(ledger);
        supervisor = new SupervisorViewModel(ledger, formats);
        ledger.healthProperty().addListener((obs, old, h) -> onHealth(h));
        refreshText.bind(Bindings.createStringBinding(() -> {
            long at = ledger.lastRefreshProperty().get();
            return at == 0 ? "not refreshed yet"
                    : "refreshed " + formats.time(at) + " (" + Formats.age(at, ledger.now()) + ")";
        }, ledger.lastRefreshProperty(), ledger.nowProperty()));
    }

    // ---- attaching ----

    /** Attaches {@code file} in the background; on failure the banner says why and nothing stays attached. */
    public void attach(Path file) {
        Path target = file.toAbsolutePath().normalize();
        detach();
        long generation = ++attachGeneration;
        attaching.set(target);
        ledger.connecting();
        ui.background(() -> opener.open(target), r -> {
            if (generation != attachGeneration) {
                r.close();
                return;
            }
            attaching.set(null);
            reader = r;
            poller = new LedgerPoller(r, ledger, ui, clock);
            attached.set(target);
            recentFiles.setAll(settings.addRecent(target));
            if (banner.get() != null && banner.get().severity() != Banner.Severity.SUCCESS) {
                banner.set(null);
            }
            if (pollInterval.isZero()) {
                poller.pollOnce();
            } else {
                poller.start(pollInterval);
            }
        }, problem -> {
            if (generation != attachGeneration) {
                return;
            }
            attaching.set(null);
            ledger.detached();
            banner.set(Banner.cannotOpen(target, problem));
        });
    }

    /** Stops watching the attached database (the welcome page shows again). */
    public void detach() {
        attachGeneration++;
        if (poller != null) {
            poller.close();
            poller = null;
        }
        if (reader != null) {
            AdminReader r = reader;
            reader = null;
            ui.background(() -> {
                r.close();
                return null;
            }, x -> { }, x -> { });
        }
        attached.set(null);
        attaching.set(null);
        ledger.detached();
        if (banner.get() != null && banner.get().connection()) {
            banner.set(null);
        }
    }

    public void forgetRecent(Path file) {
        recentFiles.setAll(settings.removeRecent(file));
    }

    /** Forces the next poll to read a snapshot even if nothing changed (F5). */
    public void refresh() {
        if (poller != null) {
            poller.requestRefresh();
            if (pollInterval.isZero()) {
                poller.pollOnce();
            }
        }
    }

    /** One poll on the calling thread (tests with a zero poll interval). */
    public void pollNow() {
        if (poller != null) {
            poller.pollOnce();
        }
    }

    /** Advances the console clock; the app's ticker calls this ten times a second. */
    public void tick(long now) {
        ledger.tick(now);
    }

    // ---- export ----

    /** Writes the journal to {@code target} as CSV in the background; progress and the outcome show. */
    public void exportJournal(Path target) {
        AdminReader r = reader;
        if (r == null || exporting.get()) {
            return;
        }
        exporting.set(true);
        exportProgress.set(-1);
        ui.background(() -> r.exportJournalCsv(target, (done, total) ->
                ui.onUi(() -> exportProgress.set(total == 0 ? 1 : (double) done / total))), n -> {
                    exporting.set(false);
                    exportProgress.set(1);
                    banner.set(Banner.info("Journal exported", n + (n == 1 ? " event" : " events")
                            + " written to " + target.toAbsolutePath().normalize() + "."));
                }, problem -> {
                    exporting.set(false);
                    banner.set(new Banner(Banner.Severity.DANGER, "Export failed", Banner.oneLine(problem), false));
                });
    }

    // ---- banner, theme, page ----

    public void dismissBanner() {
        banner.set(null);
    }

    public void toggleTheme() {
        theme.set(theme.get().other());
    }

    private void onHealth(Health h) {
        if (h == Health.BUSY || h == Health.FAILING) {
            banner.set(Banner.connectionTrouble(h == Health.BUSY, ledger.healthDetailProperty().get()));
        } else if (h == Health.CONNECTED && banner.get() != null && banner.get().connection()) {
            banner.set(null);
        }
    }

    // ---- properties ----

    public ReadOnlyObjectProperty<Path> attachedProperty() {
        return attached.getReadOnlyProperty();
    }

    /** The file being opened right now, or null. */
    public ReadOnlyObjectProperty<Path> attachingProperty() {
        return attaching.getReadOnlyProperty();
    }

    public ObjectProperty<Page> pageProperty() {
        return page;
    }

    public ReadOnlyObjectProperty<Banner> bannerProperty() {
        return banner.getReadOnlyProperty();
    }

    public ObjectProperty<ConsoleTheme> themeProperty() {
        return theme;
    }

    public ObservableList<Path> recentFiles() {
        return recentFilesView;
    }

    public ReadOnlyBooleanProperty exportingProperty() {
        return exporting.getReadOnlyProperty();
    }

    /** 0..1, or -1 while the total is not known yet. */
    public ReadOnlyDoubleProperty exportProgressProperty() {
        return exportProgress.getReadOnlyProperty();
    }

    /** {@code refreshed 10:42:07 (0.3 s ago)}. */
    public ReadOnlyStringProperty refreshTextProperty() {
        return refreshText.getReadOnlyProperty();
    }

    public Path lastDirectory() {
        return settings.lastDirectory();
    }

    public LiveLedger ledger() {
        return ledger;
    }

    public Formats formats() {
        return formats;
    }

    public LeasesViewModel leases() {
        return leases;
    }

    public TimelineViewModel timeline() {
        return timeline;
    }

    public RejectionsViewModel rejections() {
        return rejections;
    }

    public RunsViewModel runs() {
        return runs;
    }

    public MailboxViewModel mailbox() {
        return mailbox;
    }

    public ProcessesViewModel processes() {
        return processes;
    }

    public SupervisorViewModel supervisor() {
        return supervisor;
    }

    public List<Page> pages() {
        return List.of(Page.values());
    }

    @Override
    public void close() {
        detach();
        ui.close();
    }
}
