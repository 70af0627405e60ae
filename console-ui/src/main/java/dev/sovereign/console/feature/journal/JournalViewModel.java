package dev.sovereign.console.feature.journal;

import dev.sovereign.console.fx.UiExecutor;
import dev.sovereign.console.ledger.Formats;
import dev.sovereign.console.ledger.JournalQuery;
import dev.sovereign.console.ledger.LiveLedger;
import dev.sovereign.engine.admin.AdminReader;
import dev.sovereign.engine.admin.AdminSnapshot;
import dev.sovereign.engine.admin.JournalEntry;
import dev.sovereign.engine.admin.ProcessRef;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.ZoneId;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Supplier;
import javafx.beans.binding.Bindings;
import javafx.beans.property.BooleanProperty;
import javafx.beans.property.ObjectProperty;
import javafx.beans.property.ReadOnlyBooleanProperty;
import javafx.beans.property.ReadOnlyBooleanWrapper;
import javafx.beans.property.ReadOnlyLongProperty;
import javafx.beans.property.ReadOnlyLongWrapper;
import javafx.beans.property.ReadOnlyStringProperty;
import javafx.beans.property.ReadOnlyStringWrapper;
import javafx.beans.property.SimpleBooleanProperty;
import javafx.beans.property.SimpleObjectProperty;
import javafx.beans.property.SimpleStringProperty;
import javafx.beans.property.StringProperty;
import javafx.collections.FXCollections;
import javafx.collections.ObservableList;

/**
 * The Journal page: every journal event, oldest at the top and the newest at the bottom, as an operator's log
 * viewer shows them, with a live tail, filters by kind, actor, process and time, and older rows on request.
 *
 * <p>Where the rows come from: the live tail and the first rows are the poller's journal window
 * ({@link LiveLedger#events()}), already read in the background; nothing here reads the database on the UI
 * thread. Older rows are read on request, page by page, by the {@link UiExecutor}'s background thread through the
 * attached {@link AdminReader} ({@code eventsSince} over a window of seqs below the oldest row shown: the journal's
 * primary key, so each page is one short indexed read; decision 0400).
 *
 * <p>Bounded: at most {@link #MAX_ROWS} rows are kept. The rows shown are always a contiguous stretch of the
 * journal that matches the filters: every matching event between {@link #oldestSeq} and the newest row is in
 * the table. While the view follows the newest, the oldest rows drop off the top as new ones arrive; while the
 * operator paused it or scrolled away, new events are counted ({@link #heldProperty()}) instead of added, so what
 * they read does not move; loading older rows past the bound drops the newest, and "Jump to newest" brings them
 * back.
 *
 * <p>UI-thread confined.
 */
public final class JournalViewModel {
    /** The most rows the page keeps: said in the page's summary. */
    public static final int MAX_ROWS = 5_000;
    /** How many matching rows one request for older rows adds at most. */
    public static final int OLDER_PAGE = 1_000;
    /** How many journal rows one request for older rows reads at most, matching or not. */
    static final int OLDER_SCAN = 50_000;
    /** Rows per read of the journal. */
    static final int READ = 1_000;
    /** The kind filter's "every kind" key. */
    public static final String ALL = "ALL";

    private final LiveLedger ledger;
    private final Formats formats;
    private final UiExecutor ui;
    private final Supplier<AdminReader> reader;
    private final int maxRows;
    private final int olderPage;

