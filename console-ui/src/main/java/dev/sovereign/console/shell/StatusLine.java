package dev.sovereign.console.shell;

import dev.sovereign.console.ledger.Formats;
import dev.sovereign.console.ledger.LiveLedger;
import dev.sovereign.engine.admin.AdminSnapshot;
import java.time.Clock;
import javafx.beans.InvalidationListener;
import javafx.beans.property.BooleanProperty;
import javafx.beans.property.ReadOnlyStringProperty;
import javafx.beans.property.ReadOnlyStringWrapper;
import javafx.beans.property.SimpleBooleanProperty;

/**
 * What the status bar says besides the ledger's health: the time zone times are shown in (and the switch to UTC),
 * when the picture was last refreshed, and what the ledger's history needs from an operator. UI-thread confined.
 */
public final class StatusLine {
    private final ConsoleSettings settings;
    private final Clock clock;
    private final Formats formats;
    private final LiveLedger ledger;
    private final Runnable zoneChanged;
    private final BooleanProperty utcTimes = new SimpleBooleanProperty(this, "utcTimes");
    private final ReadOnlyStringWrapper zoneText = new ReadOnlyStringWrapper(this, "zoneText", "");
    private final ReadOnlyStringWrapper refreshText = new ReadOnlyStringWrapper(this, "refreshText", "");
    private final ReadOnlyStringWrapper refreshShort = new ReadOnlyStringWrapper(this, "refreshShort", "");
    /** What the ledger's history says needs an operator (it went backwards; its counter is damaged); empty: nothing. */
    private final ReadOnlyStringWrapper ledgerAlarm = new ReadOnlyStringWrapper(this, "ledgerAlarm", "");

    private final ReadOnlyStringWrapper ledgerAlarmShort = new ReadOnlyStringWrapper(this, "ledgerAlarmShort", "");

    /**
     * @param zoneChanged what else follows a switch of zone once {@code formats} shows the new one: the supervisor's
     *                    report, and the reader (opened again, since the journal's sentences are its own)
     */
    StatusLine(ConsoleSettings settings, Clock clock, Formats formats, LiveLedger ledger, Runnable zoneChanged) {
        this.settings = settings;
        this.clock = clock;
        this.formats = formats;
        this.ledger = ledger;
        this.zoneChanged = zoneChanged;
        formats.showUtc(settings.utcTimes());
        utcTimes.set(settings.utcTimes());
        utcTimes.addListener((obs, was, utc) -> switchZone(utc));
        zoneText.set(formats.zoneText(clock.millis()));
        // decisions 0604/0605: a ledger that went backwards issues no token until a fence bump; the status bar says so
        ledger.snapshotProperty().addListener((obs, old, snapshot) -> showLedgerAlarm(snapshot));
        // whole seconds: a text that changed ten times a second laid the status bar out ten times a second
        InvalidationListener showRefresh = o -> {
            long at = ledger.lastRefreshProperty().get();
            String text = at == 0
                    ? "not refreshed yet"
                    : "refreshed " + formats.time(at) + (formats.isUtc() ? " UTC" : "") + " ("
                            + Formats.secondsAgo(at, ledger.now()) + ")";
            if (!text.equals(refreshText.get())) {
                refreshText.set(text);
            }
            String brief = at == 0 ? text : text.substring("refreshed ".length());
            if (!brief.equals(refreshShort.get())) {
                refreshShort.set(brief);
            }
        };
        ledger.lastRefreshProperty().addListener(showRefresh);
        ledger.nowProperty().addListener(showRefresh);
        utcTimes.addListener(showRefresh);
        showRefresh.invalidated(null);
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
        zoneChanged.run();
    }

    private void showLedgerAlarm(AdminSnapshot snapshot) {
        String alarm = snapshot == null ? null : snapshot.history().alarm();
        ledgerAlarm.set(alarm == null ? "" : alarm);
        ledgerAlarmShort.set(
                alarm == null
                        ? ""
                        : snapshot.history().isWentBackwards()
                                ? "Ledger went backwards: run 'sovereign fence bump'"
                                : "Token counter damaged: restore a backup");
    }

    /** Whether times are shown in UTC (View → Show times in UTC); remembered. Off: the machine's zone. */
    public BooleanProperty utcTimesProperty() {
        return utcTimes;
    }

    /** {@code local times (UTC+01:00)} or {@code times in UTC}, for the status bar. */
    public ReadOnlyStringProperty zoneTextProperty() {
        return zoneText.getReadOnlyProperty();
    }

    /** {@code refreshed 10:42:07 (0.3 s ago)}. */
    public ReadOnlyStringProperty refreshTextProperty() {
        return refreshText.getReadOnlyProperty();
    }

    /** The same without its first word, {@code 10:42:07 (0.3 s ago)}: for a status bar short of room. */
    public ReadOnlyStringProperty refreshShortProperty() {
        return refreshShort.getReadOnlyProperty();
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
}
