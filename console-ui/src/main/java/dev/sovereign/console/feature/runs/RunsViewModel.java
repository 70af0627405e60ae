package dev.sovereign.console.feature.runs;

import dev.sovereign.console.actions.ActionStatus;
import dev.sovereign.console.actions.OperatorDesk;
import dev.sovereign.console.fx.CurrentThreadUiExecutor;
import dev.sovereign.console.fx.UiExecutor;
import dev.sovereign.console.ledger.FilterChoice;
import dev.sovereign.console.ledger.Formats;
import dev.sovereign.console.ledger.LiveLedger;
import dev.sovereign.console.ledger.Search;
import dev.sovereign.engine.admin.AdminSnapshot;
import dev.sovereign.engine.admin.AssignmentRow;
import dev.sovereign.engine.admin.AttemptRow;
import dev.sovereign.engine.admin.LedgerCounts;
import dev.sovereign.engine.admin.ReceiptRow;
import dev.sovereign.engine.base.Refusal;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import javafx.beans.binding.Bindings;
import javafx.beans.binding.BooleanBinding;
import javafx.beans.property.ObjectProperty;
import javafx.beans.property.ReadOnlyLongProperty;
import javafx.beans.property.ReadOnlyLongWrapper;
import javafx.beans.property.ReadOnlyObjectProperty;
import javafx.beans.property.ReadOnlyObjectWrapper;
import javafx.beans.property.ReadOnlyStringProperty;
import javafx.beans.property.ReadOnlyStringWrapper;
import javafx.beans.property.SimpleObjectProperty;
import javafx.collections.FXCollections;
import javafx.collections.ObservableList;

/**
 * Assignments with their receipts, and the attempts of the selected one. Runs that need an operator
 * ({@link AssignmentRow#needsOperator()}: failed or blocked, worker-lost or not, nobody retried or acknowledged
 * them) are counted and flagged for an operator, who can retry or acknowledge the selected run (through the
 * {@link OperatorDesk}, off the UI thread). A retry's new assignment is selected as soon as a snapshot
 * shows it. UI-thread confined.
 */
public final class RunsViewModel {
    private final LiveLedger ledger;
    private final Formats formats;
    private final OperatorDesk desk;
    private final ActionStatus status = new ActionStatus();
    private final RunFilesViewModel files;
    private final BooleanBinding canRetry;
    private final BooleanBinding canAcknowledge;
    /** The id of a retry just created, selected when it first appears. */
    private String selectWhenSeen;
    /** Set while the filter is widened from inside a refresh, so it does not refresh itself again. */
    private boolean widening;

    private final ObservableList<AssignmentRow> assignments = FXCollections.observableArrayList();
    /** Made once: a fresh unmodifiable wrapper per call would drop listeners when collected. */
    private final ObservableList<AssignmentRow> assignmentsView = FXCollections.unmodifiableObservableList(assignments);

    private final ObservableList<AttemptRow> attempts = FXCollections.observableArrayList();
    /** Made once: a fresh unmodifiable wrapper per call would drop listeners when collected. */
    private final ObservableList<AttemptRow> attemptsView = FXCollections.unmodifiableObservableList(attempts);

    private final ObjectProperty<AssignmentRow> selected = new SimpleObjectProperty<>(this, "selected");
    private final ObservableList<AssignmentRow> selection = FXCollections.observableArrayList();
    private final ReadOnlyObjectWrapper<BulkAction> pendingBulk = new ReadOnlyObjectWrapper<>(this, "pendingBulk");
    private final BooleanBinding canBulk;
    private final ReadOnlyStringWrapper summary = new ReadOnlyStringWrapper(this, "summary", "");
    /** What the empty table says: "no assignments yet", or that the search or the filter hides them all. */
    private final ReadOnlyStringWrapper emptyText = new ReadOnlyStringWrapper(this, "emptyText", NO_ASSIGNMENTS);
    /** The empty table's text when the ledger has no assignment at all. */
    public static final String NO_ASSIGNMENTS =
            "No assignments yet. Create one with 'sovereign assign ACTOR --provider SPEC'.";