    private final ObservableList<JournalEntry> rows = FXCollections.observableArrayList();
    private final ObservableList<JournalEntry> rowsView = FXCollections.unmodifiableObservableList(rows);
    private final ObjectProperty<String> kind = new SimpleObjectProperty<>(this, "kind", ALL);
    private final StringProperty actor = new SimpleStringProperty(this, "actor", "");
    private final StringProperty process = new SimpleStringProperty(this, "process", "");
    private final StringProperty from = new SimpleStringProperty(this, "from", "");
    private final StringProperty to = new SimpleStringProperty(this, "to", "");
    private final ReadOnlyStringWrapper timeProblem = new ReadOnlyStringWrapper(this, "timeProblem", "");
    private final ObservableList<String> kinds = FXCollections.observableArrayList();
    private final BooleanProperty active = new SimpleBooleanProperty(this, "active");
    private final BooleanProperty paused = new SimpleBooleanProperty(this, "paused");
    private final BooleanProperty following = new SimpleBooleanProperty(this, "following", true);
    private final ReadOnlyLongWrapper held = new ReadOnlyLongWrapper(this, "held");
    private final ReadOnlyBooleanWrapper loading = new ReadOnlyBooleanWrapper(this, "loading");
    private final ReadOnlyBooleanWrapper olderLeft = new ReadOnlyBooleanWrapper(this, "olderLeft");
    private final ReadOnlyStringWrapper summary = new ReadOnlyStringWrapper(this, "summary", "");
    /** Bumped whenever the stretch shown starts over (filters, a jump, another ledger): late pages are dropped. */
    private long generation;
    /** Every matching event with a seq in [oldestSeq, newestSeq] is in {@link #rows}; 0: nothing shown yet. */
    private long oldestSeq;

    private long newestSeq;
    private boolean built;
    private Filter filter = Filter.NONE;
    /** Set while {@link #show} sets several filter fields: they are applied once, at the end. */
    private boolean settingAll;
    /** The start of a span {@link #show} asked for, until the rows shown reach back to it (older ones are read). */
    private Long reachBackTo;

    /**
     * @param reader the attached ledger's reader, or null while nothing is attached (older rows are read through it)
     */
    public JournalViewModel(LiveLedger ledger, Formats formats, UiExecutor ui, Supplier<AdminReader> reader) {
        this(ledger, formats, ui, reader, MAX_ROWS, OLDER_PAGE);
    }

    /** With another bound and page size: tests reach the bound with a few dozen real rows. */
    JournalViewModel(
            LiveLedger ledger,
            Formats formats,
            UiExecutor ui,
            Supplier<AdminReader> reader,
            int maxRows,
            int olderPage) {
        this.maxRows = maxRows;
        this.olderPage = olderPage;
        this.ledger = ledger;
        this.formats = formats;
        this.ui = ui;
        this.reader = reader;
        kinds.add(ALL);
        kinds.addAll(KNOWN_KINDS);
        ledger.journalRevisionProperty().addListener((obs, o, n) -> onJournal());
        active.addListener((obs, o, on) -> {
            if (on) {
                onJournal();
            }
        });
        Runnable refilter = () -> {
            if (settingAll) {
                return; // show(): one rebuild for every field it sets
            }
            filter = readFilter();
            rebuild();
        };
        kind.addListener((obs, o, n) -> refilter.run());
        actor.addListener((obs, o, n) -> refilter.run());
        process.addListener((obs, o, n) -> refilter.run());
        from.addListener((obs, o, n) -> refilter.run());
        to.addListener((obs, o, n) -> refilter.run());
        paused.addListener((obs, o, p) -> {
            if (!p) {
                following.set(true);
            }
            onJournal();
        });
        following.addListener((obs, o, f) -> {
            if (f) {
                onJournal();
            }
        });
        summary.bind(Bindings.createStringBinding(
                this::describe, rows, held, loading, olderLeft, paused, following, ledger.snapshotProperty()));
    }

    /** Every kind the engine journals today ({@code EventKind}); a kind a newer engine adds is added when seen. */
    static final List<String> KNOWN_KINDS = List.of(
            "LEASE_ACQUIRED",
            "LEASE_RENEWED",
            "LEASE_RELEASED",
            "LEASE_TAKEN_OVER",
            "REJECTED",
            "ATTEMPT_STARTED",
            "ATTEMPT_DONE",
            "ATTEMPT_SUPERSEDED",
            "ATTEMPT_RECOVERED",
            "ATTEMPT_STOLEN",
            "ASSIGNMENT_CREATED",
            "ASSIGNMENT_RETRIED",
            "ASSIGNMENT_ACKNOWLEDGED",
            "CLAIM_GRANTED",
            "CLAIM_SWEPT",
            "MESSAGE_SENT",
            "MESSAGE_DONE",
            "MESSAGE_RETRIED",
            "MESSAGE_DEAD",
            "PROCESS_STARTED",
            "PROCESS_STOPPED",
            "LEDGER_RESTORED",
            "FENCE_BUMPED",
            "LEDGER_WENT_BACKWARDS");

