package dev.sovereign.console.feature.timeline;

import dev.sovereign.console.ledger.Formats;
import dev.sovereign.console.ledger.LiveLedger;
import dev.sovereign.engine.admin.JournalEntry;
import dev.sovereign.engine.lab.Lab;
import dev.sovereign.engine.lab.ScenarioInfo;
import java.util.List;
import java.util.regex.Pattern;
import javafx.beans.property.BooleanProperty;
import javafx.beans.property.ObjectProperty;
import javafx.beans.property.ReadOnlyLongProperty;
import javafx.beans.property.ReadOnlyLongWrapper;
import javafx.beans.property.ReadOnlyStringProperty;
import javafx.beans.property.ReadOnlyStringWrapper;
import javafx.beans.property.SimpleBooleanProperty;
import javafx.beans.property.SimpleObjectProperty;
import javafx.collections.FXCollections;
import javafx.collections.ListChangeListener;
import javafx.collections.ObservableList;

/**
 * One lane per actor over a sliding window (the last minutes by default): holder segments with
 * their tokens, renewals, takeovers, recoveries and rejection markers. The lanes are rebuilt once per
 * poll that changed the journal or the snapshot, and only while the timeline is
 * {@link #activeProperty() active} (shown); the window slides with the ticking clock while following
 * "now". At most {@value #MAX_LANES} lanes are drawn (the most recently changed actors).
 * UI-thread confined.
 */
public final class TimelineViewModel {
    /** How many distinct holder colours the view has ({@code -color-chart-1..8}). */
    public static final int COLOURS = 8;
    /** The zoom steps, in milliseconds of window. */
    public static final List<Long> SPANS = List.of(15_000L, 30_000L, 60_000L, 120_000L, 300_000L, 900_000L, 3_600_000L);

    static final int DEFAULT_SPAN = 3;
    /** The window a database opens with when none was remembered for it: two minutes. */
    public static final long DEFAULT_WINDOW = SPANS.get(DEFAULT_SPAN);
    /** More lanes than this would make every refresh and every frame slow; the rest are counted. */
    public static final int MAX_LANES = 50;

    private final LiveLedger ledger;
    private final Formats formats;
    private final ObservableList<TimelineLane> lanes = FXCollections.observableArrayList();
    /** Made once: a fresh unmodifiable wrapper per call would drop listeners when collected. */
    private final ObservableList<TimelineLane> lanesView = FXCollections.unmodifiableObservableList(lanes);

    private final ReadOnlyLongWrapper span = new ReadOnlyLongWrapper(this, "span", SPANS.get(DEFAULT_SPAN));
    private final ReadOnlyLongWrapper windowEnd = new ReadOnlyLongWrapper(this, "windowEnd");
    private final BooleanProperty following = new SimpleBooleanProperty(this, "following", true);
    private final ObjectProperty<TimelineMarker> selected = new SimpleObjectProperty<>(this, "selected");
    private final ReadOnlyStringWrapper detail = new ReadOnlyStringWrapper(this, "detail", "");
    private final ReadOnlyStringWrapper spanText = new ReadOnlyStringWrapper(this, "spanText");
    private final BooleanProperty active = new SimpleBooleanProperty(this, "active", true);
    private final ReadOnlyStringWrapper notDrawn = new ReadOnlyStringWrapper(this, "notDrawn", "");
    private final ReadOnlyStringWrapper lastScenario = new ReadOnlyStringWrapper(this, "lastScenario", "");
    private final ReadOnlyStringWrapper windowText = new ReadOnlyStringWrapper(this, "windowText", "");
    /** The scenario the window was zoomed to, its end and span; null once the window moved on. */
    private String zoomedScenario;

    private long zoomedEnd;
    private long zoomedSpan;
    private boolean stale;
    /** Kept current with every event, also while the page is hidden (cheap: per event, not per actor). */
    private final TimelineIndex index = new TimelineIndex();