    private final ReadOnlyStringWrapper attention = new ReadOnlyStringWrapper(this, "attention", "");
    private final ReadOnlyStringWrapper detail = new ReadOnlyStringWrapper(this, "detail", "");
    private final ReadOnlyStringWrapper history = new ReadOnlyStringWrapper(this, "history", "");
    /** The most history lines shown; older ones are counted. */
    static final int HISTORY_LINES = 40;

    private final ReadOnlyLongWrapper needsOperator = new ReadOnlyLongWrapper(this, "needsOperator");
    /** The state filter's choice: {@link #ALL}, a state, or {@link #NEEDS_ACTION} (runs needing an operator). */
    private final ObjectProperty<String> stateFilter = new SimpleObjectProperty<>(this, "stateFilter", ALL);

    private final ObservableList<FilterChoice> filterChoices = FXCollections.observableArrayList();

    /** The state filter's keys, in button order. */
    public static final String ALL = "ALL";

    /**
     * The runs that need an operator ({@link AssignmentRow#needsOperator()}: failed or blocked, neither retried nor
     * acknowledged), worker-lost or not: the same runs the status bar's alerts and the navigation count.
     */
    public static final String NEEDS_ACTION = "NEEDS_ACTION";

    public static final List<String> STATES =
            List.of(ALL, "CREATED", "RUNNING", "COMPLETED", "BLOCKED", "FAILED", NEEDS_ACTION);

    public RunsViewModel(LiveLedger ledger, Formats formats, OperatorDesk desk) {
        this(ledger, formats, desk, new CurrentThreadUiExecutor());
    }

    /** {@code ui} reads the selected run's files from the disk in the background ({@link RunFilesViewModel}). */
    public RunsViewModel(LiveLedger ledger, Formats formats, OperatorDesk desk, UiExecutor ui) {
        this.ledger = ledger;
        this.formats = formats;
        this.desk = desk;
        this.files = new RunFilesViewModel(ledger, ui, selected);
        ledger.snapshotProperty().addListener((obs, old, s) -> refresh(s));
        ledger.journalRevisionProperty().addListener((obs, old, r) -> showHistory());
        stateFilter.addListener((obs, old, f) -> refreshUnlessWidening());
        ledger.search().queryProperty().addListener((obs, old, q) -> refreshUnlessWidening());
        selected.addListener((obs, old, a) -> showAttempts());
        // a running run's holder goes silent past its TTL by the clock alone: its page says so (issue 31)
        ledger.nowProperty().addListener((obs, old, now) -> {
            AssignmentRow a = selected.get();
            if (a != null && "RUNNING".equals(a.state())) {
                String d = describe(a);
                if (!d.equals(detail.get())) {
                    detail.set(d);
                }
            }
        });
        canRetry = Bindings.createBooleanBinding(
                () -> desk.availableProperty().get() && !status.isBusy() && isRetryable(selected.get()),
                selected,
                status.busyProperty(),
                desk.availableProperty());
        canAcknowledge = Bindings.createBooleanBinding(
                () -> desk.availableProperty().get() && !status.isBusy() && isAcknowledgeable(selected.get()),
                selected,
                status.busyProperty(),
                desk.availableProperty());
        canBulk = Bindings.createBooleanBinding(
                () -> desk.availableProperty().get() && !status.isBusy(),
                status.busyProperty(),
                desk.availableProperty());
        // a question about another database's runs must not be answered on this one
        ledger.snapshotProperty().addListener((obs, old, s) -> {
            if (s == null || old == null || !s.location().equals(old.location())) {
                pendingBulk.set(null);
            }
        });
        refresh(ledger.snapshot());
    }

    /** A FAILED or BLOCKED run nobody retried yet. */
    public static boolean isRetryable(AssignmentRow a) {
        return a != null && (a.state().equals("FAILED") || a.state().equals("BLOCKED")) && a.retriedBy() == null;
    }

    /** A FAILED or BLOCKED run nobody retried or acknowledged yet. */
    public static boolean isAcknowledgeable(AssignmentRow a) {
        return isRetryable(a) && a.acknowledgedAt() == null;
    }

