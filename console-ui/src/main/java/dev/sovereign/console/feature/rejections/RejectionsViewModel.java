package dev.sovereign.console.feature.rejections;

import dev.sovereign.console.ledger.FilterChoice;
import dev.sovereign.console.ledger.Formats;
import dev.sovereign.console.ledger.LiveLedger;
import dev.sovereign.console.ledger.Search;
import dev.sovereign.engine.admin.EventSentences;
import dev.sovereign.engine.admin.JournalEntry;
import dev.sovereign.engine.admin.LedgerCounts;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import javafx.beans.binding.Bindings;
import javafx.beans.property.ObjectProperty;
import javafx.beans.property.ReadOnlyIntegerProperty;
import javafx.beans.property.ReadOnlyIntegerWrapper;
import javafx.beans.property.ReadOnlyLongProperty;
import javafx.beans.property.ReadOnlyLongWrapper;
import javafx.beans.property.ReadOnlyStringProperty;
import javafx.beans.property.ReadOnlyStringWrapper;
import javafx.beans.property.SimpleObjectProperty;
import javafx.collections.FXCollections;
import javafx.collections.ListChangeListener;
import javafx.collections.ObservableList;
import javafx.collections.transformation.FilteredList;

/**
 * The live feed of refused writes, newest first: time, category, resource, the refused process,
 * presented vs current token and the sentence that explains it. The refusals of one late write are one row, an
 * incident with its parts (decision 0320): a row is its incident's lead refusal, {@link #incident} gives the rest.
 * UI-thread confined.
 */
public final class RejectionsViewModel {
    private final LiveLedger ledger;
    private final Formats formats;
    private final ObjectProperty<JournalEntry> selected = new SimpleObjectProperty<>(this, "selected");
    private final ReadOnlyStringWrapper summary = new ReadOnlyStringWrapper(this, "summary");
    private final ReadOnlyStringWrapper detail = new ReadOnlyStringWrapper(this, "detail", "");
    private final ReadOnlyLongWrapper total = new ReadOnlyLongWrapper(this, "total");
    private final ReadOnlyIntegerWrapper repeatsVersion = new ReadOnlyIntegerWrapper(this, "repeatsVersion");
    /** The category filter's "every category" key. */
    public static final String ALL = "ALL";

    private final ObjectProperty<String> categoryFilter = new SimpleObjectProperty<>(this, "categoryFilter", ALL);
    private final ObservableList<FilterChoice> filterChoices = FXCollections.observableArrayList();
    private final FilteredList<JournalEntry> shown;
    /** One row per incident: its lead refusal, newest first. */
    private final ObservableList<JournalEntry> leads = FXCollections.observableArrayList();
    /** The incident each row's lead opened, by the lead's seq. */
    private final Map<Long, RefusalIncident> incidents = new HashMap<>();

    private final ReadOnlyIntegerWrapper incidentCount = new ReadOnlyIntegerWrapper(this, "incidentCount");

    public RejectionsViewModel(LiveLedger ledger, Formats formats) {
        this.ledger = ledger;
        this.formats = formats;
        this.shown = new FilteredList<>(leads);
        regroup();
        ledger.rejections().addListener((ListChangeListener<JournalEntry>) c -> regroup());
        // the feed holds the newest few hundred; the total is counted by the database (issue 17)
        total.bind(Bindings.createLongBinding(
                () -> {
                    var snapshot = ledger.snapshot();
                    long counted = snapshot == null ? 0 : snapshot.counts().rejections();
                    return Math.max(counted, ledger.rejections().size());
                },
                ledger.rejections(),
                ledger.snapshotProperty()));
        summary.bind(Bindings.createStringBinding(
                () -> {
                    long n = total.get();
                    int shown = ledger.rejections().size();
                    int groups = incidentCount.get();
                    if (n == 0) {
                        return "No refused writes yet";
                    }
                    String refused = n + (n == 1 ? " refused write" : " refused writes");
                    if (shown < n) {
                        return refused + " (latest " + shown + " shown"
                                + (groups < shown ? " as " + incidents(groups) : "") + ")";
                    }
                    // one fact, one number: the incidents are counted, the refusals stay the database's count
                    return groups < n ? incidents(groups) + ", " + refused : refused;
                },
                ledger.rejections(),
                incidentCount,
                total));
        selected.addListener((obs, old, e) -> detail.set(e == null ? "" : describe(e)));
        categoryFilter.addListener((obs, old, f) -> filter());
        ledger.search().queryProperty().addListener((obs, old, q) -> filter());
        ledger.snapshotProperty().addListener((obs, old, s) -> updateChoices());
        ledger.snapshotProperty().addListener((obs, old, s) -> {
            var before = old == null ? java.util.Map.of() : old.counts().repeats();
            var now = s == null ? java.util.Map.of() : s.counts().repeats();
            if (!before.equals(now)) {
                repeatsVersion.set(repeatsVersion.get() + 1);
                JournalEntry e = selected.get();
                detail.set(e == null ? "" : describe(e));
            }
        });
        total.addListener((obs, old, n) -> updateChoices());
        updateChoices();
    }