    public TimelineViewModel(LiveLedger ledger, Formats formats) {
        this.ledger = ledger;
        this.formats = formats;
        ledger.events().forEach(index::append);
        ledger.events().addListener((ListChangeListener<JournalEntry>) this::journalChanged);
        ledger.revisionProperty().addListener((obs, o, n) -> rebuild());
        active.addListener((obs, o, on) -> {
            if (on && stale) {
                rebuild();
            }
        });
        ledger.nowProperty().addListener((obs, o, now) -> {
            // While following, the window slides in steps of 1/120 of its span (a second at the default
            // 2 min, a few pixels): sliding on every 100 ms tick laid out every lane ten times a second, a fifth of
            // a core on an idle console (issue 17, item 15). A new event still shows at once (rebuild).
            if (following.get()
                    && (now.longValue() - windowEnd.get() >= slideStep() || now.longValue() < windowEnd.get())) {
                windowEnd.set(now.longValue());
            }
        });
        following.addListener((obs, o, f) -> {
            if (f) {
                windowEnd.set(ledger.now());
            }
        });
        selected.addListener((obs, o, m) -> detail.set(m == null ? "" : describe(m)));
        span.addListener((obs, o, s) -> spanText.set(Formats.duration(s.longValue())));
        spanText.set(Formats.duration(span.get()));
        windowEnd.set(ledger.now());
        findLastScenario(ledger.events());
        following.addListener(o -> tellWindow());
        span.addListener(o -> tellWindow());
        windowEnd.addListener(o -> {
            if (!following.get()) {
                tellWindow();
            }
        });
        tellWindow();
        rebuild();
    }

    /** A lab scenario's actor: {@code <scenario>-<n>} (the lab's runs, from this console or the CLI). */
    private static final Pattern SCENARIO_ACTOR = Pattern.compile("(?:"
            + String.join(
                    "|",
                    Lab.scenarios().stream()
                            .map(ScenarioInfo::name)
                            .map(Pattern::quote)
                            .toList())
            + ")-\\d+");

    /**
     * What the window shows, for the page's summary (issue 31, item 16): "last 15 s, following now" while it
     * follows; the times it spans once it was moved back ("◀ Earlier") or zoomed to the last scenario.
     */
    public ReadOnlyStringProperty windowTextProperty() {
        return windowText.getReadOnlyProperty();
    }

    /** The newest lab scenario's actor in the journal the console holds ({@code gc-pause-3}), or empty. */
    public ReadOnlyStringProperty lastScenarioProperty() {
        return lastScenario.getReadOnlyProperty();
    }

    /**
     * Zooms to the newest lab scenario: the window spans its actor's events, with a little room either side, and
     * stops following now (issue 31, item 16). False, and nothing changes, when there is none.
     */
    public boolean zoomToLastScenario() {
        String actor = lastScenario.get();
        if (actor.isEmpty()) {
            return false;
        }
        long first = Long.MAX_VALUE;
        long last = Long.MIN_VALUE;
        for (JournalEntry e : ledger.events()) {
            if (actor.equals(e.actor())) {
                first = Math.min(first, e.at());
                last = Math.max(last, e.at());
            }
        }
        if (first == Long.MAX_VALUE) {
            return false;
        }
        long extent = last - first;
        long room = Math.max(500, extent / 10);
        long fitted = Math.max(MIN_SCENARIO_SPAN, extent + 2 * room);
        long end = Math.min(ledger.now(), first - room + fitted);
        following.set(false);
        zoomedScenario = actor;
        zoomedEnd = end;
        zoomedSpan = fitted;
        span.set(fitted);
        windowEnd.set(end);
        tellWindow();
        return true;
    }

    /** The narrowest window "zoom to the last scenario" opens: a few seconds, so a 6 s scenario fills it. */
    static final long MIN_SCENARIO_SPAN = 4_000;

    private void findLastScenario(List<? extends JournalEntry> entries) {
        for (int i = entries.size() - 1; i >= 0; i--) {
            String a = entries.get(i).actor();
            if (a != null && SCENARIO_ACTOR.matcher(a).matches()) {
                if (!a.equals(lastScenario.get())) {
                    lastScenario.set(a);
                }
                return;
            }
        }
    }