    /** Retries the selected run: a new CREATED assignment with {@code retry_of}; it is selected once seen. */
    public void retrySelected() {
        AssignmentRow a = selected.get();
        if (!canRetry.get()) {
            return;
        }
        desk.run(
                status,
                "Retrying " + a.id() + "\u2026",
                actions -> actions.retry(a.id()),
                id -> "Retried " + a.id() + " as " + id + ": a new assignment for " + a.actor()
                        + ", waiting for a worker to run it.",
                id -> {
                    // the snapshot that shows the new row may have come in before this answer: look at the latest
                    // one now, and at every later one until the row is there
                    selectWhenSeen = id;
                    refresh(ledger.snapshot());
                });
    }

    /** Acknowledges the selected run: an operator has seen it; it is no longer flagged. */
    public void acknowledgeSelected() {
        AssignmentRow a = selected.get();
        if (!canAcknowledge.get()) {
            return;
        }
        desk.run(
                status,
                "Acknowledging " + a.id() + "\u2026",
                actions -> {
                    actions.acknowledge(a.id());
                    return a.id();
                },
                id -> "Acknowledged " + id + ": it stays " + a.state().toLowerCase(Locale.ROOT)
                        + " and is no longer flagged.",
                id -> {});
    }

    // ---- bulk actions (issue 17, item 8): several runs at once, after a confirmation that says how many ----

    /** What a bulk action would do, awaiting the operator's confirmation. */
    public record BulkAction(boolean retry, List<String> ids, String question, String confirmText) {}

    /** Retries the selected runs that can be retried, once confirmed. */
    public void askRetrySelected() {
        ask(
                true,
                selection.stream()
                        .filter(RunsViewModel::isRetryable)
                        .map(AssignmentRow::id)
                        .toList(),
                "selected");
    }

    /** Acknowledges the selected runs that can be acknowledged, once confirmed. */
    public void askAcknowledgeSelected() {
        ask(
                false,
                selection.stream()
                        .filter(RunsViewModel::isAcknowledgeable)
                        .map(AssignmentRow::id)
                        .toList(),
                "selected");
    }

    /** Retries every run waiting for an operator (failed or blocked, not retried or acknowledged), once confirmed. */
    public void askRetryAllWorkerLost() {
        ask(true, needingOperator(), "waiting");
    }

    /** Acknowledges every run waiting for an operator, once confirmed. */
    public void askAcknowledgeAllWorkerLost() {
        ask(false, needingOperator(), "waiting");
    }

    private List<String> needingOperator() {
        AdminSnapshot s = ledger.snapshot();
        // the snapshot always carries every run that waits for an operator, however old (AdminReader)
        return s == null
                ? List.of()
                : s.assignments().stream()
                        .filter(AssignmentRow::needsOperator)
                        .map(AssignmentRow::id)
                        .toList();
    }

    private void ask(boolean retry, List<String> ids, String which) {
        if (ids.isEmpty() || !desk.availableProperty().get() || status.isBusy()) {
            return;
        }
        int n = ids.size();
        String runs = n == 1 ? "1 " + which + " run" : n + " " + which + " runs";
        pendingBulk.set(new BulkAction(
                retry,
                List.copyOf(ids),
                retry
                        ? "Retry " + runs + "? Each gets a new assignment that a worker will run again."
                        : "Acknowledge " + runs + "? They stay as they ended and are no longer flagged.",
                (retry ? "Retry " : "Acknowledge ") + n));
    }

    /** The bulk action waiting for confirmation, or null. */
    public ReadOnlyObjectProperty<BulkAction> pendingBulkProperty() {
        return pendingBulk.getReadOnlyProperty();
    }

    public void cancelBulk() {
        pendingBulk.set(null);
    }

