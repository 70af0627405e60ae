package dev.sovereign.console.shell;

import dev.sovereign.console.actions.OperatorDesk;
import dev.sovereign.console.feature.supervisor.SupervisorViewModel;
import dev.sovereign.console.feature.timeline.TimelineViewModel;
import dev.sovereign.console.fx.UiExecutor;
import dev.sovereign.console.ledger.Formats;
import dev.sovereign.console.ledger.FreeSpace;
import dev.sovereign.console.ledger.LedgerPoller;
import dev.sovereign.console.ledger.LiveLedger;
import dev.sovereign.engine.admin.AdminReader;
import dev.sovereign.engine.admin.JournalSubject;
import dev.sovereign.engine.base.LedgerLocation;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import javafx.beans.property.ObjectProperty;
import javafx.beans.property.ReadOnlyObjectProperty;
import javafx.beans.property.ReadOnlyObjectWrapper;
import javafx.beans.property.ReadOnlyStringProperty;
import javafx.beans.property.ReadOnlyStringWrapper;
import javafx.beans.value.ObservableValue;
import javafx.collections.FXCollections;
import javafx.collections.ObservableList;

/**
 * The attached ledger, a file or a server: opening its reader in the background (a later attach wins over an
 * earlier one still opening: each has a generation), its poller, its connection's security, the recent files, the
 * passwords typed in this session ({@link SessionSecrets}), and letting it all go again. This console's operator
 * actions ({@link OperatorDesk}) follow what is attached, and so does the demo's supervisor.
 *
 * <p>UI-thread confined; every open and close of a reader happens on the {@link UiExecutor}'s background threads.
 */
public final class LedgerAttachment {
    private final ConsoleSettings settings;
    private final UiExecutor ui;
    private final Clock clock;
    private final LedgerOpener opener;
    private final Duration pollInterval;
    private final Formats formats;
    private final LiveLedger ledger;
    private final OperatorDesk desk;
    private final TimelineViewModel timeline;
    private final SupervisorViewModel supervisor;
    private final ObjectProperty<Banner> banner;
    private final ObservableValue<JournalSubject> watched;
    private final Runnable leaveSubjectPage;

    /** The attached FILE (null while a server is attached): the lab and file-only features follow it. */
    private final ReadOnlyObjectWrapper<Path> attached = new ReadOnlyObjectWrapper<>(this, "attached");

    private final ReadOnlyObjectWrapper<Path> attaching = new ReadOnlyObjectWrapper<>(this, "attaching");
    /** The attached ledger, file or server: what the window shows as attached. */
    private final ReadOnlyObjectWrapper<LedgerLocation> attachedLocation =
            new ReadOnlyObjectWrapper<>(this, "attachedLocation");
    /** The attached SERVER ledger with its password (null for a file or nothing): the lab's workers need it. */
    private final ReadOnlyObjectWrapper<LedgerLocation> attachedServerWithSecrets =
            new ReadOnlyObjectWrapper<>(this, "attachedServerWithSecrets");

    private final ReadOnlyObjectWrapper<LedgerLocation> attachingLocation =
            new ReadOnlyObjectWrapper<>(this, "attachingLocation");
    /** How the attached reader's connection travels ("local file", "TLS (TLSv1.3)", "not encrypted"). */
    private final ReadOnlyStringWrapper connectionSecurity = new ReadOnlyStringWrapper(this, "connectionSecurity", "");
    /** The long form of {@link #connectionSecurity}, for its tooltip (decision 0906). */
    private final ReadOnlyStringWrapper connectionDetail = new ReadOnlyStringWrapper(this, "connectionDetail", "");
    /** The passwords typed in this session: a recent entry, stored without its password, reopens with it. */
    private final SessionSecrets secrets = new SessionSecrets();

    private final ObservableList<LedgerLocation> recentFiles = FXCollections.observableArrayList();
    /** Made once: a fresh unmodifiable wrapper per call would drop listeners when collected. */
    private final ObservableList<LedgerLocation> recentFilesView =
            FXCollections.unmodifiableObservableList(recentFiles);
    /** Set while the supervisor stops because the database is let go: then no warning is due. */
    private boolean supervisorStoppedByDetach;