    /** The rows shown, oldest first: at most {@link #MAX_ROWS}. */
    public ObservableList<JournalEntry> rows() {
        return rowsView;
    }

    /**
     * {@link #ALL}, one kind ({@code REJECTED}, {@code LEASE_TAKEN_OVER}, ...), or what a link asked for: several
     * kinds joined by {@code +} ({@code LEASE_ACQUIRED+LEASE_TAKEN_OVER}), or {@code REJECTED:} and one refusal
     * category ({@link #kindKey}).
     */
    public ObjectProperty<String> kindProperty() {
        return kind;
    }

    /** The kinds to choose from: {@link #ALL} first. */
    public ObservableList<String> kinds() {
        return kinds;
    }

    /** Part of an actor's name (case ignored); empty: every actor. */
    public StringProperty actorProperty() {
        return actor;
    }

    /** Part of a process's label or identity (case ignored); empty: every process. */
    public StringProperty processProperty() {
        return process;
    }

    /** From this time on ({@code 10:42}, {@code 10:42:07} today, or {@code 2026-12-02 10:42}); empty: no bound. */
    public StringProperty fromProperty() {
        return from;
    }

    /** Up to this time (inclusive, to the minute or second typed); empty: no bound. */
    public StringProperty toProperty() {
        return to;
    }

    /** Why a typed time was not understood (it is ignored meanwhile); empty when both are fine. */
    public ReadOnlyStringProperty timeProblemProperty() {
        return timeProblem.getReadOnlyProperty();
    }

    /** Whether the page shows: the tail is followed only then (and caught up when it shows again). */
    public BooleanProperty activeProperty() {
        return active;
    }

    /** Paused: new events are counted, not added, until resumed. */
    public BooleanProperty pausedProperty() {
        return paused;
    }

    /**
     * Whether the table follows the newest row: the view sets it false when the operator scrolls away from the
     * bottom and true when they come back (or press Follow). Not following, new rows are added only while the
     * bound leaves room, so nothing moves under the reader.
     */
    public BooleanProperty followingProperty() {
        return following;
    }

    /** Newer events that match the filters and are not in the table (paused, scrolled away, or beyond the bound). */
    public ReadOnlyLongProperty heldProperty() {
        return held.getReadOnlyProperty();
    }

    /** Whether older rows are being read. */
    public ReadOnlyBooleanProperty loadingProperty() {
        return loading.getReadOnlyProperty();
    }

    /** Whether the journal may hold older matching rows than the oldest shown. */
    public ReadOnlyBooleanProperty olderLeftProperty() {
        return olderLeft.getReadOnlyProperty();
    }

    /** What the table shows and its bound, in one line. */
    public ReadOnlyStringProperty summaryProperty() {
        return summary.getReadOnlyProperty();
    }

    /** The seq below which no row has been looked at yet (0 when nothing is shown). */
    public long oldestSeq() {
        return oldestSeq;
    }

    public String time(JournalEntry e) {
        return formats.preciseTime(e.at());
    }

    /** The row's sentence ({@code EventSentences}), its times in the console's format. */
    public String sentence(JournalEntry e) {
        return formats.humanize(e.sentence());
    }

    /**
     * The kind filter's key for {@code kinds} (empty: {@link #ALL}) and, for refusals, one {@code category}: a kind,
     * kinds joined by {@code +}, or {@code REJECTED:category}.
     */
    public static String kindKey(List<String> kinds, String category) {
        if (kinds.isEmpty()) {
            return ALL;
        }
        String key = String.join("+", kinds);
        return category != null && kinds.equals(List.of(JournalEntry.REJECTED)) ? key + ":" + category : key;
    }