    /**
     * Does the confirmed bulk action in the background, one run at a time; a run another operator
     * already handled is counted, not fatal. One sentence at the end says how many were done.
     */
    public void confirmBulk() {
        BulkAction b = pendingBulk.get();
        pendingBulk.set(null);
        if (b == null) {
            return;
        }
        int n = b.ids().size();
        desk.run(
                status,
                (b.retry() ? "Retrying " : "Acknowledging ") + n + (n == 1 ? " run\u2026" : " runs\u2026"),
                actions -> {
                    int done = 0;
                    List<String> refused = new ArrayList<>();
                    for (String id : b.ids()) {
                        try {
                            if (b.retry()) {
                                actions.retry(id);
                            } else {
                                actions.acknowledge(id);
                            }
                            done++;
                        } catch (Refusal r) {
                            refused.add(id + ": " + r.getMessage());
                        }
                    }
                    return new int[] {done, refused.size()};
                },
                r -> (b.retry() ? "Retried " : "Acknowledged ") + r[0] + " of " + n + (n == 1 ? " run" : " runs")
                        + (r[1] == 0
                                ? "."
                                : "; " + r[1] + (r[1] == 1 ? " was" : " were")
                                        + " refused (already handled by someone else)."),
                r -> {});
    }

    /** The rows selected in the table (several with Shift or Ctrl); the view keeps it current. */
    public ObservableList<AssignmentRow> selection() {
        return selection;
    }

    /** How many runs wait for an operator (counted by the database): the "all worker-lost" buttons' number. */
    public BooleanBinding canBulkProperty() {
        return canBulk;
    }

    /** Selects the assignment {@code id} (a link from another page), widening the filter if it hid it. */
    public boolean select(String id) {
        AdminSnapshot s = ledger.snapshot();
        AssignmentRow a = s == null
                ? null
                : s.assignments().stream()
                        .filter(x -> x.id().equals(id))
                        .findFirst()
                        .orElse(null);
        if (a == null) {
            return false;
        }
        if (widenUntilShown(a)) {
            refresh(s);
        }
        assignments.stream().filter(x -> x.id().equals(id)).findFirst().ifPresent(selected::set);
        return true;
    }

    /** Selects the first run that waits for an operator (the notice's "Review" button). */
    public void selectFirstNeedingOperator() {
        AdminSnapshot s = ledger.snapshot();
        AssignmentRow first = s == null
                ? null
                : s.assignments().stream()
                        .filter(AssignmentRow::needsOperator)
                        .findFirst()
                        .orElse(null);
        if (first == null) {
            return;
        }
        if (widenUntilShown(first)) {
            refresh(s);
        }
        assignments.stream().filter(a -> a.id().equals(first.id())).findFirst().ifPresent(selected::set);
    }

    /**
     * Widens the state filter, then clears the search, until {@code a} passes; the caller refreshes.
     * Returns whether anything was widened.
     */
    private boolean widenUntilShown(AssignmentRow a) {
        boolean widened = false;
        widening = true;
        try {
            if (!shows(a) && !ALL.equals(stateFilter.get())) {
                stateFilter.set(ALL);
                widened = true;
            }
            if (!shows(a) && ledger.search().isActive()) {
                ledger.search().queryProperty().set("");
                widened = true;
            }
        } finally {
            widening = false;
        }
        return widened;
    }

    private void refreshUnlessWidening() {
        if (!widening) {
            refresh(ledger.snapshot());
        }
    }

    /** Which runs are shown: {@link #ALL}, one state, or {@link #NEEDS_ACTION}. */
    public ObjectProperty<String> stateFilterProperty() {
        return stateFilter;
    }

    /** The filter's buttons with the database's counts: {@code All 335}, {@code Failed 12}, ... */
    public ObservableList<FilterChoice> filterChoices() {
        return filterChoices;
    }

    /** Whether the state filter and the search let {@code a} through. */
    boolean shows(AssignmentRow a) {
        String f = stateFilter.get();
        boolean byState = f == null
                || f.equals(ALL)
                || (f.equals(NEEDS_ACTION) ? a.needsOperator() : a.state().equals(f));
        return byState
                && ledger.search()
                        .matches(
                                Search.tokens(a.currentAttemptToken()),
                                a.id(),
                                a.actor(),
                                a.retryOf(),
                                a.retriedBy(),
                                a.currentAttempt(),
                                a.receipt() == null ? null : a.receipt().attemptId());
    }

    public BooleanBinding canRetryProperty() {
        return canRetry;
    }

    public BooleanBinding canAcknowledgeProperty() {
        return canAcknowledge;
    }