    private void tellWindow() {
        String text;
        if (following.get()) {
            text = "Window: last " + Formats.duration(span.get()) + ", following now";
        } else {
            String times = formats.time(windowStart()) + "\u2013" + formats.time(windowEnd.get()) + " ("
                    + Formats.duration(span.get()) + ")";
            boolean onScenario = zoomedScenario != null && zoomedEnd == windowEnd.get() && zoomedSpan == span.get();
            text = "Window: " + (onScenario ? "the last scenario, " + zoomedScenario + ", " : "") + times
                    + ", paused (press Follow now to resume)";
        }
        windowText.set(text);
    }

    /** Whether the timeline shows, follows the clock and slides in steps shorter than a second (a narrow zoom). */
    public boolean wantsFineTicks() {
        return active.get() && following.get() && slideStep() < 1_000;
    }

    /** How far the clock moves before a following window slides: 1/120 of the span, at least 100 ms. */
    long slideStep() {
        return Math.max(100, span.get() / 120);
    }

    public ObservableList<TimelineLane> lanes() {
        return lanesView;
    }

    /**
     * Whether the lanes are kept current: the shell sets it while the timeline page shows; when it
     * turns on, the lanes catch up at once.
     */
    public BooleanProperty activeProperty() {
        return active;
    }

    /** Empty, or how many actors have no lane ({@code 9,900 more actors are not drawn}). */
    public ReadOnlyStringProperty notDrawnProperty() {
        return notDrawn.getReadOnlyProperty();
    }

    public ReadOnlyLongProperty spanProperty() {
        return span.getReadOnlyProperty();
    }

    public ReadOnlyStringProperty spanTextProperty() {
        return spanText.getReadOnlyProperty();
    }

    /** The right edge of the window; equals the console clock while {@link #followingProperty following}. */
    public ReadOnlyLongProperty windowEndProperty() {
        return windowEnd.getReadOnlyProperty();
    }

    public long windowStart() {
        return windowEnd.get() - span.get();
    }

    public BooleanProperty followingProperty() {
        return following;
    }

    public ObjectProperty<TimelineMarker> selectedProperty() {
        return selected;
    }

    public ReadOnlyStringProperty detailProperty() {
        return detail.getReadOnlyProperty();
    }

    public LiveLedger ledger() {
        return ledger;
    }

    public Formats formats() {
        return formats;
    }

    /** Shows a window of {@code ms} (a remembered zoom), within 15 s and 24 h. */
    public void setSpan(long ms) {
        span.set(Math.max(SPANS.get(0), Math.min(MAX_FIT, ms)));
    }

    /** The next smaller zoom step (a fitted span goes to the step below it). */
    public void zoomIn() {
        long now = span.get();
        span.set(SPANS.stream().filter(x -> x < now).reduce((a, b) -> b).orElse(SPANS.get(0)));
    }

    /** The next larger zoom step. */
    public void zoomOut() {
        long now = span.get();
        span.set(SPANS.stream().filter(x -> x > now).findFirst().orElse(SPANS.get(SPANS.size() - 1)));
    }

    /**
     * Fit to data: the window ends now and starts just before the oldest thing there is to see — the
     * oldest journal event the console holds, or the oldest lease still held — so a quiet database is not
     * a strip of empty time and a busy one is not cut (issue 17, item 13). Between 15 s and 24 h.
     */
    public void fitToData() {
        long now = ledger.now();
        long oldest = now;
        if (!ledger.events().isEmpty()) {
            oldest = Math.min(oldest, ledger.events().get(0).at());
        }
        var s = ledger.snapshot();
        if (s != null) {
            for (var l : s.leases()) {
                if (!l.isFree()) {
                    oldest = Math.min(oldest, l.acquiredAt());
                }
            }
        }
        long extent = now - oldest;
        long fitted = Math.max(SPANS.get(0), Math.min(MAX_FIT, extent + Math.max(1_000, extent / 20)));
        following.set(true);
        windowEnd.set(now);
        span.set(fitted);
    }

    /** The widest window "fit to data" opens. */
    static final long MAX_FIT = 24 * 3_600_000L;

    /** Looks half a window further back in time; stops following now. */
    public void panBack() {
        following.set(false);
        windowEnd.set(windowEnd.get() - span.get() / 2);
    }