    /** Where a SQLite ledger's disk space is read: the real file system, but for tests of a nearly full disk. */
    private volatile FreeSpace freeSpace = FreeSpace.FILE_SYSTEM; // read on the poller's thread

    private AdminReader reader;
    private LedgerPoller poller;
    private long attachGeneration;

    /**
     * @param pollInterval     how often the poller checks the reader's change marker; {@link Duration#ZERO} means
     *                         never by itself (tests poll by hand)
     * @param banner           the banner across the top: why a ledger could not be opened, the supervisor stopped
     * @param watched          the actor or process whose journal rows the poller should read (null: none); the
     *                         poller follows it
     * @param leaveSubjectPage leaves the Actor or Process page (unrecorded) when the ledger is let go
     */
    LedgerAttachment(
            ConsoleSettings settings,
            UiExecutor ui,
            Clock clock,
            LedgerOpener opener,
            Duration pollInterval,
            Formats formats,
            LiveLedger ledger,
            OperatorDesk desk,
            TimelineViewModel timeline,
            SupervisorViewModel supervisor,
            ObjectProperty<Banner> banner,
            ObservableValue<JournalSubject> watched,
            Runnable leaveSubjectPage) {
        this.settings = settings;
        this.ui = ui;
        this.clock = clock;
        this.opener = opener;
        this.pollInterval = pollInterval;
        this.formats = formats;
        this.ledger = ledger;
        this.desk = desk;
        this.timeline = timeline;
        this.supervisor = supervisor;
        this.banner = banner;
        this.watched = watched;
        this.leaveSubjectPage = leaveSubjectPage;
        recentFiles.setAll(settings.recentLocations());
        // the poller reads the journal rows about the subject only while its page shows
        watched.addListener(o -> watch(watched.getValue()));
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
        timeline.spanProperty().addListener((obs, o, ms) -> {
            if (attached.get() != null) {
                settings.setTimelineSpan(attached.get(), ms.longValue());
            }
        });
    }