    /** The last retry or acknowledgement: in progress, done, or refused, in one sentence. */
    public ActionStatus status() {
        return status;
    }

    public ObservableList<AssignmentRow> assignments() {
        return assignmentsView;
    }

    /** The selected assignment's attempts, newest first; every recent attempt when none is selected. */
    public ObservableList<AttemptRow> attempts() {
        return attemptsView;
    }

    public ObjectProperty<AssignmentRow> selectedProperty() {
        return selected;
    }

    public ReadOnlyStringProperty summaryProperty() {
        return summary.getReadOnlyProperty();
    }

    /** Empty, or a sentence saying how many runs wait for an operator. */
    public ReadOnlyStringProperty attentionProperty() {
        return attention.getReadOnlyProperty();
    }

    /** How many runs wait for an operator, counted by the database (the navigation badge). */
    public ReadOnlyLongProperty needsOperatorProperty() {
        return needsOperator.getReadOnlyProperty();
    }

    /** The selected run's receipt file and output folder on disk, and opening them. */
    public RunFilesViewModel files() {
        return files;
    }

    /** The selected assignment and its receipt, in words. */
    public ReadOnlyStringProperty detailProperty() {
        return detail.getReadOnlyProperty();
    }

    private void refresh(AdminSnapshot s) {
        List<AssignmentRow> fresh = s == null ? List.of() : s.assignments();
        String keep = selected.get() == null ? null : selected.get().id();
        AssignmentRow retried = selectWhenSeen == null
                ? null
                : fresh.stream()
                        .filter(a -> a.id().equals(selectWhenSeen))
                        .findFirst()
                        .orElse(null);
        if (retried != null) {
            keep = selectWhenSeen;
            selectWhenSeen = null;
            widenUntilShown(retried); // a retry just made is shown whatever the filter
        }
        List<AssignmentRow> shown = fresh.stream().filter(this::shows).toList();
        if (!shown.equals(assignments)) {
            assignments.setAll(shown);
        }
        String keepId = keep;
        selected.set(
                keepId == null
                        ? null
                        : shown.stream()
                                .filter(a -> a.id().equals(keepId))
                                .findFirst()
                                .orElse(null));
        showAttempts();
        // totals from the database's counts, never from the capped page of rows (issue 17)
        LedgerCounts c = s == null ? LedgerCounts.NONE : s.counts();
        long lost = c.needsOperator();
        needsOperator.set(lost);
        List<FilterChoice> choices = STATES.stream()
                .map(k -> new FilterChoice(
                        k,
                        label(k) + " "
                                + switch (k) {
                                    case ALL -> c.assignments();
                                    case NEEDS_ACTION -> lost;
                                    default -> c.assignmentsIn(k);
                                }))
                .toList();
        if (!choices.equals(filterChoices)) {
            filterChoices.setAll(choices);
        }
        emptyText.set(emptyText(c.assignments()));
        summary.set(c.assignments() + " assignments"
                + (fresh.size() < c.assignments() ? " (latest " + fresh.size() + " shown)" : "") + " \u00b7 "
                + c.running() + " running \u00b7 "
                + lost + " need" + (lost == 1 ? "s" : "") + " action");
        attention.set(attention(lost, s == null ? List.of() : s.assignments()));
    }

    /**
     * What the notice over the table says: how many runs wait for an operator and why, worker-lost ones (outcome
     * unknown) named as such; empty when none waits.
     */
    static String attention(long waiting, List<AssignmentRow> rows) {
        if (waiting == 0) {
            return "";
        }
        long lost =
                rows.stream().filter(a -> a.needsOperator() && a.isWorkerLost()).count();
        if (lost == waiting) {
            return waiting == 1
                    ? "1 run was recovered after its worker died (worker_lost): its outcome is unknown."
                            + " Read its receipt, then retry it or acknowledge it."
                    : waiting + " runs were recovered after their workers died (worker_lost): their outcomes are"
                            + " unknown. Read their receipts, then retry or acknowledge each.";
        }
        if (lost == 0) {
            return waiting == 1
                    ? "1 run ended failed or blocked and nobody has retried or acknowledged it."
                            + " Read its receipt, then retry it or acknowledge it."
                    : waiting + " runs ended failed or blocked and nobody has retried or acknowledged them."
                            + " Read their receipts, then retry or acknowledge each.";
        }
        return waiting + " runs need an operator: " + (lost == 1 ? "1 was" : lost + " were")
                + " recovered after the worker died (worker_lost, outcome unknown), the other"
                + (waiting - lost == 1 ? "" : "s") + " ended failed or blocked."
                + " Read their receipts, then retry or acknowledge each.";
    }