    /** How the kind filter names {@code key}: {@code Every kind}, a kind, {@code A or B}, {@code REJECTED (category)}. */
    public static String kindLabel(String key) {
        if (key == null || ALL.equals(key)) {
            return "Every kind";
        }
        int colon = key.indexOf(':');
        if (colon > 0) {
            return key.substring(0, colon) + " (" + key.substring(colon + 1) + ")";
        }
        return key.replace("+", " or ");
    }

    /**
     * Shows exactly the rows {@code q} names (issue 31, item 19: a point on the Trends page): its kinds and category,
     * from its first to its last millisecond, with no actor or process filter. Rows older than the console's window
     * are read at once (as Load older would), so the table holds every row the point counted.
     */
    public void show(JournalQuery q) {
        String key = kindKey(q.kinds(), q.category());
        if (!kinds.contains(key)) {
            kinds.add(key);
        }
        settingAll = true;
        try {
            kind.set(key);
            actor.set("");
            process.set("");
            from.set(dateTime(q.from()));
            to.set(dateTime(q.toInclusive()));
        } finally {
            settingAll = false;
        }
        filter = readFilter();
        reachBackTo = q.from();
        paused.set(false);
        following.set(true);
        rebuild();
    }

    /**
     * {@code 10:42:07} on the console's day, else {@code 2026-12-02 10:42:07}, in the zone times are shown in: what
     * the From and To fields understand, as short as it can be.
     */
    private String dateTime(long at) {
        ZoneId zone = formats.zone();
        java.time.ZonedDateTime t = java.time.Instant.ofEpochMilli(at).atZone(zone);
        LocalDate today =
                java.time.Instant.ofEpochMilli(ledger.now()).atZone(zone).toLocalDate();
        return t.toLocalDate().equals(today) ? TIME_ONLY.format(t) : DATE_TIME.format(t);
    }

    private static final java.time.format.DateTimeFormatter TIME_ONLY =
            java.time.format.DateTimeFormatter.ofPattern("HH:mm:ss");

    private static final java.time.format.DateTimeFormatter DATE_TIME =
            java.time.format.DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss");

    /** After a rebuild for {@link #show}: reads older rows while the span starts before what is shown. */
    private void reachBack() {
        Long want = reachBackTo;
        if (want == null || !built) {
            return;
        }
        List<JournalEntry> window = ledger.events();
        boolean covered = !window.isEmpty() && window.get(0).at() < want;
        if (covered || !olderLeft.get()) {
            reachBackTo = null;
            return;
        }
        reachBackTo = null;
        loadOlder();
    }

    /** Starts the stretch shown over from the newest events: the table follows again. */
    public void jumpToNewest() {
        paused.set(false);
        following.set(true);
        rebuild();
    }

    /** Another ledger, or none: forget what was shown. */
    private void forget() {
        generation++;
        rows.clear();
        oldestSeq = 0;
        newestSeq = 0;
        held.set(0);
        loading.set(false);
        olderLeft.set(false);
        built = false;
    }

    /**
     * Starts over from the poller's window (in memory): the newest matching events, at most {@link #MAX_ROWS}.
     * Anything older is read on request ({@link #loadOlder}).
     */
    private void rebuild() {
        forget();
        if (!active.get()) {
            return; // built when the page shows
        }
        List<JournalEntry> window = ledger.events();
        if (window.isEmpty()) {
            built = ledger.snapshot() != null;
            olderLeft.set(ledger.snapshot() != null && ledger.snapshot().lastSeq() > 0);
            reachBack();
            return;
        }
        List<JournalEntry> newest = new ArrayList<>();
        long lowest = window.get(0).seq();
        for (int i = window.size() - 1; i >= 0 && newest.size() < maxRows; i--) {
            JournalEntry e = window.get(i);
            lowest = e.seq();
            if (filter.matches(e)) {
                newest.add(e);
            }
        }
        java.util.Collections.reverse(newest);
        oldestSeq = lowest;
        newestSeq = window.get(window.size() - 1).seq();
        noteKinds(newest);
        rows.setAll(newest);
        olderLeft.set(oldestSeq > 1);
        built = true;
        reachBack();
    }

