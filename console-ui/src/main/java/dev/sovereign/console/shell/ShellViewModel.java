package dev.sovereign.console.shell;

import static dev.sovereign.console.actions.OperatorDesk.realActions;
import static dev.sovereign.console.shell.DemoSession.realDemo;

import dev.sovereign.console.actions.OperatorDesk;
import dev.sovereign.console.feature.actor.ActorPageViewModel;
import dev.sovereign.console.feature.journal.JournalViewModel;
import dev.sovereign.console.feature.lab.LabViewModel;
import dev.sovereign.console.feature.leases.LeasesViewModel;
import dev.sovereign.console.feature.mailbox.MailboxViewModel;
import dev.sovereign.console.feature.process.ProcessPageViewModel;
import dev.sovereign.console.feature.processes.ProcessesViewModel;
import dev.sovereign.console.feature.rejections.RejectionsViewModel;
import dev.sovereign.console.feature.runs.RunsViewModel;
import dev.sovereign.console.feature.supervisor.SupervisorViewModel;
import dev.sovereign.console.feature.timeline.TimelineViewModel;
import dev.sovereign.console.feature.trends.TrendsViewModel;
import dev.sovereign.console.fx.UiExecutor;
import dev.sovereign.console.ledger.Formats;
import dev.sovereign.console.ledger.LiveLedger;
import dev.sovereign.engine.base.LedgerLocation;
import dev.sovereign.engine.lab.Demo;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.ZoneId;
import javafx.beans.property.ObjectProperty;
import javafx.beans.property.ReadOnlyObjectProperty;
import javafx.beans.property.ReadOnlyObjectWrapper;
import javafx.beans.property.SimpleObjectProperty;

/**
 * The console's top-level state, put together from its parts, each with one responsibility:
 * {@link LedgerAttachment} (which ledger is attached, attaching one, polling it, letting it go),
 * {@link ShellNavigation} (the page shown, links, Back and Forward), {@link ShellSearch} (the search across the
 * pages), {@link JournalExport} (CSV export), {@link DemoSession} (the demo's lifecycle), {@link ShellBanners} (the
 * banner's rules and the alerts), {@link StatusLine} (the zone, the last refresh, the ledger's alarm),
 * {@link ProcessStopping} and {@link FeatureViewModels} (the pages' view models and which keep current). Here: the
 * parts' wiring, the Lab page's view model, the live ledger, the banner, the theme, and what needs two parts at once
 * (attaching ends a demo; closing closes everything in order). The parts name none of one another: what one needs
 * of another comes in as a property or a lambda from here.
 *
 * <p>Never touches {@code javafx.scene}; all database work goes through the {@link UiExecutor}'s background
 * threads. UI-thread confined.
 */
public final class ShellViewModel implements AutoCloseable {
    private final UiExecutor ui;
    private final Formats formats;
    private final LiveLedger ledger = new LiveLedger();
    private final ReadOnlyObjectWrapper<Banner> banner = new ReadOnlyObjectWrapper<>(this, "banner");
    private final ObjectProperty<ConsoleTheme> theme = new SimpleObjectProperty<>(this, "theme");
    private final StatusLine statusLine;
    private final ShellNavigation navigation;
    private final ShellSearch search;
    private final ShellBanners banners;
    private final LedgerAttachment attachment;
    private final JournalExport journalExport;
    private final DemoSession demoSession;
    private final ProcessStopping stopping;
    private final FeatureViewModels features;
    private final LabViewModel lab;

    /**
     * With the real operator actions (on {@code clock}) and the real demo (in the user's data folder, or
     * the folder named by {@value DemoSession#FOLDER_PROPERTY}).
     *
     * @param pollInterval how often the poller checks the reader's change marker; {@link Duration#ZERO} means
     *                     never by itself (tests call {@link #pollNow()})
     */
    public ShellViewModel(
            ConsoleSettings settings,
            UiExecutor ui,
            Clock clock,
            ZoneId zone,
            LedgerOpener opener,
            Duration pollInterval) {
        this(settings, ui, clock, zone, opener, pollInterval, realActions(clock), realDemo(clock));
    }

    public ShellViewModel(
            ConsoleSettings settings,
            UiExecutor ui,
            Clock clock,
            ZoneId zone,
            LedgerOpener opener,
            Duration pollInterval,
            OperatorDesk.ActionsOpener actions,
            DemoSession.Starter demoStarter) {
        this.ui = ui;
        OperatorDesk desk = new OperatorDesk(ui, actions); // the attachment closes it
        // the parts reach one another only through these lambdas, called after the constructor is done
        this.demoSession = new DemoSession(
                ui,
                demoStarter,
                () -> attachment().letGo(),
                file -> attachment().open(LedgerLocation.file(file), DemoSession.SUPERVISOR_INTERVAL),
                banner::set);
        this.formats = new Formats(zone);
        statusLine = new StatusLine(settings, clock, formats, ledger, () -> {
            supervisor().zoneChanged();
            attachment().reopen();
        });
        ledger.tick(clock.millis());
        theme.set(settings.theme());
        theme.addListener((obs, old, t) -> settings.setTheme(t));
        navigation = new ShellNavigation(
                ledger,
                id -> runs().select(id),
                () -> attachment().pollIfByHand(),
                q -> journal().show(q));
        ObjectProperty<Page> page = navigation.pageProperty();
        features = new FeatureViewModels(
                ledger,
                formats,
                desk,
                page,
                navigation.subjectProperty(),
                ui,
                () -> attachment().reader());
        stopping = new ProcessStopping(
                page, features.processesStop(), processPage().stop());
        attachment = new LedgerAttachment(
                settings,
                ui,
                clock,
                opener,
                pollInterval,
                formats,
                ledger,
                desk,
                timeline(),
                supervisor(),
                banner,
                navigation.watchedSubject(),
                navigation::leaveSubjectPage);
        lab = new LabViewModel(
                ledger, ui, attachment.attachedProperty(), this::attach, LabViewModel.defaultSandboxDirectory());
        lab.followServer(attachment.attachedLocationProperty(), attachment.attachedServerWithSecretsProperty());
        lab.humanizeWith(formats::humanize);
        banners = new ShellBanners(banner, ledger, ui, settings, navigation, page, demoSession.runningProperty());
        search = new ShellSearch(ledger, page, leases(), runs(), mailbox(), processes(), rejections());
        journalExport = new JournalExport(ui, attachment::reader, banner);
    }

