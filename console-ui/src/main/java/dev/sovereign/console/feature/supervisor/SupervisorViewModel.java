package dev.sovereign.console.feature.supervisor;

import dev.sovereign.console.actions.ActionStatus;
import dev.sovereign.console.actions.OperatorDesk;
import dev.sovereign.console.ledger.Formats;
import dev.sovereign.console.ledger.LiveLedger;
import dev.sovereign.engine.admin.AdminSnapshot;
import dev.sovereign.engine.admin.ProcessRef;
import dev.sovereign.engine.admin.ProcessRow;
import dev.sovereign.engine.admin.SupervisorTickRow;
import dev.sovereign.engine.admin.TickReportText;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import javafx.beans.binding.Bindings;
import javafx.beans.binding.BooleanBinding;
import javafx.beans.property.ObjectProperty;
import javafx.beans.property.ReadOnlyBooleanProperty;
import javafx.beans.property.ReadOnlyObjectProperty;
import javafx.beans.property.ReadOnlyObjectWrapper;
import javafx.beans.property.ReadOnlyStringProperty;
import javafx.beans.property.ReadOnlyStringWrapper;
import javafx.beans.property.SimpleObjectProperty;
import javafx.collections.FXCollections;
import javafx.collections.ObservableList;

/**
 * The last supervisor tick's report (of any supervisor on the database, or this console's own, when
 * newer), how long ago it ran, and this console's supervisor: tick now, or tick by itself every
 * interval. UI-thread confined.
 */
public final class SupervisorViewModel {
    private final LiveLedger ledger;
    private final Formats formats;
    private final OperatorDesk desk;
    private TickReportText reportText;
    private final ActionStatus status = new ActionStatus();
    private final ReadOnlyObjectWrapper<SupervisorTickRow> lastTick = new ReadOnlyObjectWrapper<>(this, "lastTick");
    private final ReadOnlyStringWrapper headline = new ReadOnlyStringWrapper(this, "headline", "");
    private final ReadOnlyStringWrapper report = new ReadOnlyStringWrapper(this, "report", "");
    private final ReadOnlyStringWrapper ownSupervisor = new ReadOnlyStringWrapper(this, "ownSupervisor", "");
    private final ReadOnlyStringWrapper lastRecovery = new ReadOnlyStringWrapper(this, "lastRecovery", "");
    private final ObjectProperty<Duration> interval =
            new SimpleObjectProperty<>(this, "interval", Duration.ofSeconds(1));
    private final ObservableList<Duration> intervals =
            FXCollections.unmodifiableObservableList(FXCollections.observableArrayList(OperatorDesk.INTERVALS));
    private final BooleanBinding canAct;
    private final Map<String, String> processNames = new HashMap<>();
    private final ObservableList<ReportLink> reportLinks = FXCollections.observableArrayList();
    /** The page's "Ledger" section: its size, rows, oldest event, growth and disk (issue 29 item 4). */
    private final LedgerStorageViewModel storage;

    /** Something the shown report names, to link to: a process (by identity) or an assignment. */
    public record ReportLink(boolean process, String id, String text) {}

    public SupervisorViewModel(LiveLedger ledger, Formats formats, OperatorDesk desk) {
        this.ledger = ledger;
        this.formats = formats;
        this.desk = desk;
        this.reportText = new TickReportText(formats.zone(), processNames::get);
        this.storage = new LedgerStorageViewModel(ledger, formats);
        ledger.snapshotProperty().addListener((obs, old, s) -> refresh(s));
        ledger.nowProperty().addListener((obs, old, now) -> updateHeadline());
        desk.lastOwnTickProperty().addListener((obs, old, t) -> {
            offer(t);
            updateHeadline(); // whose the shown tick is may have changed with it
        });
        desk.supervisorRunningProperty().addListener((obs, old, r) -> updateOwn());
        desk.supervisorIntervalProperty().addListener((obs, old, i) -> updateOwn());
        desk.supervisorProblemProperty().addListener((obs, old, p) -> updateOwn());
        canAct = Bindings.createBooleanBinding(
                () -> desk.availableProperty().get() && !status.isBusy(),
                desk.availableProperty(),
                status.busyProperty());
        refresh(ledger.snapshot());
        updateOwn();
    }

    /** The times in the report follow the console's zone (View → Show times in UTC). */
    public void zoneChanged() {
        reportText = new TickReportText(formats.zone(), processNames::get);
        show(lastTick.get());
        storage.zoneChanged();
    }

    /** The ledger's size on disk, rows, oldest event and growth, and its disk's free space: the page's last section. */
    public LedgerStorageViewModel storage() {
        return storage;
    }

    /** Runs one tick now, on this console's process; its report shows as soon as it returns. */
    public void tickNow() {
        if (canAct.get()) {
            desk.tickNow(status, formats::time, this::offer);
        }
    }

    /** Starts this console's supervisor at the chosen {@link #intervalProperty() interval}. */
    public void startAutoTick() {
        if (canAct.get()) {
            desk.startSupervisor(interval.get(), status);
        }
    }

    /** The demo's: starts this console's supervisor at {@code every}, even while another action runs. */
    public void startDemoSupervisor(Duration every) {
        interval.set(every);
        desk.startSupervisor(every, status);
    }

    public void stopAutoTick() {
        if (canAct.get()) {
            desk.stopSupervisor(status);
        }
    }

    /** Starts or stops this console's supervisor (Shift+F6). */
    public void toggleAutoTick() {
        if (desk.supervisorRunningProperty().get()) {
            stopAutoTick();
        } else {
            startAutoTick();
        }
    }