    private static String incidents(int n) {
        return n + (n == 1 ? " incident" : " incidents");
    }

    /** Groups the feed's refusals into incidents again (a few thousand rows at most: a linear pass). */
    private void regroup() {
        List<RefusalIncident> grouped = RefusalIncident.group(ledger.rejections());
        incidents.clear();
        List<JournalEntry> next = new ArrayList<>(grouped.size());
        for (RefusalIncident i : grouped) {
            incidents.put(i.lead().seq(), i);
            next.add(i.lead());
        }
        JournalEntry was = selected.get();
        // new incidents come in at the top: added there, so the table keeps its selection and scroll position
        int k = leads.isEmpty() ? -1 : next.indexOf(leads.get(0));
        if (k > 0 && next.subList(k, next.size()).equals(leads)) {
            leads.addAll(0, next.subList(0, k));
        } else if (!next.equals(leads)) {
            leads.setAll(next);
        }
        incidentCount.set(grouped.size());
        if (was != null && incidents.containsKey(was.seq())) {
            detail.set(describe(was)); // a part that just arrived shows in the detail at once
        }
    }

    /** The incident a row (its lead refusal) stands for; an incident of one for a refusal not in the feed. */
    public RefusalIncident incident(JournalEntry row) {
        RefusalIncident i = row == null ? null : incidents.get(row.seq());
        return i != null ? i : new RefusalIncident(List.of(row));
    }

    /** How many incidents the feed's refusals make (a late write's three refusals are one). */
    public ReadOnlyIntegerProperty incidentCountProperty() {
        return incidentCount.getReadOnlyProperty();
    }

    /**
     * What a row's sentence cell says: the refusal's sentence, and for an incident of several refusals a second
     * line naming its parts.
     */
    public String rowText(JournalEntry row) {
        RefusalIncident i = incident(row);
        if (i.size() == 1) {
            return sentence(row);
        }
        return sentence(row) + "\n1 incident, " + i.size() + " refusals: " + i.partWords() + ".";
    }

    /** The feed, one row per incident, as filtered by category and by the search. */
    public ObservableList<JournalEntry> rows() {
        return shown;
    }

    /** {@link #ALL} or one refusal category ({@code fencing_token_stale}, ...). */
    public ObjectProperty<String> categoryFilterProperty() {
        return categoryFilter;
    }

    /** The filter's buttons: {@code All 523}, then each category that occurs with its count (the database's). */
    public ObservableList<FilterChoice> filterChoices() {
        return filterChoices;
    }

    private void filter() {
        String f = categoryFilter.get();
        if ((f == null || f.equals(ALL)) && !ledger.search().isActive()) {
            shown.setPredicate(null);
            return;
        }
        String q = ledger.search().queryProperty().get();
        // an incident shows when any of its refusals matches
        shown.setPredicate(row -> incident(row).parts().stream()
                .anyMatch(e -> (f == null || f.equals(ALL) || f.equals(e.category()))
                        && Search.matches(
                                q,
                                Search.tokens(e.presentedToken(), e.currentToken(), e.token()),
                                Search.concat(Search.names(e.process()), e.actor(), e.resourceId(), e.category()))));
    }

    private void updateChoices() {
        var s = ledger.snapshot();
        var byCategory = s == null ? Map.<String, Long>of() : s.counts().rejectionsByCategory();
        List<FilterChoice> choices = new ArrayList<>();
        choices.add(new FilterChoice(ALL, "All " + total.get()));
        new TreeMap<>(byCategory).forEach((k, n) -> choices.add(new FilterChoice(k, k + " " + n)));
        String f = categoryFilter.get();
        if (f != null && !f.equals(ALL) && !byCategory.containsKey(f)) {
            choices.add(new FilterChoice(f, f + " 0")); // the chosen one stays, even when another database has none
        }
        if (!choices.equals(filterChoices)) {
            filterChoices.setAll(choices);
        }
    }