    private String emptyText(long total) {
        String f = stateFilter.get();
        boolean filtered = f != null && !f.equals(ALL);
        if (ledger.search().isActive()) {
            return "No assignment matches the search '"
                    + ledger.search().queryProperty().get().strip() + "'"
                    + (filtered ? " among the " + label(f).toLowerCase(Locale.ROOT) + " runs" : "") + " (of " + total
                    + "). Clear the search (Esc in the search field) to see them all.";
        }
        if (filtered && total > 0) {
            return "No run is " + label(f).toLowerCase(Locale.ROOT) + " now (of " + total
                    + "). Choose All to see them all.";
        }
        return NO_ASSIGNMENTS;
    }

    /** What the assignments table shows when it has no row. */
    public ReadOnlyStringProperty emptyTextProperty() {
        return emptyText.getReadOnlyProperty();
    }

    private static String label(String key) {
        return switch (key) {
            case ALL -> "All";
            case NEEDS_ACTION -> "Needs action";
            default -> key.charAt(0) + key.substring(1).toLowerCase(Locale.ROOT);
        };
    }

    private void showAttempts() {
        AdminSnapshot s = ledger.snapshot();
        List<AttemptRow> all = s == null ? List.of() : s.attempts();
        AssignmentRow a = selected.get();
        List<AttemptRow> shown = a == null
                ? all.stream()
                        .filter(x -> ledger.search()
                                .matches(
                                        Search.tokens(x.token(), x.leaseToken()),
                                        Search.concat(Search.names(x.process()), x.id(), x.assignmentId(), x.actor())))
                        .toList()
                : all.stream().filter(x -> x.assignmentId().equals(a.id())).toList();
        if (!shown.equals(attempts)) {
            attempts.setAll(shown);
        }
        detail.set(a == null ? "" : describe(a));
        showHistory();
    }

    /**
     * The selected assignment's history, oldest first, like Temporal's event history: every journal row
     * of the console's window that is about it — its own rows (created, retried, acknowledged, refused
     * terminal writes), its attempts' rows (started, done, superseded, recovered, stolen), and any row whose
     * sentence names it. Empty without a selection.
     */
    public ReadOnlyStringProperty historyProperty() {
        return history.getReadOnlyProperty();
    }

    private void showHistory() {
        AssignmentRow a = selected.get();
        if (a == null) {
            history.set("");
            return;
        }
        AdminSnapshot s = ledger.snapshot();
        Set<String> ids = new HashSet<>();
        ids.add(a.id());
        if (s != null) {
            s.attempts().stream().filter(x -> x.assignmentId().equals(a.id())).forEach(x -> ids.add(x.id()));
        }
        if (a.currentAttempt() != null) {
            ids.add(a.currentAttempt());
        }
        List<String> lines = new ArrayList<>();
        for (var e : ledger.events()) {
            if (ids.contains(e.resourceId())
                    || (e.sentence() != null && e.sentence().contains(a.id()))) {
                lines.add(formats.preciseTime(e.at()) + "  #" + e.seq() + "  " + formats.humanize(e.sentence()));
            }
        }
        if (lines.isEmpty()) {
            history.set("No journal rows about it in the console's window of the journal (the last "
                    + LiveLedger.MAX_EVENTS + " events); 'sovereign events' shows older ones.");
            return;
        }
        int hidden = Math.max(0, lines.size() - HISTORY_LINES);
        history.set((hidden == 0 ? "" : hidden + " older rows not shown.\n")
                + String.join("\n", lines.subList(hidden, lines.size())));
    }