    /**
     * Lets go of what is attached and opens {@code location} — a file, or a server's URL — in the background; on
     * failure the banner says why (never showing a secret of the URL) and nothing stays attached. A server URL
     * without a password that was opened with one earlier in this session gets it back; otherwise the driver finds
     * it ({@code ~/.pgpass}, {@code PGPASSFILE}), or {@code $SOVEREIGN_DB} when it names the same server with one
     * (decision 0423). A demo's database is not a recent file, and this console's supervisor ticks on it.
     *
     * @param demoTicks how often this console's supervisor ticks on a demo's database; null: not a demo
     */
    void open(LedgerLocation location, Duration demoTicks) {
        boolean isDemo = demoTicks != null;
        LedgerLocation opened = secrets.withKnownSecrets(location);
        LedgerLocation target = opened.withoutSecrets(); // what is shown, remembered and compared
        Path file = target.file().orElse(null);
        letGo();
        long generation = ++attachGeneration;
        attaching.set(file);
        attachingLocation.set(target);
        ledger.connecting();
        ui.background(
                () -> opener.open(opened, formats.zone()),
                r -> {
                    if (generation != attachGeneration) {
                        r.close();
                        return;
                    }
                    attaching.set(null);
                    attachingLocation.set(null);
                    reader = r;
                    secrets.opened(opened);
                    poller = new LedgerPoller(r, ledger, ui, clock, f -> freeSpace.usableBytes(f));
                    poller.watch(watched.getValue());
                    long zoom =
                            file == null ? 0 : settings.timelineSpan(file); // each database keeps its own timeline zoom
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
                        supervisor.startDemoSupervisor(demoTicks);
                    }
                    startPolling();
                },
                problem -> {
                    if (generation != attachGeneration) {
                        return;
                    }
                    attaching.set(null);
                    attachingLocation.set(null);
                    ledger.detached();
                    banner.set(Banner.cannotOpen(target, problem));
                });
    }

    private void startPolling() {
        if (pollInterval.isZero()) {
            poller.pollOnce();
        } else {
            poller.start(pollInterval);
        }
    }

    /**
     * Opens the attached ledger's reader again, in the background, with the zone {@code formats} now shows (the
     * journal's sentences are the reader's) and re-reads the picture; the old reader closes in the background.
     */
    void reopen() {
        LedgerLocation target = attachedLocation.get();
        if (target == null) {
            return;
        }
        long generation = attachGeneration;
        LedgerLocation withSecrets = secrets.asOpenedThisSession(target);
        ui.background(
                () -> opener.open(withSecrets, formats.zone()),
                r -> {
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
                        closeInBackground(old);
                    }
                    ledger.connecting();
                    poller = new LedgerPoller(r, ledger, ui, clock, f -> freeSpace.usableBytes(f));
                    poller.watch(watched.getValue());
                    startPolling();
                },
                problem -> banner.set(Banner.cannotOpen(target, problem)));
    }

    private void closeInBackground(AdminReader r) {
        ui.background(
                () -> {
                    r.close();
                    return null;
                },
                x -> {},
                x -> {});
    }

    /** Lets go of the attached ledger (the welcome page shows again): its poller, its reader, its actions. */
    void letGo() {
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
            closeInBackground(r);
        }
        leaveSubjectPage.run();
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

    /**
     * Closes this console's actions now, on the calling thread (letting go would close them in the background,
     * maybe too late), then lets go of the ledger; no warning that the supervisor stopped.
     */
    void close() {
        supervisorStoppedByDetach = true;
        desk.close();
        letGo();
    }

    private void watch(JournalSubject subject) {
        if (poller != null) {
            poller.watch(subject);
        }
    }

    /** One poll now when the console polls only by hand (tests with a zero poll interval); else nothing. */
    void pollIfByHand() {
        if (pollInterval.isZero() && poller != null) {
            poller.pollOnce();
        }
    }

    /**
     * Reads the free space of a SQLite ledger's disk from {@code source} from the next read on: a test simulates a
     * nearly full disk with it; the console uses the file system's own ({@link FreeSpace#FILE_SYSTEM}).
     */
    public void useFreeSpace(FreeSpace source) {
        freeSpace = source;
    }

    /** The attached ledger's reader, or null. */
    AdminReader reader() {
        return reader;
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

    /** Advances the console clock; a server decides expiry on its own clock: countdowns follow it (decision 0905). */
    public void tick(long now) {
        AdminReader r = reader;
        ledger.tick(now + (r == null ? 0 : r.ledgerClockOffsetMillis()));
    }

    public void forgetRecent(Path file) {
        forgetRecent(LedgerLocation.file(file));
    }

    public void forgetRecent(LedgerLocation location) {
        recentFiles.setAll(settings.removeRecent(location));
    }

    public ObservableList<LedgerLocation> recentFiles() {
        return recentFilesView;
    }

    /** The folder a file was last opened from. */
    public Path lastDirectory() {
        return settings.lastDirectory();
    }

    /** The attached FILE; null when nothing or a server is attached (see {@link #attachedLocationProperty()}). */
    public ReadOnlyObjectProperty<Path> attachedProperty() {
        return attached.getReadOnlyProperty();
    }

    /** The attached ledger, file or server (a URL without its secrets); null when nothing is attached. */
    public ReadOnlyObjectProperty<LedgerLocation> attachedLocationProperty() {
        return attachedLocation.getReadOnlyProperty();
    }

    /** The attached server ledger with its password, for the lab's workers; null for a file or nothing. */
    ReadOnlyObjectProperty<LedgerLocation> attachedServerWithSecretsProperty() {
        return attachedServerWithSecrets.getReadOnlyProperty();
    }

    /** The ledger being opened right now, file or server, or null. */
    public ReadOnlyObjectProperty<LedgerLocation> attachingLocationProperty() {
        return attachingLocation.getReadOnlyProperty();
    }

    /** The file being opened right now, or null. */
    public ReadOnlyObjectProperty<Path> attachingProperty() {
        return attaching.getReadOnlyProperty();
    }

    /** How the attached reader's connection travels, for the status bar; empty when nothing is attached. */
    public ReadOnlyStringProperty connectionSecurityProperty() {
        return connectionSecurity.getReadOnlyProperty();
    }

    /** How the connection is protected, in a sentence (the status bar's tooltip). */
    public ReadOnlyStringProperty connectionDetailProperty() {
        return connectionDetail.getReadOnlyProperty();
    }
}
