package dev.sovereign.console.shell;

import dev.sovereign.console.actions.OperatorDesk;
import dev.sovereign.console.feature.lab.LabViewModel;
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
import dev.sovereign.console.ledger.Search;
import dev.sovereign.engine.admin.AdminReader;
import dev.sovereign.engine.base.LedgerLocation;
import dev.sovereign.engine.base.StorageException;
import dev.sovereign.engine.admin.OperatorActions;
import dev.sovereign.engine.lab.Demo;
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
import javafx.beans.property.StringProperty;
import javafx.beans.property.ReadOnlyStringWrapper;
import javafx.beans.property.SimpleObjectProperty;
import javafx.collections.FXCollections;
import javafx.collections.ObservableList;
import dev.sovereign.engine.Ledgers;

/**
 * The console's top-level state and commands: which database is attached (and attaching one),
 * which page shows, the banner, the theme, recent files, refresh, CSV export, the operator actions'
 * {@link OperatorDesk} and the demo. Owns the live ledger, its poller and every feature's view model.
 * Never touches {@code javafx.scene}; all database work goes through the {@link UiExecutor}'s
 * background threads.
 *
 * <p>The demo ({@link #startDemo()}) lives in its {@link DemoSession}: a fresh database with real
 * worker processes, attached like any other file, with this console's supervisor ticking every second.
 * Attaching another file, closing the database or closing the console stops it and every process it
 * started.
 *
 * <p>UI-thread confined.
 */
public final class ShellViewModel implements AutoCloseable, dev.sovereign.console.ledger.Links {
    /** Opens a reader on a file; the app uses {@code Ledgers.openReader}, tests may count calls. */
    @FunctionalInterface
    public interface ReaderOpener {
        AdminReader open(Path database);

        /** Opens a reader whose sentences write times in {@code zone}; by default the same as {@link #open(Path)}. */
        default AdminReader open(Path database, ZoneId zone) {
            return open(database);
        }

        /**
         * Opens a reader on a file or a server; by default a file through {@link #open(Path, ZoneId)} and a server
         * refused (the app's opener reads servers through {@code Ledgers.openReader(LedgerLocation, …)}).
         */
        default AdminReader open(LedgerLocation location, ZoneId zone) {
            return open(location.file().orElseThrow(() -> new StorageException(StorageException.Problem.IO, null,
                    "This console cannot read a server (" + location + ").", null)), zone);
        }
    }

    /** Starts a demo on a fresh database; the app's makes one in the user's data folder. */
    @FunctionalInterface
    public interface DemoStarter extends DemoSession.Starter {
    }

    /** The system property naming another folder for demo databases (tests use a temporary one). */
    public static final String DEMO_FOLDER_PROPERTY = DemoSession.FOLDER_PROPERTY;
    /** How often this console's supervisor ticks in the demo. */
    public static final Duration DEMO_SUPERVISOR_INTERVAL = DemoSession.SUPERVISOR_INTERVAL;

    private final ConsoleSettings settings;
    private final UiExecutor ui;
    private final Clock clock;
    private final ReaderOpener opener;
    private final Duration pollInterval;
    private final Formats formats;
    private final LiveLedger ledger = new LiveLedger();
    private final ReadOnlyStringWrapper searchSummary = new ReadOnlyStringWrapper(this, "searchSummary", "");
    private final javafx.beans.property.BooleanProperty utcTimes =
            new javafx.beans.property.SimpleBooleanProperty(this, "utcTimes");
    private final ReadOnlyStringWrapper zoneText = new ReadOnlyStringWrapper(this, "zoneText", "");
    private final Alerts alerts;
    /** The banner {@link #showAlerts} put up about a run, and that run. */
    private Banner alertBanner;
    private String alertRun;
    private final java.util.Deque<Place> backStack = new java.util.ArrayDeque<>();
    private final java.util.Deque<Place> forwardStack = new java.util.ArrayDeque<>();
    private final ReadOnlyBooleanWrapper canBack = new ReadOnlyBooleanWrapper(this, "canBack");
    private final ReadOnlyBooleanWrapper canForward = new ReadOnlyBooleanWrapper(this, "canForward");
    /** Set while Back or Forward moves, so the move itself is not recorded. */
    private boolean moving;
    /** The search as it was when the page last changed (typing is not a move; changing page is). */
    private String searchAtLastMove = "";
    private final dev.sovereign.console.feature.trends.TrendsViewModel trends;
    /** Set while the supervisor stops because the database is let go: then no warning is due. */
    private boolean supervisorStoppedByDetach;
    private final OperatorDesk desk;
    private final DemoSession demoSession;