    /** New events from the poller: added at the bottom, held back, or (after a gap the window lost) a rebuild. */
    private void onJournal() {
        if (!active.get()) {
            return;
        }
        List<JournalEntry> window = ledger.events();
        if (window.isEmpty()) {
            if (ledger.snapshot() == null && built) {
                forget(); // detached, or another ledger attaching
            }
            if (!built) {
                rebuild();
            }
            return;
        }
        if (!built || window.get(window.size() - 1).seq() < newestSeq) {
            rebuild(); // first show, or another ledger (its journal starts lower)
            return;
        }
        int start = firstAfter(window, newestSeq);
        if (start >= window.size()) {
            return;
        }
        boolean lost = window.get(0).seq() > newestSeq + 1 && start == 0;
        List<JournalEntry> fresh = new ArrayList<>();
        for (int i = start; i < window.size(); i++) {
            JournalEntry e = window.get(i);
            if (filter.matches(e)) {
                fresh.add(e);
            }
        }
        boolean reading = paused.get() || !following.get();
        if (reading && (paused.get() || rows.size() + fresh.size() > maxRows)) {
            held.set(fresh.size() + (lost ? 1 : 0)); // counted, not added: what is read stays put
            return;
        }
        if (lost) {
            rebuild(); // the window moved past rows never shown: start over from the newest
            return;
        }
        newestSeq = window.get(window.size() - 1).seq();
        held.set(0);
        if (fresh.isEmpty()) {
            return;
        }
        noteKinds(fresh);
        int over = rows.size() + fresh.size() - maxRows;
        if (over <= 0) {
            rows.addAll(fresh);
            return;
        }
        // following: the oldest drop off the top, in one change (a removal range per row would be quadratic)
        List<JournalEntry> next = new ArrayList<>(maxRows);
        if (over < rows.size()) {
            next.addAll(rows.subList(over, rows.size()));
            next.addAll(fresh);
        } else {
            next.addAll(fresh.subList(fresh.size() - maxRows, fresh.size()));
        }
        rows.setAll(next);
        oldestSeq = next.get(0).seq();
        olderLeft.set(true);
    }

    /** The index of the first event with a seq greater than {@code seq} (the window is in seq order). */
    private static int firstAfter(List<JournalEntry> window, long seq) {
        int lo = 0;
        int hi = window.size();
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (window.get(mid).seq() <= seq) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }

    /**
     * Reads up to {@link #OLDER_PAGE} older matching rows in the background (at most {@link #OLDER_SCAN} journal
     * rows looked at per request) and adds them at the top. Past the bound the newest rows drop off the bottom and
     * the table stops following; "Jump to newest" brings them back.
     */
    public void loadOlder() {
        AdminReader r = reader.get();
        if (r == null || loading.get() || !olderLeft.get()) {
            return;
        }
        long below = oldestSeq > 0 ? oldestSeq : newestKnownSeq() + 1;
        long asked = generation;
        Filter f = filter;
        loading.set(true);
        ui.background(
                () -> readOlder(r, below, f, olderPage),
                page -> {
                    if (asked != generation) {
                        return; // the filters changed meanwhile: this page belongs to another stretch
                    }
                    loading.set(false);
                    applyOlder(page);
                },
                problem -> {
                    if (asked == generation) {
                        loading.set(false);
                    }
                });
    }

    private long newestKnownSeq() {
        AdminSnapshot s = ledger.snapshot();
        return s == null ? 0 : s.lastSeq();
    }

    /** What one request for older rows found: matching rows oldest first, and the lowest seq looked at. */
    record Older(List<JournalEntry> rows, long lowestLooked) {}