    /** Attaches {@code file} in the background (ending a demo, if one runs); on failure the banner says why. */
    public void attach(Path file) {
        attach(LedgerLocation.file(file));
    }

    /**
     * Attaches the ledger at {@code location} — a file, or a server's URL — in the background, ending a demo if one
     * runs (see {@link LedgerAttachment#open}: the password it finds, decision 0423; what the banner says).
     */
    public void attach(LedgerLocation location) {
        demoSession.stop();
        attachment.open(location, null);
    }

    /** Stops watching the attached database (the welcome page shows again); ends a demo and its processes. */
    public void detach() {
        demoSession.stop();
        attachment.letGo();
    }

    /** Starts a demo in the background (see {@link DemoSession}); whatever was attached is let go first. */
    public void startDemo() {
        demoSession.start();
    }

    /** Advances the console clock; the app's ticker calls this once or ten times a second ({@link #wantsFineTicks}). */
    public void tick(long now) {
        attachment.tick(now);
    }

    /**
     * Whether the ticker should tick ten times a second now rather than once: a countdown shows tenths or moves
     * visibly within a second, or the timeline slides in steps of less than a second. Asked on the FX thread.
     */
    public boolean wantsFineTicks(long now) {
        return ledger.wantsFineTicks(now) || timeline().wantsFineTicks();
    }

    /**
     * Calls {@code recheck} (on the FX thread) whenever what {@link #wantsFineTicks} depends on changes other than by
     * the clock: a new snapshot, the timeline shown or hidden, following or not, zoomed.
     */
    public void onFineTicksMayChange(Runnable recheck) {
        javafx.beans.InvalidationListener l = o -> recheck.run();
        ledger.snapshotProperty().addListener(l);
        timeline().activeProperty().addListener(l);
        timeline().followingProperty().addListener(l);
        timeline().spanProperty().addListener(l);
    }

    /** One poll on the calling thread (tests with a zero poll interval). */
    public void pollNow() {
        attachment.pollNow();
    }

    public LedgerAttachment attachment() {
        return attachment;
    }

    /** The page shown, links, Back and Forward; also the {@link dev.sovereign.console.ledger.Links} views follow. */
    public ShellNavigation navigation() {
        return navigation;
    }

    public ShellSearch search() {
        return search;
    }

    public JournalExport journalExport() {
        return journalExport;
    }

    public DemoSession demoSession() {
        return demoSession;
    }

    public ShellBanners banners() {
        return banners;
    }

    public StatusLine statusLine() {
        return statusLine;
    }

    public ProcessStopping stopping() {
        return stopping;
    }

    public ObjectProperty<Page> pageProperty() {
        return navigation.pageProperty();
    }

    public ReadOnlyObjectProperty<Banner> bannerProperty() {
        return banner.getReadOnlyProperty();
    }

    public ObjectProperty<ConsoleTheme> themeProperty() {
        return theme;
    }

    public void toggleTheme() {
        theme.set(theme.get().other());
    }

    /** The attached ledger, file or server (a URL without its secrets); null when nothing is attached. */
    public ReadOnlyObjectProperty<LedgerLocation> attachedLocationProperty() {
        return attachment.attachedLocationProperty();
    }

    public LiveLedger ledger() {
        return ledger;
    }

    public Formats formats() {
        return formats;
    }

    public LeasesViewModel leases() {
        return features.leases();
    }

    public TimelineViewModel timeline() {
        return features.timeline();
    }

    public RejectionsViewModel rejections() {
        return features.rejections();
    }

    public RunsViewModel runs() {
        return features.runs();
    }

    public MailboxViewModel mailbox() {
        return features.mailbox();
    }

    public ProcessesViewModel processes() {
        return features.processes();
    }

    public SupervisorViewModel supervisor() {
        return features.supervisor();
    }

    /** The Lab page: real worker processes and teaching scenarios against the attached database. */
    public LabViewModel lab() {
        return lab;
    }

    public TrendsViewModel trends() {
        return features.trends();
    }

    /** The Journal page: every journal row, a live tail, filters, older rows on request. */
    public JournalViewModel journal() {
        return features.journal();
    }

    public ActorPageViewModel actorPage() {
        return features.actorPage();
    }

    public ProcessPageViewModel processPage() {
        return features.processPage();
    }

    /**
     * Closes everything now, on the calling thread: the poller, this console's supervisor and actions, and the demo
     * with every process it started (waits for them, a few seconds at most).
     */
    @Override
    public void close() {
        lab.close(); // every process the Lab page started, before anything else goes
        Demo d = demoSession.release();
        attachment.close(); // this console's actions first, then the ledger
        if (d != null) {
            d.close();
        }
        ui.close();
    }
}
