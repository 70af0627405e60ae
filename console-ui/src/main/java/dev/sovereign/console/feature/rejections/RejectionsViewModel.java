package dev.sovereign.console.feature.rejections;

import dev.sovereign.console.ledger.FilterChoice;
import dev.sovereign.console.ledger.Formats;
import dev.sovereign.console.ledger.LiveLedger;
import dev.sovereign.console.ledger.Search;
import dev.sovereign.engine.admin.JournalEntry;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import javafx.beans.binding.Bindings;
import javafx.beans.property.ObjectProperty;
import javafx.beans.property.ReadOnlyLongProperty;
import javafx.beans.property.ReadOnlyLongWrapper;
import javafx.beans.property.ReadOnlyStringProperty;
import javafx.beans.property.ReadOnlyStringWrapper;
import javafx.beans.property.SimpleObjectProperty;
import javafx.collections.FXCollections;
import javafx.collections.ObservableList;
import javafx.collections.transformation.FilteredList;

/**
 * The live feed of refused writes, newest first: time, category, resource, the refused process,
 * presented vs current token and the sentence that explains it. UI-thread confined.
 */
public final class RejectionsViewModel {
    private final LiveLedger ledger;
    private final Formats formats;
    private final ObjectProperty<JournalEntry> selected = new SimpleObjectProperty<>(this, "selected");
    private final ReadOnlyStringWrapper summary = new ReadOnlyStringWrapper(this, "summary");
    private final ReadOnlyStringWrapper detail = new ReadOnlyStringWrapper(this, "detail", "");
    private final ReadOnlyLongWrapper total = new ReadOnlyLongWrapper(this, "total");
    /** The category filter's "every category" key. */
    public static final String ALL = "ALL";

    private final ObjectProperty<String> categoryFilter = new SimpleObjectProperty<>(this, "categoryFilter", ALL);
    private final ObservableList<FilterChoice> filterChoices = FXCollections.observableArrayList();
    private final FilteredList<JournalEntry> shown;

    public RejectionsViewModel(LiveLedger ledger, Formats formats) {
        this.ledger = ledger;
        this.formats = formats;
        this.shown = new FilteredList<>(ledger.rejections());
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
                    return n == 0
                            ? "No refused writes yet"
                            : n
                                    + (n == 1 ? " refused write" : " refused writes")
                                    + (shown < n ? " (latest " + shown + " shown)" : "");
                },
                ledger.rejections(),
                total));
        selected.addListener((obs, old, e) -> detail.set(e == null ? "" : describe(e)));
        categoryFilter.addListener((obs, old, f) -> filter());
        ledger.search().queryProperty().addListener((obs, old, q) -> filter());
        ledger.snapshotProperty().addListener((obs, old, s) -> updateChoices());
        total.addListener((obs, old, n) -> updateChoices());
        updateChoices();
    }

    /** The feed, as filtered by category and by the search. */
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
        shown.setPredicate(e -> (f == null || f.equals(ALL) || f.equals(e.category()))
                && Search.matches(
                        q,
                        Search.tokens(e.presentedToken(), e.currentToken(), e.token()),
                        Search.concat(Search.names(e.process()), e.actor(), e.resourceId(), e.category())));
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

    /** The refusal's sentence, its times in the console's format. */
    public String sentence(JournalEntry e) {
        return formats.humanize(e.sentence());
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

    private String describe(JournalEntry e) {
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