    /** Background thread: reads seq windows below {@code below}, newest first, until a page is found. */
    static Older readOlder(AdminReader r, long below, Filter f, int want) {
        List<List<JournalEntry>> chunks = new ArrayList<>(); // newest chunk first
        int found = 0;
        long lowest = below;
        long looked = 0;
        while (found < want && lowest > 1 && looked < OLDER_SCAN) {
            long after = Math.max(0, lowest - 1 - READ);
            List<JournalEntry> page = r.eventsSince(after, READ);
            List<JournalEntry> matching = new ArrayList<>();
            boolean allBeforeFrom = !page.isEmpty();
            for (JournalEntry e : page) {
                if (e.seq() >= lowest) {
                    break;
                }
                if (f.matches(e)) {
                    matching.add(e);
                }
                allBeforeFrom &= f.from() != null && e.at() < f.from();
            }
            looked += lowest - 1 - after;
            // keep only what fits the page: the rest stays below for the next request
            if (found + matching.size() > want) {
                matching = matching.subList(matching.size() - (want - found), matching.size());
                chunks.add(matching);
                found = want;
                lowest = matching.get(0).seq();
                break;
            }
            chunks.add(matching);
            found += matching.size();
            lowest = after + 1;
            if (allBeforeFrom) {
                // a whole page written before the time filter's start: the journal goes back in seq order, and
                // writers' clocks are close enough that nothing older matches (a display filter, never a decision)
                lowest = 1;
            }
        }
        List<JournalEntry> rows = new ArrayList<>(found);
        for (int i = chunks.size() - 1; i >= 0; i--) {
            rows.addAll(chunks.get(i));
        }
        return new Older(rows, lowest);
    }

    private void applyOlder(Older page) {
        if (page.rows().isEmpty() && oldestSeq == 0) {
            newestSeq = Math.max(newestSeq, newestKnownSeq());
        }
        oldestSeq = page.lowestLooked();
        olderLeft.set(oldestSeq > 1);
        if (page.rows().isEmpty()) {
            return;
        }
        noteKinds(page.rows());
        List<JournalEntry> next = new ArrayList<>(page.rows());
        next.addAll(rows);
        if (next.size() > maxRows) {
            // the operator reads back in time: the newest give way, and the table stops following
            next = new ArrayList<>(next.subList(0, maxRows));
            newestSeq = next.get(next.size() - 1).seq();
            following.set(false);
            rows.setAll(next);
            onJournal(); // counts what is now held below the bound
            return;
        }
        rows.addAll(0, page.rows());
    }

    private void noteKinds(List<JournalEntry> seen) {
        Set<String> fresh = new TreeSet<>();
        for (JournalEntry e : seen) {
            if (!kinds.contains(e.kind())) {
                fresh.add(e.kind());
            }
        }
        kinds.addAll(fresh);
    }

    private String describe() {
        if (ledger.snapshot() == null && rows.isEmpty()) {
            return "";
        }
        StringBuilder sb = new StringBuilder();
        int n = rows.size();
        boolean filtered = !filter.equals(Filter.NONE);
        if (n == 0) {
            sb.append(filtered ? "No events match the filters here" : "No events yet");
        } else {
            sb.append(n == maxRows ? "Showing the newest " : "Showing ")
                    .append(String.format(Locale.ROOT, "%,d", n))
                    .append(n == 1 ? " event" : " events")
                    .append(filtered ? " that match" : "")
                    .append(", #")
                    .append(rows.get(0).seq())
                    .append(" to #")
                    .append(rows.get(n - 1).seq());
        }
        sb.append(String.format(Locale.ROOT, " (at most %,d kept", maxRows))
                .append(olderLeft.get() ? "; older on request)" : ")");
        if (loading.get()) {
            sb.append(" \u00b7 reading older rows\u2026");
        }
        long h = held.get();
        if (h > 0) {
            sb.append(" \u00b7 ")
                    .append(String.format(Locale.ROOT, "%,d", h))
                    .append(h == 1 ? " newer event" : " newer events")
                    .append(paused.get() ? " while paused" : " not shown");
        } else if (paused.get()) {
            sb.append(" \u00b7 paused");
        }
        return sb.toString();
    }

