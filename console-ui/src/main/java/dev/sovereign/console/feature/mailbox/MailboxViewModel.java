package dev.sovereign.console.feature.mailbox;

import dev.sovereign.console.ledger.FilterChoice;
import dev.sovereign.console.ledger.Formats;
import dev.sovereign.console.ledger.LiveLedger;
import dev.sovereign.console.ledger.Search;
import dev.sovereign.engine.admin.AdminSnapshot;
import dev.sovereign.engine.admin.LedgerCounts;
import dev.sovereign.engine.admin.MessageRow;
import java.util.List;
import javafx.beans.property.ObjectProperty;
import javafx.beans.property.ReadOnlyStringProperty;
import javafx.beans.property.ReadOnlyStringWrapper;
import javafx.beans.property.SimpleObjectProperty;
import javafx.collections.FXCollections;
import javafx.collections.ObservableList;

/**
 * Mailbox messages by state, with the claim holder, its token and a claim countdown.
 * UI-thread confined.
 */
public final class MailboxViewModel {
    /** The state filter's choices; {@link #ALL} shows every state. */
    public static final List<String> STATES = List.of("ALL", "NEW", "CLAIMED", "DONE", "DEAD");

    public static final String ALL = "ALL";

    private final LiveLedger ledger;
    private final ObservableList<MessageRow> rows = FXCollections.observableArrayList();
    /** Made once: a fresh unmodifiable wrapper per call would drop listeners when collected. */
    private final ObservableList<MessageRow> rowsView = FXCollections.unmodifiableObservableList(rows);

    private final ObjectProperty<String> stateFilter = new SimpleObjectProperty<>(this, "stateFilter", ALL);
    private final ReadOnlyStringWrapper summary = new ReadOnlyStringWrapper(this, "summary", "");
    private final ObservableList<FilterChoice> filterChoices = FXCollections.observableArrayList();

    public MailboxViewModel(LiveLedger ledger) {
        this.ledger = ledger;
        ledger.snapshotProperty().addListener((obs, old, s) -> refresh());
        stateFilter.addListener((obs, old, f) -> refresh());
        ledger.search().queryProperty().addListener((obs, old, q) -> refresh());
        refresh();
    }

    public ObservableList<MessageRow> rows() {
        return rowsView;
    }

    /** The filter's buttons with the database's counts: {@code All 368}, {@code Done 365}, ... */
    public ObservableList<FilterChoice> filterChoices() {
        return filterChoices;
    }

    public ObjectProperty<String> stateFilterProperty() {
        return stateFilter;
    }

    public ReadOnlyStringProperty summaryProperty() {
        return summary.getReadOnlyProperty();
    }

    public LiveLedger ledger() {
        return ledger;
    }

    /** The claim column: {@code 4.2 s left}, {@code expired 1.0 s ago}, or empty when not claimed. */
    public String claimCountdown(MessageRow m, long now) {
        if (!"CLAIMED".equals(m.state()) || m.claimExpiresAt() == null) {
            return "";
        }
        return m.isClaimExpiredAt(now)
                ? "expired " + Formats.duration(now - m.claimExpiresAt()) + " ago"
                : Formats.duration(m.claimRemainingAt(now)) + " left";
    }

    private void refresh() {
        AdminSnapshot s = ledger.snapshot();
        List<MessageRow> all = s == null ? List.of() : s.messages();
        String f = stateFilter.get();
        List<MessageRow> shown = all.stream()
                .filter(m -> (f == null || f.equals(ALL) || m.state().equals(f))
                        && ledger.search()
                                .matches(
                                        Search.tokens(m.claimToken()),
                                        Search.concat(
                                                Search.names(m.claimProcess()),
                                                m.id(),
                                                m.sender(),
                                                m.recipient(),
                                                m.claimActor(),
                                                m.subject())))
                .toList();
        if (!shown.equals(rows)) {
            rows.setAll(shown);
        }
        // counted by the database: finished messages are a capped page of rows, their totals are not
        LedgerCounts c = s == null ? LedgerCounts.NONE : s.counts();
        List<FilterChoice> choices = List.of(
                new FilterChoice(ALL, "All " + c.messages()),
                new FilterChoice("NEW", "New " + c.messagesNew()),
                new FilterChoice("CLAIMED", "Claimed " + c.messagesClaimed()),
                new FilterChoice("DONE", "Done " + c.messagesDone()),
                new FilterChoice("DEAD", "Dead " + c.messagesDead()));
        if (!choices.equals(filterChoices)) {
            filterChoices.setAll(choices);
        }
        summary.set(c.messagesNew() + " new \u00b7 " + c.messagesClaimed() + " claimed \u00b7 " + c.messagesDone()
                + " done \u00b7 " + c.messagesDead() + " dead"
                + (all.size() < c.messages() ? " (latest " + all.size() + " of " + c.messages() + " shown)" : ""));
    }
}
