package dev.sovereign.console.ledger;

import dev.sovereign.console.fx.UiExecutor;
import dev.sovereign.engine.admin.AdminReader;
import dev.sovereign.engine.admin.AdminSnapshot;
import dev.sovereign.engine.admin.JournalEntry;
import dev.sovereign.engine.admin.JournalSlice;
import dev.sovereign.engine.admin.JournalSubject;
import dev.sovereign.engine.journal.JournalTail;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Keeps a {@link LiveLedger} current from an {@link AdminReader}, on ONE background thread: every
 * interval (every {@link #IDLE_INTERVAL} once the ledger has been quiet for {@link #IDLE_AFTER_POLLS} polls, until it
 * changes) it reads {@code changeMarker()} (microseconds); only when that moved (or a refresh was
 * requested) it reads a snapshot and the journal after the last seq it saw. Results are applied on
 * the UI thread through the {@link UiExecutor}; the UI thread never touches the database.
 *
 * <p>Failures (busy, file gone) are reported to the ledger and the poller keeps going, so the
 * console recovers by itself when the file comes back or the lock is released.
 *
 * <p>State below is confined to the polling thread (or to the caller of {@link #pollOnce()} in tests).
 */
public final class LedgerPoller implements AutoCloseable {
    public static final Duration DEFAULT_INTERVAL = Duration.ofMillis(250);
    /** How much of the journal's tail the first poll reads for the timeline. */
    static final int INITIAL_EVENTS = 5_000;

    static final int PAGE = 1_000;
    /**
     * At most this many events per poll: a burst (every holder journalling its renewals at once) is
     * applied over a few polls, a bounded share per frame, instead of in one long frame; the backlog
     * drains at 16,000 events a second at the default interval.
     */
    static final int MAX_EVENTS_PER_POLL = 4_000;

    static final int INITIAL_REJECTIONS = 500;

    /**
     * How often the ledger's size, rows, oldest event and growth and its disk's free space are read again (and on
     * every refresh, F5): they change slowly, and reading them counts every table, so seldom, on this thread.
     */
    public static final Duration STORAGE_EVERY = Duration.ofSeconds(30);

    private final AdminReader reader;
    private final LiveLedger ledger;
    private final UiExecutor ui;
    private final Clock clock;
    private final AtomicBoolean refreshRequested = new AtomicBoolean();
    private final FreeSpace freeSpace;
    /** The console's clock when the storage numbers were last read; MIN: never (poller thread only). */
    private long storageReadAt = Long.MIN_VALUE;

    private volatile ScheduledExecutorService thread;
    private long lastChangeMarker = Long.MIN_VALUE;
    /** Follows the journal from the first poll on. */
    private JournalTail<JournalEntry> tail;
    /** The actor or process a page shows (null: none); its journal rows are read along with the snapshot. */
    private final AtomicReference<JournalSubject> watched = new AtomicReference<>();
    /**
     * After this many polls in a row that found nothing new (ten seconds at the default interval) the poller slows
     * to {@link #IDLE_INTERVAL} until one finds something; a refresh (F5) or a page's rows asked for poll at once.
     */
    static final int IDLE_AFTER_POLLS = 40;
    /** How often a quiet ledger is polled: a change on it shows within a second (decision 0427). */
    public static final Duration IDLE_INTERVAL = Duration.ofSeconds(1);
    /** Polls in a row that found nothing new; written on the poller thread, read by {@link #wake()}. */
    private volatile int unchangedStreak;
    /** The interval {@link #start} was given, in milliseconds. */
    private long every;
    /** An unchanged poll is posted to the FX thread at most this often (unless after a failure or with rows). */
    static final long UNCHANGED_EVERY_MS = 1_000;
    /** Whether the last result posted was a failure; true before the first (poller thread only). */
    private boolean lastPostFailed = true;
    /** The poll time of the last result posted (poller thread only). */
    private long unchangedPostedAt = Long.MIN_VALUE;
    /** The subject whose rows the last poll read (poller thread only). */
    private JournalSubject lastWatched;
    /** How many journal rows about the watched subject a poll reads at most. */
    public static final int SUBJECT_ROWS = 200;

    public LedgerPoller(AdminReader reader, LiveLedger ledger, UiExecutor ui, Clock clock) {
        this(reader, ledger, ui, clock, FreeSpace.FILE_SYSTEM);
    }

    /** @param freeSpace where the free space of a SQLite ledger's disk is read (tests simulate a nearly full one) */
    public LedgerPoller(AdminReader reader, LiveLedger ledger, UiExecutor ui, Clock clock, FreeSpace freeSpace) {
        this.reader = reader;
        this.ledger = ledger;
        this.ui = ui;
        this.clock = clock;
        this.freeSpace = freeSpace;
    }

    /** Starts polling every {@code interval} on a daemon thread. */
    public synchronized void start(Duration interval) {
        if (thread != null) {
            return;
        }
        thread = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "console-poller");
            t.setDaemon(true);
            return t;
        });
        every = interval.toMillis();
        thread.execute(this::loop);
    }

    /**
     * One poll, then the next one scheduled: every {@code interval}, or every {@link #IDLE_INTERVAL} once
     * {@link #IDLE_AFTER_POLLS} polls in a row found nothing new, until one does.
     */
    private void loop() {
        pollQuietly();
        ScheduledExecutorService t = thread;
        if (t == null) {
            return;
        }
        try {
            t.schedule(this::loop, nextDelay(every), TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException closed) {
            // closed meanwhile
        }
    }

    /** The wait before the next scheduled poll, for a poller started with {@code interval} milliseconds. */
    long nextDelay(long interval) {
        return unchangedStreak >= IDLE_AFTER_POLLS ? Math.max(interval, IDLE_INTERVAL.toMillis()) : interval;
    }

    /** A poll now, besides the schedule, when the poller has slowed down: what asked for it shows at once. */
    private void wake() {
        ScheduledExecutorService t = thread;
        if (t != null && unchangedStreak >= IDLE_AFTER_POLLS) {
            try {
                t.execute(this::pollQuietly);
            } catch (RejectedExecutionException closed) {
                // closed meanwhile
            }
        }
    }

    /**
     * Reads the journal rows about {@code subject} (null: none) with every changed poll, and on the next poll
     * even if nothing changed: an actor's or a process's page is live through this one poller, with no
     * thread or timer of its own.
     */
    public void watch(JournalSubject subject) {
        watched.set(subject);
        wake();
    }

    /** Makes the next poll read a snapshot even if the change marker did not move (F5). */
    public void requestRefresh() {
        refreshRequested.set(true);
        wake();
    }

    private void pollQuietly() {
        try {
            pollOnce();
        } catch (RuntimeException e) {
            // pollOnce reports failures itself; nothing may escape and cancel the schedule
        }
    }

    /**
     * One poll, on the calling thread. Reads a snapshot only when the change marker moved or a refresh
     * was requested; posts the result (or the failure) to the UI thread.
     */
    public void pollOnce() {
        try {
            long version = reader.changeMarker();
            boolean forced = refreshRequested.getAndSet(false);
            readStorageIfDue(forced);
            long polledAt = clock.millis() + reader.ledgerClockOffsetMillis(); // the ledger's clock (0905)
            JournalSubject subject = watched.get();
            boolean newSubject = !Objects.equals(subject, lastWatched);
            boolean changed = version != lastChangeMarker || forced;
            if (!changed && (tail == null || !tail.holdsBack())) {
                JournalSlice slice = newSubject && subject != null ? reader.journalAbout(subject, SUBJECT_ROWS) : null;
                lastWatched = subject;
                // nothing to show: the FX thread hears of it once a second (the time of the last poll), at once after a
                // failure (health back to connected) or with a page's journal rows; four wake-ups a second that
                // changed nothing were a measurable part of an idle console's CPU (issue 31 item 21)
                unchangedStreak++;
                if (slice == null
                        && !lastPostFailed
                        && polledAt >= unchangedPostedAt
                        && polledAt - unchangedPostedAt < UNCHANGED_EVERY_MS) {
                    return;
                }
                unchangedPostedAt = polledAt;
                lastPostFailed = false;
                PollResult unchanged = new PollResult(polledAt, version, null, List.of(), List.of(), slice);
                ui.onUi(() -> ledger.apply(unchanged));
                return;
            }
            // Nothing changed but the tail holds rows back behind a hole: only the journal is read again, until the
            // hole fills or is given up (JournalTail); the snapshot it would re-read is the one already shown.
            AdminSnapshot snapshot = changed ? reader.snapshot() : null;
            List<JournalEntry> seed = List.of();
            if (tail == null) {
                // a tail, not `seq > last`: on a server a row may commit after one with a greater seq (0900)
                tail = new JournalTail<>(
                        reader::eventsSince,
                        JournalEntry::seq,
                        Math.max(0, snapshot.lastSeq() - INITIAL_EVENTS),
                        clock,
                        JournalTail.DEFAULT_MARGIN);
                seed = reader.recentRejections(INITIAL_REJECTIONS);
            }
            List<JournalEntry> fresh = new ArrayList<>();
            while (fresh.size() < MAX_EVENTS_PER_POLL) {
                List<JournalEntry> page = tail.poll(PAGE);
                fresh.addAll(page);
                if (page.size() < PAGE) {
                    break;
                }
            }
            // Only a complete catch-up counts as seen: a capped backlog makes the next poll read on.
            if (fresh.size() >= MAX_EVENTS_PER_POLL) {
                lastChangeMarker = Long.MIN_VALUE;
            } else if (snapshot != null) {
                lastChangeMarker = snapshot.changeMarker();
            }
            JournalSlice slice = subject == null || (snapshot == null && fresh.isEmpty() && !newSubject)
                    ? null
                    : reader.journalAbout(subject, SUBJECT_ROWS);
            lastWatched = subject;
            PollResult result = new PollResult(polledAt, version, snapshot, fresh, seed, slice);
            unchangedStreak = 0;
            lastPostFailed = false;
            unchangedPostedAt = polledAt;
            ui.onUi(() -> ledger.apply(result));
        } catch (RuntimeException e) {
            unchangedStreak = 0;
            lastPostFailed = true;
            ui.onUi(() -> ledger.failed(e));
        }
    }

    /**
     * Every {@link #STORAGE_EVERY} and on a refresh: the ledger's metrics through the reader (the numbers
     * {@code sovereign status} shows) and the free space of the disk holding a file. A failure here is not the
     * connection's: the picture keeps the last numbers and the next due read tries again.
     */
    private void readStorageIfDue(boolean forced) {
        long now = clock.millis();
        if (!forced && storageReadAt != Long.MIN_VALUE && now - storageReadAt < STORAGE_EVERY.toMillis()) {
            return;
        }
        storageReadAt = now;
        LedgerStorage read;
        try {
            Path file = reader.location().file().orElse(null);
            read = new LedgerStorage(reader.metrics(), file, file == null ? -1 : usable(file), now);
        } catch (RuntimeException e) {
            return;
        }
        ui.onUi(() -> ledger.applyStorage(read));
    }

    private long usable(Path file) {
        try {
            return freeSpace.usableBytes(file);
        } catch (IOException | RuntimeException e) {
            return -1; // the file system would not say: nothing to warn about, and the disk's line says so
        }
    }

    @Override
    public synchronized void close() {
        if (thread != null) {
            thread.shutdownNow();
            try {
                thread.awaitTermination(2, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            thread = null;
        }
    }
}