    /** The attached FILE (null while a server is attached): the lab and file-only features follow it. */
    private final ReadOnlyObjectWrapper<Path> attached = new ReadOnlyObjectWrapper<>(this, "attached");
    private final ReadOnlyObjectWrapper<Path> attaching = new ReadOnlyObjectWrapper<>(this, "attaching");
    /** The attached ledger, file or server: what the window shows as attached. */
    private final ReadOnlyObjectWrapper<LedgerLocation> attachedLocation = new ReadOnlyObjectWrapper<>(this,
            "attachedLocation");
    /** The attached SERVER ledger with its password (null for a file or nothing): the lab's workers need it. */
    private final ReadOnlyObjectWrapper<LedgerLocation> attachedServerWithSecrets = new ReadOnlyObjectWrapper<>(this,
            "attachedServerWithSecrets");
    private final ReadOnlyObjectWrapper<LedgerLocation> attachingLocation = new ReadOnlyObjectWrapper<>(this,
            "attachingLocation");
    /** How the attached reader's connection travels ("local file", "TLS (TLSv1.3)", "not encrypted"). */
    private final ReadOnlyStringWrapper connectionSecurity = new ReadOnlyStringWrapper(this, "connectionSecurity", "");
    /** The long form of {@link #connectionSecurity}, for its tooltip (decision 0906). */
    private final ReadOnlyStringWrapper connectionDetail = new ReadOnlyStringWrapper(this, "connectionDetail", "");
    /**
     * The servers opened in this session with their secrets, by their URL without them: a recent entry (stored
     * without its password) reopens with the password typed earlier in this session. Never written anywhere.
     */
    private final java.util.Map<LedgerLocation, LedgerLocation> secretsThisSession = new java.util.HashMap<>();
    private final ObjectProperty<Page> page = new SimpleObjectProperty<>(this, "page", Page.LEASES);
    private final ReadOnlyObjectWrapper<Banner> banner = new ReadOnlyObjectWrapper<>(this, "banner");
    private final ObjectProperty<ConsoleTheme> theme = new SimpleObjectProperty<>(this, "theme");
    private final ObservableList<LedgerLocation> recentFiles = FXCollections.observableArrayList();
    /** Made once: a fresh unmodifiable wrapper per call would drop listeners when collected. */
    private final ObservableList<LedgerLocation> recentFilesView = FXCollections.unmodifiableObservableList(recentFiles);
    private final ReadOnlyBooleanWrapper exporting = new ReadOnlyBooleanWrapper(this, "exporting");
    private final ReadOnlyDoubleWrapper exportProgress = new ReadOnlyDoubleWrapper(this, "exportProgress");
    private final ReadOnlyStringWrapper refreshText = new ReadOnlyStringWrapper(this, "refreshText", "");
    /** What the ledger's history says needs an operator (it went backwards; its counter is damaged); empty: nothing. */
    private final ReadOnlyStringWrapper ledgerAlarm = new ReadOnlyStringWrapper(this, "ledgerAlarm", "");
    private final ReadOnlyStringWrapper ledgerAlarmShort = new ReadOnlyStringWrapper(this, "ledgerAlarmShort", "");

    private final LeasesViewModel leases;
    private final TimelineViewModel timeline;
    private final RejectionsViewModel rejections;
    private final RunsViewModel runs;
    private final MailboxViewModel mailbox;
    private final ProcessesViewModel processes;
    private final SupervisorViewModel supervisor;
    private final LabViewModel lab;
    /** The actor or process the Actor / Process page shows (null before the first link). */
    private final ObjectProperty<dev.sovereign.engine.admin.JournalSubject> subject =
            new SimpleObjectProperty<>(this, "subject");
    private final dev.sovereign.console.feature.actor.ActorPageViewModel actorPage;
    private final dev.sovereign.console.feature.process.ProcessPageViewModel processPage;
    private final dev.sovereign.console.feature.processes.StopProcessAction stopProcess;
    private final javafx.beans.binding.BooleanBinding canStopSelected;

    private AdminReader reader;
    private LedgerPoller poller;
    private long attachGeneration;

    /**
     * With the real operator actions (on {@code clock}) and the real demo (in the user's data folder, or
     * the folder named by {@value #DEMO_FOLDER_PROPERTY}).
     *
     * @param pollInterval how often the poller checks the reader's change marker; {@link Duration#ZERO} means
     *                     never by itself (tests call {@link #pollNow()})
     */
    public ShellViewModel(ConsoleSettings settings, UiExecutor ui, Clock clock, ZoneId zone, ReaderOpener opener,
                          Duration pollInterval) {
        this(settings, ui, clock, zone, opener, pollInterval, location -> Ledgers.openOperatorActions(location, clock),
                () -> Demo.start(Demo.Settings.defaults(Demo.newDatabase(demoFolder(), clock))));
    }