    public ObjectProperty<JournalEntry> selectedProperty() {
        return selected;
    }

    /** Every refused write in the database (counted there), not only the ones in the feed. */
    public ReadOnlyLongProperty totalProperty() {
        return total.getReadOnlyProperty();
    }

    public ReadOnlyStringProperty summaryProperty() {
        return summary.getReadOnlyProperty();
    }

    /** The selected rejection in full: sentence, then the refusal's own message. */
    public ReadOnlyStringProperty detailProperty() {
        return detail.getReadOnlyProperty();
    }

    /**
     * The refusal's sentence, its times in the console's format; a refusal of a live lease repeated in its window says
     * how often as of the latest snapshot (decision 0019), not as of when its row was first read.
     */
    public String sentence(JournalEntry e) {
        var snapshot = ledger.snapshot();
        LedgerCounts.Repeat r =
                snapshot == null ? null : snapshot.counts().repeats().get(e.seq());
        if (r == null) {
            return formats.humanize(e.sentence());
        }
        return formats.humanize(EventSentences.withoutRepeats(e.sentence())
                + EventSentences.repeated(r.refusals(), formats.time(r.lastAt())));
    }

    /** Moves when the counts of repeated refusals changed: the rows' sentences are to be drawn again. */
    public ReadOnlyIntegerProperty repeatsVersionProperty() {
        return repeatsVersion.getReadOnlyProperty();
    }

    public String time(JournalEntry e) {
        return formats.preciseTime(e.at());
    }

    public static String resource(JournalEntry e) {
        return e.resourceType() + " " + e.resourceId();
    }

    public static String process(JournalEntry e) {
        return e.process() == null ? "\u2014" : e.process().displayName();
    }

    /** {@code 41 → 42}: the presented token against the current one. */
    public static String tokens(JournalEntry e) {
        return Formats.token(e.presentedToken()) + " vs " + Formats.token(e.currentToken());
    }

    private String describe(JournalEntry row) {
        RefusalIncident i = incident(row);
        if (i.size() == 1) {
            return describeOne(row);
        }
        StringBuilder sb = new StringBuilder();
        // the run the late write was for, named early: its id is a link, in sight before the parts' long words
        String run = i.parts().stream()
                .filter(p -> "assignment".equals(p.resourceType()))
                .map(JournalEntry::resourceId)
                .findFirst()
                .orElse(null);
        sb.append(sentence(row))
                .append("\n\nOne late write")
                .append(run == null ? "" : " of run " + run)
                .append(", ")
                .append(i.size())
                .append(" refusals (1 incident): ")
                .append(i.partWords())
                .append('.');
        int n = 1;
        for (JournalEntry e : i.parts()) {
            RefusalIncident.Part part = RefusalIncident.Part.of(e);
            String what = part == null ? "Refused write" : part.words();
            sb.append("\n\n")
                    .append(n++)
                    .append(". ")
                    .append(Character.toUpperCase(what.charAt(0)))
                    .append(what.substring(1))
                    .append(", journal seq ")
                    .append(e.seq())
                    .append(" at ")
                    .append(formats.preciseTime(e.at()))
                    .append(", category ")
                    .append(e.category())
                    .append('.');
            if (e.detail() != null && !e.detail().isBlank()) {
                sb.append(" The refusal said: ")
                        .append(formats.humanize(e.detail().replace(".; by --process", "; by --process")));
            }
        }
        return sb.toString();
    }

    private String describeOne(JournalEntry e) {
        StringBuilder sb = new StringBuilder();
        sb.append(sentence(e));
        if (e.detail() != null && !e.detail().isBlank()) {
            // a ledger written before the fix may still say "….; by --process: …"
            sb.append("\n\nThe refusal said: ")
                    .append(formats.humanize(e.detail().replace(".; by --process", "; by --process")));
        }
        sb.append("\n\nJournal seq ")
                .append(e.seq())
                .append(" at ")
                .append(formats.preciseTime(e.at()))
                .append(", category ")
                .append(e.category())
                .append('.');
        return sb.toString();
    }
}