    public ReadOnlyObjectProperty<SupervisorTickRow> lastTickProperty() {
        return lastTick.getReadOnlyProperty();
    }

    /**
     * {@code Last tick at 10:42:07 (3.2 s ago) by supervisor 812 (proc_…)}, or {@code … by this console (proc_…)}
     * when the newest tick of any supervisor is this console's own (decision 0428); or that none ran yet.
     */
    public ReadOnlyStringProperty headlineProperty() {
        return headline.getReadOnlyProperty();
    }

    /** The last tick's report in sentences, one per line. */
    public ReadOnlyStringProperty reportProperty() {
        return report.getReadOnlyProperty();
    }

    /**
     * The last tick seen that recovered something, in words (most ticks find nothing, so it would
     * scroll away); empty until one did.
     */
    public ReadOnlyStringProperty lastRecoveryProperty() {
        return lastRecovery.getReadOnlyProperty();
    }

    /** What this console's own supervisor does: ticking every N s, or only when asked. */
    public ReadOnlyStringProperty ownSupervisorProperty() {
        return ownSupervisor.getReadOnlyProperty();
    }

    /** Whether this console's own supervisor ticks by itself. */
    public ReadOnlyBooleanProperty autoTickingProperty() {
        return desk.supervisorRunningProperty();
    }

    public boolean isAutoTicking() {
        return desk.supervisorRunningProperty().get();
    }

    /** The interval the next start uses (and the running one, once started). */
    public ObjectProperty<Duration> intervalProperty() {
        return interval;
    }

    public ObservableList<Duration> intervals() {
        return intervals;
    }

    public BooleanBinding canActProperty() {
        return canAct;
    }

    /** The last tick-now or start/stop: in progress, done, or refused, in one sentence. */
    public ActionStatus status() {
        return status;
    }

    private void refresh(AdminSnapshot s) {
        processNames.clear();
        if (s != null) {
            for (ProcessRow p : s.processes()) {
                processNames.put(p.process().identity(), p.process().displayName());
            }
        }
        if (s == null) {
            show(null); // detached, or another file is being attached
        } else {
            // a snapshot without a tick may be older than this console's own tick: keep that one
            s.lastTick().ifPresent(this::offer);
        }
        updateHeadline();
    }

    /** Shows {@code t} unless a newer tick is already shown. */
    private void offer(SupervisorTickRow t) {
        SupervisorTickRow shown = lastTick.get();
        if (t != null && (shown == null || t.seq() > shown.seq() || (t.seq() == shown.seq() && !t.equals(shown)))) {
            show(t);
        }
    }

    private void show(SupervisorTickRow t) {
        lastTick.set(t);
        List<ReportLink> links = new ArrayList<>();
        if (t != null) {
            links.add(new ReportLink(true, t.process().identity(), t.process().displayName()));
            for (String id : reportText.idsNamed(t.report())) {
                boolean process = id.startsWith("process:");
                String bare = id.substring(id.indexOf(':') + 1);
                if (!(process && bare.equals(t.process().identity()))) {
                    links.add(new ReportLink(
                            process,
                            bare,
                            process
                                    ? processNames.getOrDefault(bare, new ProcessRef(bare, null, null, null).shortId())
                                    : bare));
                }
            }
        }
        if (!links.equals(reportLinks)) {
            reportLinks.setAll(links);
        }
        report.set(t == null ? "" : String.join("\n", reportText.lines(t.report())));
        if (t == null) {
            lastRecovery.set("");
        } else if (t.recovered() > 0) {
            lastRecovery.set("Last recovery at " + formats.time(t.at()) + " by " + whose(t) + ": "
                    + String.join(
                            " ",
                            reportText.lines(t.report()).stream()
                                    .filter(l -> l.startsWith("Recovered "))
                                    .toList()));
        }
        updateHeadline();
    }

    private void updateHeadline() {
        SupervisorTickRow t = lastTick.get();
        if (t == null) {
            headline.set(
                    ledger.snapshot() == null
                            ? ""
                            : "No supervisor has ticked on this database yet. Run a tick now (F6), start this console's"
                                    + " supervisor, or run 'sovereign supervisor'.");
            return;
        }
        headline.set("Last tick at " + formats.time(t.at()) + " (" + Formats.secondsAgo(t.at(), ledger.now()) + ") by "
                + whose(t));
    }

    /** {@code this console (proc_…)} for this console's own tick, else the ticking process's label. */
    private String whose(SupervisorTickRow t) {
        return isOwn(t)
                ? "this console (" + t.process().shortId() + ")"
                : t.process().displayName();
    }

    /** Whether {@code t} was ticked by this console's process (asked for or by its own supervisor). */
    private boolean isOwn(SupervisorTickRow t) {
        SupervisorTickRow own = desk.lastOwnTickProperty().get();
        return own != null && own.process().identity().equals(t.process().identity());
    }

    private void updateOwn() {
        String problem = desk.supervisorProblemProperty().get();
        String state = desk.supervisorRunningProperty().get()
                ? "This console's supervisor ticks every "
                        + OperatorDesk.seconds(desk.supervisorIntervalProperty().get()) + "."
                : "This console's supervisor is off: ticks happen only when asked (F6), or by another supervisor.";
        ownSupervisor.set(problem.isEmpty() ? state : state + " Its last tick failed: " + problem);
    }

    /** The processes and runs the shown report names (the ticking supervisor first), for links. */
    public ObservableList<ReportLink> reportLinks() {
        return reportLinks;
    }

    /** For tests and the view: the report's sentences. */
    public List<String> reportLines() {
        String r = report.get();
        return r.isEmpty() ? List.of() : List.of(r.split("\n"));
    }
}