    public ShellViewModel(ConsoleSettings settings, UiExecutor ui, Clock clock, ZoneId zone, ReaderOpener opener,
                          Duration pollInterval, OperatorDesk.ActionsOpener actions, DemoStarter demoStarter) {
        this.settings = settings;
        this.desk = new OperatorDesk(ui, actions);
        this.demoSession = new DemoSession(ui, demoStarter, this::detachFile, file -> attachFile(file, true),
                banner::set);
        this.ui = ui;
        this.clock = clock;
        this.opener = opener;
        this.pollInterval = pollInterval;
        this.formats = new Formats(zone);
        formats.showUtc(settings.utcTimes());
        utcTimes.set(settings.utcTimes());
        utcTimes.addListener((obs, was, utc) -> switchZone(utc));
        ledger.tick(clock.millis());
        theme.set(settings.theme());
        theme.addListener((obs, old, t) -> settings.setTheme(t));
        recentFiles.setAll(settings.recentLocations());
        leases = new LeasesViewModel(ledger);
        timeline = new TimelineViewModel(ledger, formats);
        rejections = new RejectionsViewModel(ledger, formats);
        runs = new RunsViewModel(ledger, formats, desk);
        mailbox = new MailboxViewModel(ledger);
        processes = new ProcessesViewModel(ledger);
        stopProcess = new dev.sovereign.console.feature.processes.StopProcessAction(ledger, desk);
        actorPage = new dev.sovereign.console.feature.actor.ActorPageViewModel(ledger, formats, subject);
        processPage = new dev.sovereign.console.feature.process.ProcessPageViewModel(ledger, formats, subject,
                new dev.sovereign.console.feature.processes.StopProcessAction(ledger, desk));
        canStopSelected = javafx.beans.binding.Bindings.createBooleanBinding(
                () -> stopTarget().canStopProperty().get(), page, stopProcess.canStopProperty(),
                processPage.stop().canStopProperty());
        // the poller reads the journal rows about the subject only while its page shows
        javafx.beans.InvalidationListener watch = o -> {
            if (poller != null) {
                Page p = page.get();
                poller.watch(p == Page.ACTOR || p == Page.PROCESS ? subject.get() : null);
            }
        };
        subject.addListener(watch);
        page.addListener(watch);
        supervisor = new SupervisorViewModel(ledger, formats, desk);
        trends = new dev.sovereign.console.feature.trends.TrendsViewModel(ledger);
        lab = new LabViewModel(ledger, ui, attached.getReadOnlyProperty(), this::attach,
                LabViewModel.defaultSandboxDirectory());
        lab.serverProperty().bind(Bindings.createObjectBinding(() -> attachedLocation.get() == null
                || attachedLocation.get().isFile() ? null : attachedLocation.get().toString(), attachedLocation));
        lab.serverLedgerProperty().bind(attachedServerWithSecrets);
        ledger.healthProperty().addListener((obs, old, h) -> onHealth(h));
        // decisions 0604/0605: a ledger that went backwards issues no token until a fence bump; the status bar says so
        ledger.snapshotProperty().addListener((obs, old, snapshot) -> showLedgerAlarm(snapshot));
        // the demo's notice goes with the demo: not over the sandbox, the welcome page or another file
        demoSession.runningProperty().addListener((obs, was, running) -> {
            if (!running && banner.get() != null && banner.get().isDemoNotice()) {
                banner.set(null);
            }
        });
        searchSummary.bind(Bindings.createStringBinding(this::describeSearch, ledger.search().queryProperty(),
                leases.rows(), runs.assignments(), mailbox.rows(), processes.rows(), rejections.rows()));
        // Shift+F6 works on every page: stopping the supervisor is said once, across the top
        supervisor.autoTickingProperty().addListener((obs, was, ticking) -> {
            if (ticking) {
                if (banner.get() != null && banner.get().isAutoTickWarning()) {
                    banner.set(null);
                }
            } else if (attachedLocation.get() != null && !supervisorStoppedByDetach) {
                banner.set(Banner.autoTickOff());
            }
        });
        zoneText.set(formats.zoneText(clock.millis()));
        page.addListener((obs, from, to) -> {
            if (!moving && from != null) {
                backStack.push(new Place(from, searchAtLastMove, subject.get()));
                if (backStack.size() > 50) {
                    backStack.removeLast();
                }
                forwardStack.clear();
                canBack.set(true);
                canForward.set(false);
            }
            searchAtLastMove = ledger.search().queryProperty().get();
        });
        alerts = new Alerts(ledger);
        ledger.snapshotProperty().addListener((obs, old, s) -> dropResolvedAlertBanner(s));
        alerts.enabledProperty().set(settings.alerts());
        alerts.enabledProperty().addListener((obs, was, on) -> settings.setAlerts(on));
        alerts.unseenProperty().addListener((obs, was, n) -> {
            if (n.intValue() > was.intValue()) {
                notifyDesktop(alerts.latestProperty().get());
            }
        });
        timeline.spanProperty().addListener((obs, o, ms) -> {
            if (attached.get() != null) {
                settings.setTimelineSpan(attached.get(), ms.longValue());
            }
        });
        // the timeline is the costliest view to keep current: only while it shows
        timeline.activeProperty().bind(page.isEqualTo(Page.TIMELINE));
        trends.activeProperty().bind(page.isEqualTo(Page.TRENDS));
        actorPage.activeProperty().bind(page.isEqualTo(Page.ACTOR));
        processPage.activeProperty().bind(page.isEqualTo(Page.PROCESS));
        // whole seconds: a text that changed ten times a second laid the status bar out ten times a second
        javafx.beans.InvalidationListener showRefresh = o -> {
            long at = ledger.lastRefreshProperty().get();
            String text = at == 0 ? "not refreshed yet"
                    : "refreshed " + formats.time(at) + (formats.isUtc() ? " UTC" : "") + " ("
                    + Formats.secondsAgo(at, ledger.now()) + ")";
            if (!text.equals(refreshText.get())) {
                refreshText.set(text);
            }
        };
        ledger.lastRefreshProperty().addListener(showRefresh);
        ledger.nowProperty().addListener(showRefresh);
        utcTimes.addListener(showRefresh);
        showRefresh.invalidated(null);
    }