    /** Looks half a window forward; reaching now resumes following. */
    public void panForward() {
        long next = windowEnd.get() + span.get() / 2;
        if (next >= ledger.now()) {
            following.set(true);
            windowEnd.set(ledger.now());
        } else {
            windowEnd.set(next);
        }
    }

    public void followNow() {
        following.set(true);
    }

    /** The segment label: {@code token 42 · worker B}. */
    public static String label(HolderSegment s) {
        String who =
                s.holder().label() == null ? s.holder().shortId() : s.holder().label();
        return "token " + s.token() + " \u00b7 " + who;
    }

    /** A segment's tooltip. */
    public String describe(HolderSegment s, long now) {
        StringBuilder sb = new StringBuilder();
        sb.append(s.holder().displayName())
                .append(" held actor ")
                .append(s.actor())
                .append(" with token ")
                .append(s.token())
                .append(" from ")
                .append(formats.time(s.start()));
        switch (s.endReason()) {
            case RELEASED -> sb.append(" until it released it at ").append(formats.time(s.end()));
            case TAKEN_OVER -> sb.append(" until it was taken over at ").append(formats.time(s.end()));
            case UNKNOWN -> sb.append(" until ").append(formats.time(s.end()));
            case HOLDING ->
                sb.append(
                        s.isExpiredAt(now)
                                ? "; the lease expired at " + formats.time(s.expiresAt())
                                        + " and nobody has taken it over yet"
                                : "; it still holds it, " + Formats.duration(s.expiresAt() - now) + " left");
        }
        if (!s.renewals().isEmpty()) {
            sb.append(". ").append(s.renewals().size()).append(" journalled renewals");
        }
        return sb.append('.').toString();
    }

    private String describe(TimelineMarker m) {
        JournalEntry e = m.event();
        String what = switch (m.kind()) {
            case REJECTION -> "Rejected write";
            case TAKEOVER -> "Takeover";
            case RECOVERY -> "Recovery";
        };
        return what + " at " + formats.preciseTime(e.at()) + " (journal seq " + e.seq() + "): "
                + formats.humanize(e.sentence());
    }

    /**
     * Keeps the index in step with the ledger's window of the journal, which only slides: new events
     * at the end, the oldest leaving at the front, or both at once (a {@code setAll} of the kept tail
     * plus the new events). What a change removes and adds back is neither dropped nor appended.
     */
    private void journalChanged(ListChangeListener.Change<? extends JournalEntry> c) {
        while (c.next()) {
            if (c.getList().isEmpty()) {
                index.clear();
                continue;
            }
            List<? extends JournalEntry> removed = c.wasRemoved() ? c.getRemoved() : List.of();
            List<? extends JournalEntry> added = c.wasAdded() ? c.getAddedSubList() : List.of();
            long firstAdded = added.isEmpty() ? Long.MAX_VALUE : added.get(0).seq();
            long lastRemoved = removed.isEmpty()
                    ? Long.MIN_VALUE
                    : removed.get(removed.size() - 1).seq();
            for (JournalEntry e : removed) {
                if (e.seq() < firstAdded) {
                    index.drop(e);
                }
            }
            for (JournalEntry e : added) {
                if (e.seq() > lastRemoved) {
                    index.append(e);
                }
            }
            findLastScenario(added);
        }
    }

    private void rebuild() {
        if (!active.get()) {
            stale = true;
            return;
        }
        stale = false;
        TimelineBuilder.Lanes built = index.lanes(ledger.snapshot(), MAX_LANES);
        List<TimelineLane> fresh = built.shown();
        int hidden = built.total() - fresh.size();
        notDrawn.set(
                hidden == 0
                        ? ""
                        : "The " + fresh.size() + " most recently changed of " + built.total() + " actors are drawn.");
        if (!fresh.equals(lanes)) {
            lanes.setAll(fresh);
        }
        if (selected.get() != null
                && fresh.stream()
                        .flatMap(l -> l.markers().stream())
                        .noneMatch(m -> m.seq() == selected.get().seq())) {
            selected.set(null);
        }
    }
}