    /**
     * The worker-lost chip: {@code worker lost} while it waits for an operator, then
     * {@code worker lost · acknowledged} or {@code worker lost · retried}; empty for other runs.
     */
    public static String workerLostChip(AssignmentRow a) {
        if (a == null || !a.isWorkerLost()) {
            return "";
        }
        return a.retriedBy() != null
                ? "worker lost \u00b7 retried"
                : a.acknowledgedAt() != null ? "worker lost \u00b7 acknowledged" : "worker lost";
    }

    /** {@code completed}, {@code failed · worker_lost}, or an em dash while there is no receipt. */
    public static String receiptText(AssignmentRow a) {
        ReceiptRow r = a.receipt();
        if (r == null) {
            return "\u2014";
        }
        return r.failureCategory() == null ? r.status() : r.status() + " \u00b7 " + r.failureCategory();
    }

    /**
     * For a RUNNING run whose current attempt is past its expiry: that its holder has been silent past its TTL,
     * read from the ledger as it is (the attempt's own expiry), with nothing written; else null.
     */
    String silentHolder(AssignmentRow a) {
        AdminSnapshot s = ledger.snapshot();
        if (s == null || !"RUNNING".equals(a.state()) || a.currentAttempt() == null) {
            return null;
        }
        long now = ledger.now();
        AttemptRow at = s.attempts().stream()
                .filter(x -> x.id().equals(a.currentAttempt()))
                .findFirst()
                .orElse(null);
        if (at == null || !at.isAbandonedAt(now)) {
            return null;
        }
        return "Its holder " + at.process().displayName() + " has been silent past its TTL: attempt " + at.id()
                + " (token " + at.token() + ", TTL " + Formats.duration(at.ttlMs()) + ") expired at "
                + formats.time(at.expiresAt()) + ", " + Formats.duration(now - at.expiresAt())
                + " ago, without a renewal. It is still RUNNING in the ledger until a supervisor tick recovers it"
                + " as FAILED (worker_lost); a late write of that holder will be refused.";
    }

    private String describe(AssignmentRow a) {
        StringBuilder sb = new StringBuilder();
        sb.append("Assignment ")
                .append(a.id())
                .append(" for actor ")
                .append(a.actor())
                .append(" is ")
                .append(a.state())
                .append(" (provider ")
                .append(a.providerSpec())
                .append(", workspace ")
                .append(a.workspacePolicy())
                .append(").");
        if (a.retryOf() != null) {
            sb.append(" It retries ").append(a.retryOf()).append('.');
        }
        ReceiptRow r = a.receipt();
        if (r == null) {
            sb.append(" No receipt yet.");
        } else {
            sb.append("\nReceipt: ").append(r.status());
            if (r.failureCategory() != null) {
                sb.append(" (").append(r.failureCategory()).append(')');
            }
            sb.append(", written at ")
                    .append(formats.time(r.createdAt()))
                    .append(" for attempt ")
                    .append(r.attemptId())
                    .append(" with token ")
                    .append(r.attemptToken())
                    .append('.');
            if (!r.outcomeKnown()) {
                sb.append(
                        r.fenceStolen()
                                ? " Its outcome is unknown: an operator stole its fence, so its worker could no longer"
                                        + " report, and the supervisor recovered it when it expired."
                                : " Its outcome is unknown: the worker died before it could report.");
            }
            if (r.outputDir() != null) {
                sb.append("\nOutput folder (this attempt's own): ").append(r.outputDir());
            }
            if (r.summary() != null && !r.summary().isBlank()) {
                sb.append("\n").append(formats.humanize(r.summary()));
            }
        }
        String silent = silentHolder(a);
        if (silent != null) {
            sb.append('\n').append(silent);
        }
        if (a.isWorkerLost() && a.retriedBy() != null) {
            sb.append("\nRetried as ").append(a.retriedBy()).append('.');
        } else if (a.acknowledgedAt() != null) {
            sb.append("\nAcknowledged by an operator at ")
                    .append(formats.time(a.acknowledgedAt()))
                    .append('.');
        }
        if (a.needsOperator()) {
            sb.append("\nNeeds an operator: retry it or acknowledge it.");
        }
        return sb.toString();
    }
}