    // ---- the ledger's history ----

    private void showLedgerAlarm(dev.sovereign.engine.admin.AdminSnapshot snapshot) {
        String alarm = snapshot == null ? null : snapshot.history().alarm();
        ledgerAlarm.set(alarm == null ? "" : alarm);
        ledgerAlarmShort.set(alarm == null ? "" : snapshot.history().isWentBackwards()
                ? "Ledger went backwards: run 'sovereign fence bump'" : "Token counter damaged: restore a backup");
    }

    /**
     * The sentence of what the attached ledger's history needs from an operator — it went backwards (an engine had
     * seen a token above its counter: it issues no token until {@code sovereign fence bump}), or its token counter
     * is damaged — for the status bar's tooltip; empty when it needs nothing.
     */
    public ReadOnlyStringProperty ledgerAlarmProperty() {
        return ledgerAlarm.getReadOnlyProperty();
    }

    /** The same in a few words, for the status bar itself; empty when the ledger needs nothing. */
    public ReadOnlyStringProperty ledgerAlarmShortProperty() {
        return ledgerAlarmShort.getReadOnlyProperty();
    }

    // ---- time zone ----

    /** Whether times are shown in UTC (View → Show times in UTC); remembered. Off: the machine's zone. */
    public javafx.beans.property.BooleanProperty utcTimesProperty() {
        return utcTimes;
    }

    /** {@code local times (UTC+01:00)} or {@code times in UTC}, for the status bar. */
    public ReadOnlyStringProperty zoneTextProperty() {
        return zoneText.getReadOnlyProperty();
    }

    /**
     * Shows every time in the other zone. The journal's sentences are written by the reader, so the reader
     * is opened again with the new zone and the picture re-read (a moment; what this console is doing —
     * its supervisor, an action — goes on untouched).
     */
    private void switchZone(boolean utc) {
        formats.showUtc(utc);
        settings.setUtcTimes(utc);
        zoneText.set(formats.zoneText(clock.millis()));
        supervisor.zoneChanged();
        LedgerLocation target = attachedLocation.get();
        if (target == null) {
            return;
        }
        long generation = attachGeneration;
        LedgerLocation withSecrets = secretsThisSession.getOrDefault(target.withoutSecrets(), target);
        ui.background(() -> opener.open(withSecrets, formats.zone()), r -> {
            if (generation != attachGeneration || !target.equals(attachedLocation.get())) {
                r.close();
                return;
            }
            if (poller != null) {
                poller.close();
            }
            AdminReader old = reader;
            reader = r;
            if (old != null) {
                ui.background(() -> {
                    old.close();
                    return null;
                }, x -> { }, x -> { });
            }
            ledger.connecting();
            poller = new LedgerPoller(r, ledger, ui, clock);
            watchSubject();
            if (pollInterval.isZero()) {
                poller.pollOnce();
            } else {
                poller.start(pollInterval);
            }
        }, problem -> banner.set(Banner.cannotOpen(target, problem)));
    }