    /** Reads the filter fields; a time that is not understood is said and ignored. */
    private Filter readFilter() {
        String problem = "";
        Long fromMs = null;
        Long toMs = null;
        try {
            fromMs = parseTime(from.get(), false);
        } catch (DateTimeParseException e) {
            problem =
                    "\u201c" + from.get().strip() + "\u201d is not a time: write 10:42, 10:42:07 or 2026-12-02 10:42.";
        }
        try {
            toMs = parseTime(to.get(), true);
        } catch (DateTimeParseException e) {
            problem = "\u201c" + to.get().strip() + "\u201d is not a time: write 10:42, 10:42:07 or 2026-12-02 10:42.";
        }
        timeProblem.set(problem);
        String k = kind.get();
        Set<String> kindSet = null;
        String category = null;
        if (k != null && !k.equals(ALL)) {
            int colon = k.indexOf(':');
            if (colon > 0) {
                category = k.substring(colon + 1);
                k = k.substring(0, colon);
            }
            kindSet = Set.of(k.split("\\+"));
        }
        return new Filter(kindSet, category, lower(actor.get()), lower(process.get()), fromMs, toMs);
    }

    private static String lower(String s) {
        return s == null || s.isBlank() ? null : s.strip().toLowerCase(Locale.ROOT);
    }

    /**
     * {@code 10:42}, {@code 10:42:07} (the day of the console's clock) or {@code 2026-12-02 10:42[:07]}, in the
     * zone times are shown in; null for an empty field. An end bound takes in the whole minute or second typed.
     */
    Long parseTime(String text, boolean end) {
        if (text == null || text.isBlank()) {
            return null;
        }
        String t = text.strip();
        ZoneId zone = formats.zone();
        LocalDateTime at;
        String time = t;
        LocalDate day =
                java.time.Instant.ofEpochMilli(ledger.now()).atZone(zone).toLocalDate();
        int space = t.indexOf(' ');
        if (space > 0) {
            day = LocalDate.parse(t.substring(0, space));
            time = t.substring(space + 1).strip();
        }
        LocalTime lt = LocalTime.parse(time);
        at = LocalDateTime.of(day, lt);
        long ms = at.atZone(zone).toInstant().toEpochMilli();
        if (end) {
            ms += (time.length() <= 5 ? 60_000 : 1_000) - 1;
        }
        return ms;
    }

    /**
     * The filters, as one immutable value the background reads use.
     *
     * @param kinds    the kinds shown, or null: every kind
     * @param category for refusals, the one category shown, or null: any
     */
    record Filter(Set<String> kinds, String category, String actor, String process, Long from, Long to) {
        static final Filter NONE = new Filter(null, null, null, null, null, null);

        boolean matches(JournalEntry e) {
            if (kinds != null && !kinds.contains(e.kind())) {
                return false;
            }
            if (category != null && e.isRejection() && !category.equals(e.category())) {
                return false;
            }
            if (actor != null) {
                String a = e.actorLane();
                if (a == null || !a.toLowerCase(Locale.ROOT).contains(actor)) {
                    return false;
                }
            }
            if (process != null) {
                ProcessRef p = e.process();
                String about = "process".equals(e.resourceType()) ? e.resourceId() : null;
                boolean named = p != null
                        && ((p.label() != null
                                        && p.label().toLowerCase(Locale.ROOT).contains(process))
                                || p.identity().toLowerCase(Locale.ROOT).contains(process));
                if (!named && (about == null || !about.toLowerCase(Locale.ROOT).contains(process))) {
                    return false;
                }
            }
            if (from != null && e.at() < from) {
                return false;
            }
            return to == null || e.at() <= to;
        }
    }
}