    private void watchSubject() {
        Page p = page.get();
        poller.watch(p == Page.ACTOR || p == Page.PROCESS ? subject.get() : null);
    }

    public dev.sovereign.console.feature.trends.TrendsViewModel trends() {
        return trends;
    }

    /** A run turned worker-lost, refused writes spiked: one sentence each, counted in the status bar. */
    public Alerts alerts() {
        return alerts;
    }

    /** The status bar's alert button: the last alert across the top, and the page it is about. */
    public void showAlerts() {
        String said = alerts.latestProperty().get();
        if (said.isEmpty()) {
            return;
        }
        String run = alerts.latestRun();
        Banner b = new Banner(Banner.Severity.WARNING, "Alert", said, false);
        banner.set(b);
        alertBanner = run == null ? null : b;
        alertRun = run;
        if (run != null) {
            openAssignment(run); // the run itself, selected, whatever the filter or the search (issue 31)
        } else {
            page.set(Page.REJECTIONS);
        }
        alerts.seen();
    }

    /** The alert banner about a run, gone once that run is retried or acknowledged. */
    private void dropResolvedAlertBanner(dev.sovereign.engine.admin.AdminSnapshot s) {
        if (s == null || alertBanner == null || banner.get() != alertBanner) {
            return;
        }
        s.assignments().stream().filter(a -> a.id().equals(alertRun)).findFirst().ifPresent(a -> {
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
        java.nio.file.Path tool = null;
        for (String dir : System.getenv().getOrDefault("PATH", "").split(java.io.File.pathSeparator)) {
            java.nio.file.Path p = java.nio.file.Path.of(dir, "notify-send");
            if (java.nio.file.Files.isExecutable(p)) {
                tool = p;
                break;
            }
        }
        if (tool == null || Boolean.getBoolean("sovereign.console.noDesktopNotifications")) {
            return;
        }
        java.nio.file.Path found = tool;
        ui.background(() -> new ProcessBuilder(found.toString(), "--app-name=Sovereign console", "Sovereign console",
                sentence).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start(),
                p -> { }, problem -> { });
    }

    // ---- links between things, Back and Forward (issue 17, item 7, a first part) ----

    /**
     * Opens what a link names: an assignment on the Runs page (selected, whatever the filter), an actor on its
     * own page, a process on its own page. Back returns.
     */
    @Override
    public void openAssignment(String id) {
        id = complete(id, s -> s.assignments().stream().map(dev.sovereign.engine.admin.AssignmentRow::id));
        page.set(Page.RUNS);
        if (!runs.select(id)) {
            ledger.search().queryProperty().set(id);
        }
    }

    @Override
    public void openActor(String actor) {
        show(Page.ACTOR, dev.sovereign.engine.admin.JournalSubject.actor(actor));
    }

    @Override
    public void openProcess(String identity) {
        identity = complete(identity, s -> s.processes().stream().map(p -> p.process().identity()));
        show(Page.PROCESS, dev.sovereign.engine.admin.JournalSubject.process(identity));
    }

    @Override
    public void openMessage(String id) {
        ledger.search().queryProperty().set(id);
        page.set(Page.MAILBOX);
    }

    @Override
    public void openAttempt(String id) {
        dev.sovereign.engine.admin.AdminSnapshot s = ledger.snapshot();
        String assignment = s == null ? null : s.attempts().stream().filter(a -> a.id().equals(id))
                .map(dev.sovereign.engine.admin.AttemptRow::assignmentId).findFirst().orElse(null);
        if (assignment != null) {
            openAssignment(assignment);
        } else {
            ledger.search().queryProperty().set(id);
            page.set(Page.RUNS);
        }
    }

    /**
     * An id as a sentence shortens it ({@code proc_3f2a1b9c…}), made whole from the snapshot when exactly one
     * thing starts so; otherwise as it was (the search finds what it can).
     */
    private String complete(String id, java.util.function.Function<dev.sovereign.engine.admin.AdminSnapshot,
            java.util.stream.Stream<String>> known) {
        dev.sovereign.engine.admin.AdminSnapshot s = ledger.snapshot();
        if (id == null || !id.endsWith("\u2026") || s == null) {
            return id;
        }
        String prefix = id.substring(0, id.length() - 1);
        java.util.List<String> found = known.apply(s).filter(x -> x != null && x.startsWith(prefix)).distinct()
                .limit(2).toList();
        return found.size() == 1 ? found.get(0) : prefix;
    }

    /** Shows {@code p} about {@code about}; the place left goes on the Back stack (also from one actor to another). */
    private void show(Page p, dev.sovereign.engine.admin.JournalSubject about) {
        Place to = new Place(p, ledger.search().queryProperty().get(), about);
        if (to.equals(here())) {
            return;
        }
        backStack.push(here());
        if (backStack.size() > 50) {
            backStack.removeLast();
        }
        forwardStack.clear();
        go(to);
    }

    /** Where the operator was: a page, what the search held, and the actor or process its page was about. */
    record Place(Page page, String search, dev.sovereign.engine.admin.JournalSubject subject) {
    }

    private Place here() {
        return new Place(page.get(), ledger.search().queryProperty().get(), subject.get());
    }

    /** Goes back to the page (and search) shown before the last move. */
    public void back() {
        if (!backStack.isEmpty()) {
            forwardStack.push(here());
            go(backStack.pop());
        }
    }

    public void forward() {
        if (!forwardStack.isEmpty()) {
            backStack.push(here());
            go(forwardStack.pop());
        }
    }

    private void go(Place p) {
        moving = true;
        try {
            ledger.search().queryProperty().set(p.search());
            subject.set(p.subject());
            page.set(p.page());
        } finally {
            moving = false;
        }
        searchAtLastMove = ledger.search().queryProperty().get();
        canBack.set(!backStack.isEmpty());
        canForward.set(!forwardStack.isEmpty());
        if ((p.page() == Page.ACTOR || p.page() == Page.PROCESS) && pollInterval.isZero() && poller != null) {
            poller.pollOnce(); // tests poll by hand: the page's rows at once
        }
    }

    /** The actor or process the Actor and Process pages show. */
    public ReadOnlyObjectProperty<dev.sovereign.engine.admin.JournalSubject> subjectProperty() {
        return subject;
    }

    public dev.sovereign.console.feature.actor.ActorPageViewModel actorPage() {
        return actorPage;
    }

    public dev.sovereign.console.feature.process.ProcessPageViewModel processPage() {
        return processPage;
    }

    /**
     * Actions → Stop selected process… (Ctrl+Shift+S): the process page's own process while that page shows,
     * else the process selected on the Processes page. It asks first, in that page (which it shows), as the
     * page's button does; off when there is no such process, it is stopped already, or the console cannot act.
     */
    public void stopSelectedProcess() {
        dev.sovereign.console.feature.processes.StopProcessAction a = stopTarget();
        if (!a.canStopProperty().get()) {
            return;
        }
        if (a == stopProcess && page.get() != Page.PROCESSES) {
            page.set(Page.PROCESSES); // the question is asked where the row is
        }
        a.ask();
    }

    /** Whether {@link #stopSelectedProcess} would act. */
    public javafx.beans.binding.BooleanBinding canStopSelectedProcessProperty() {
        return canStopSelected;
    }

    private dev.sovereign.console.feature.processes.StopProcessAction stopTarget() {
        return page.get() == Page.PROCESS ? processPage.stop() : stopProcess;
    }

    /** The Processes page's "Stop process…" (the process page has its own). */
    public dev.sovereign.console.feature.processes.StopProcessAction stopProcess() {
        return stopProcess;
    }

    public ReadOnlyBooleanProperty canBackProperty() {
        return canBack.getReadOnlyProperty();
    }

    public ReadOnlyBooleanProperty canForwardProperty() {
        return canForward.getReadOnlyProperty();
    }

    // ---- search ----

    /** What the search box holds: every table page shows only its rows that match (see {@link Search}). */
    public StringProperty searchQueryProperty() {
        return ledger.search().queryProperty();
    }

    /** {@code ""} while nothing is searched; else where it was found, or that nothing matches. */
    public ReadOnlyStringProperty searchSummaryProperty() {
        return searchSummary.getReadOnlyProperty();
    }

    /** How many rows of {@code page} the search finds; -1 for pages without a table of their own. */
    public int searchHits(Page page) {
        return switch (page) {
            case LEASES -> leases.rows().size();
            case RUNS -> runs.assignments().size();
            case MAILBOX -> mailbox.rows().size();
            case PROCESSES -> processes.rows().size();
            case REJECTIONS -> rejections.rows().size();
            default -> -1;
        };
    }

    /** Shows the first page with a hit, unless the page shown has one. */
    public void showFirstSearchHit() {
        if (!ledger.search().isActive() || searchHits(page.get()) > 0) {
            return;
        }
        for (Page p : Page.navigation()) {
            if (searchHits(p) > 0) {
                page.set(p);
                return;
            }
        }
    }

    private String describeSearch() {
        if (!ledger.search().isActive()) {
            return "";
        }
        StringBuilder found = new StringBuilder();
        for (Page p : Page.navigation()) {
            int n = searchHits(p);
            if (n > 0) {
                found.append(found.length() == 0 ? "" : " \u00b7 ").append(p.title()).append(' ').append(n);
            }
        }
        return found.length() == 0 ? "Nothing matches \u201c" + ledger.search().queryProperty().get().strip()
                + "\u201d." : "Found in " + found + ".";
    }

    // ---- attaching ----

    /** Where demo databases go: {@value #DEMO_FOLDER_PROPERTY} if set, else the user's data folder. */
    public static Path demoFolder() {
        return DemoSession.folder();
    }

    /**
     * Attaches {@code file} in the background (ending a demo, if one runs); on failure the banner says
     * why and nothing stays attached.
     */
    public void attach(Path file) {
        attach(LedgerLocation.file(file));
    }

    /**
     * Attaches the ledger at {@code location} — a file, or a server's URL — in the background (ending a demo, if
     * one runs); on failure the banner says why (never showing a secret of the URL) and nothing stays attached.
     * A server URL without a password that was opened with one earlier in this session gets it back; otherwise
     * the driver finds it ({@code ~/.pgpass}, {@code PGPASSFILE}), or {@code $SOVEREIGN_DB} when it names the
     * same server with one (decision 0423).
     */
    public void attach(LedgerLocation location) {
        demoSession.stop();
        attachLocation(location, false);
    }

    private void attachFile(Path file, boolean isDemo) {
        attachLocation(LedgerLocation.file(file), isDemo);
    }

    /** {@code location} with the password this session or {@code $SOVEREIGN_DB} knows for it, if it has none. */
    private LedgerLocation withKnownSecrets(LedgerLocation location) {
        if (location.isFile() || location.hasSecrets()) {
            return location;
        }
        LedgerLocation known = secretsThisSession.get(location);
        if (known != null) {
            return known;
        }
        String env = System.getenv("SOVEREIGN_DB");
        if (env != null && LedgerLocation.looksLikeUrl(env)) {
            try {
                LedgerLocation fromEnv = LedgerLocation.parse(env);
                if (fromEnv.withoutSecrets().equals(location)) {
                    return fromEnv;
                }
            } catch (IllegalArgumentException ignored) {
                // not a usable URL: the location as it is
            }
        }
        return location;
    }

    private void attachLocation(LedgerLocation location, boolean isDemo) {
        LedgerLocation opened = withKnownSecrets(location);
        LedgerLocation target = opened.withoutSecrets(); // what is shown, remembered and compared
        Path file = target.file().orElse(null);
        detachFile();
        long generation = ++attachGeneration;
        attaching.set(file);
        attachingLocation.set(target);
        ledger.connecting();
        ui.background(() -> opener.open(opened, formats.zone()), r -> {
            if (generation != attachGeneration) {
                r.close();
                return;
            }
            attaching.set(null);
            attachingLocation.set(null);
            reader = r;
            if (!opened.isFile()) {
                secretsThisSession.put(target, opened);
            }
            poller = new LedgerPoller(r, ledger, ui, clock);
            watchSubject();
            long zoom = file == null ? 0 : settings.timelineSpan(file); // each database keeps its own timeline zoom
            timeline.setSpan(zoom > 0 ? zoom : TimelineViewModel.DEFAULT_WINDOW);
            connectionSecurity.set(r.connection().brief());
            connectionDetail.set(r.connection().describe());
            attached.set(file);
            attachedLocation.set(target);
            attachedServerWithSecrets.set(opened.isFile() ? null : opened);
            desk.attach(opened);
            if (!isDemo) {
                recentFiles.setAll(settings.addRecent(target));
            }
            if (banner.get() != null && banner.get().severity() != Banner.Severity.SUCCESS) {
                banner.set(null);
            }
            if (isDemo) {
                supervisor.startDemoSupervisor(DemoSession.SUPERVISOR_INTERVAL);
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
            attachingLocation.set(null);
            ledger.detached();
            banner.set(Banner.cannotOpen(target, problem));
        });
    }

    /** Stops watching the attached database (the welcome page shows again); ends a demo and its processes. */
    public void detach() {
        demoSession.stop();
        detachFile();
    }

    private void detachFile() {
        attachGeneration++;
        supervisorStoppedByDetach = true;
        try {
            desk.detach();
        } finally {
            supervisorStoppedByDetach = false;
        }
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
        if (page.get() == Page.ACTOR || page.get() == Page.PROCESS) {
            moving = true; // an actor or a process of the database let go: not a place to go back to
            try {
                page.set(Page.LEASES);
            } finally {
                moving = false;
            }
        }
        attached.set(null);
        attaching.set(null);
        attachedLocation.set(null);
        attachedServerWithSecrets.set(null);
        attachingLocation.set(null);
        connectionSecurity.set("");
        connectionDetail.set("");
        ledger.detached();
        if (banner.get() != null && banner.get().connection()) {
            banner.set(null);
        }
    }

    public void forgetRecent(Path file) {
        forgetRecent(LedgerLocation.file(file));
    }

    public void forgetRecent(LedgerLocation location) {
        recentFiles.setAll(settings.removeRecent(location));
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

    /** Advances the console clock; the app's ticker calls this once or ten times a second ({@link #wantsFineTicks}). */
    public void tick(long now) {
        AdminReader r = reader;
        // a server decides expiry on its own clock: countdowns follow it (decision 0905)
        ledger.tick(now + (r == null ? 0 : r.ledgerClockOffsetMillis()));
    }

    /**
     * Whether the ticker should tick ten times a second now rather than once: a countdown of the attached
     * ledger shows tenths or moves visibly within a second, or the timeline shows and slides in steps of
     * less than a second. Asked by the ticker on the FX thread.
     */
    public boolean wantsFineTicks(long now) {
        return ledger.wantsFineTicks(now) || timeline.wantsFineTicks();
    }

    // ---- the demo (its lifecycle is the DemoSession's) ----

    /**
     * Starts a demo in the background: a fresh database, real worker processes, a feeder, a little
     * chaos; attaches it and starts this console's supervisor. Whatever was attached is let go first.
     */
    public void startDemo() {
        demoSession.start();
    }

    /** Ends the demo, if one runs: its worker processes are stopped in the background. */
    public void stopDemo() {
        demoSession.stop();
    }

    /** Whether a demo is being started (its worker processes launching). */
    public ReadOnlyBooleanProperty demoStartingProperty() {
        return demoSession.startingProperty();
    }

    /** Whether the attached database is a running demo. */
    public ReadOnlyBooleanProperty demoRunningProperty() {
        return demoSession.runningProperty();
    }

    /** What the demo did last, in one sentence. */
    public ReadOnlyStringProperty demoNarrationProperty() {
        return demoSession.narrationProperty();
    }

    /** The running demo, or null (tests look at its processes). */
    public Demo demo() {
        return demoSession.demo();
    }

    public OperatorDesk desk() {
        return desk;
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

    /** Shows one problem across the top; its text never shows a secret of a URL in it. */
    public void showProblem(String title, String sentence) {
        banner.set(new Banner(Banner.Severity.DANGER, title, LedgerLocation.redactUrlsIn(sentence), false));
    }

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

    /** The attached FILE; null when nothing or a server is attached (see {@link #attachedLocationProperty()}). */
    public ReadOnlyObjectProperty<Path> attachedProperty() {
        return attached.getReadOnlyProperty();
    }

    /** The attached ledger, file or server (a URL without its secrets); null when nothing is attached. */
    public ReadOnlyObjectProperty<LedgerLocation> attachedLocationProperty() {
        return attachedLocation.getReadOnlyProperty();
    }

    /** The ledger being opened right now, file or server, or null. */
    public ReadOnlyObjectProperty<LedgerLocation> attachingLocationProperty() {
        return attachingLocation.getReadOnlyProperty();
    }

    /** How the attached reader's connection travels, for the status bar; empty when nothing is attached. */
    public ReadOnlyStringProperty connectionSecurityProperty() {
        return connectionSecurity.getReadOnlyProperty();
    }

    /** How the connection is protected, in a sentence (the status bar's tooltip). */
    public ReadOnlyStringProperty connectionDetailProperty() {
        return connectionDetail.getReadOnlyProperty();
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

    public ObservableList<LedgerLocation> recentFiles() {
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

    /** The Lab page: real worker processes and teaching scenarios against the attached database. */
    public LabViewModel lab() {
        return lab;
    }

    public List<Page> pages() {
        return Page.navigation();
    }

    /**
     * Closes everything now, on the calling thread: the poller, this console's supervisor and actions,
     * and the demo with every process it started (waits for them, a few seconds at most).
     */
    @Override
    public void close() {
        lab.close(); // every process the Lab page started, before anything else goes
        Demo d = demoSession.release();
        supervisorStoppedByDetach = true;
        desk.close(); // first: detaching would close the actions in the background, maybe too late
        detachFile();
        if (d != null) {
            d.close();
        }
        ui.close();
    }
}
