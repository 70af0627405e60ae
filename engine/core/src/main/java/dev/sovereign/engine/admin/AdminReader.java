package dev.sovereign.engine.admin;

import dev.sovereign.engine.base.LedgerLocation;
import dev.sovereign.engine.base.StorageException;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.List;

/**
 * Read access to a Sovereign ledger for operators: the only door the console uses. It owns its
 * own connection to the file or server, opened for queries only (SQLite: {@code PRAGMA query_only};
 * PostgreSQL: a read-only session whose snapshots are {@code REPEATABLE READ READ ONLY} transactions): it
 * never writes, never migrates, never creates a ledger, and refuses one that is missing, not ours or newer
 * than this code with a {@link StorageException} whose message is one sentence naming the ledger (a
 * server's URL without its secrets).
 *
 * <p>Change detection: {@link #changeMarker()} is a number that moves whenever another connection or
 * process commits a change to the ledger (it may also move without a visible change) and costs a few
 * microseconds, so a poller can call it often and read a {@link #snapshot()} only when it moved. What it is
 * belongs to the backend: SQLite's {@code PRAGMA data_version} on the reader's connection; a server
 * backend's own change counter. Compare it for equality only.
 *
 * <p>Caps of a snapshot: every actor, every process that is not stopped plus the
 * {@value #STOPPED_PROCESSES_SHOWN} most recently started stopped ones, the {@value #FINISHED_ROWS_SHOWN}
 * most recently updated assignments (plus every one that needs an operator, however old) and
 * attempts, every unfinished message plus the {@value #FINISHED_ROWS_SHOWN} most recently finished
 * ones. Totals are never the sizes of these lists: {@link AdminSnapshot#counts()} is counted by the
 * database in the same read transaction.
 *
 * <p>Thread-safe: calls are serialised on the one connection (a CSV export in the background
 * interleaves page by page with a poller).
 */
public interface AdminReader extends AutoCloseable {
    int STOPPED_PROCESSES_SHOWN = 100;
    int FINISHED_ROWS_SHOWN = 300;

    /** Where the ledger lives: its absolute file, or its server's URL ({@code toString()} hides every secret). */
    LedgerLocation location();

    /** The schema version checked when the reader opened (SQLite: {@code PRAGMA user_version}). */
    int schemaVersion();

    /**
     * The ledger's clock minus this reader's clock, in ms, as last measured (0 when they are one clock, as on
     * SQLite, where every writer stamps with its own host's clock). A server backend decides expiry on the
     * SERVER's clock, so a console whose countdowns should agree with those decisions adds this to its own
     * clock. An estimate (one round trip's accuracy); never used for a decision.
     */
    default long ledgerClockOffsetMillis() {
        return 0;
    }

    /**
     * The ledger's change marker: equal values mean no other connection committed a change in between (a
     * different value may also come without a visible change); compare for equality only. SQLite: its
     * {@code PRAGMA data_version} on this reader's connection (and a check that the file is still there).
     * PostgreSQL: a number this reader moves whenever the server's transaction snapshot
     * ({@code pg_current_snapshot()}) differs from the last one it saw (decision 0904).
     */
    long changeMarker();

    /**
     * How this reader reaches the ledger, for the window to show (decision 0906): {@link ConnectionSecurity#LOCAL_FILE}
     * for a file; a server's reader says whether its session is encrypted and what its client verified.
     */
    default ConnectionSecurity connection() {
        return ConnectionSecurity.LOCAL_FILE;
    }

    /** Reads everything but the journal in one read transaction. */
    AdminSnapshot snapshot();

    /**
     * The ledger's state as numbers ({@link LedgerMetrics}: its size on disk, rows per table, the oldest retained
     * event, the journal's growth over the last day, ...), read in one read transaction by the same statements as
     * {@code Engine.metrics()} and {@code sovereign status}, so the console shows the same numbers. Heavier than a
     * {@link #snapshot()} (it counts every table and groups the journal): a poller reads it seldom.
     */
    LedgerMetrics metrics();

    /** Journal events with {@code seq > afterSeq}, oldest first, at most {@code limit}. */
    List<JournalEntry> eventsSince(long afterSeq, int limit);

    /** The newest {@code REJECTED} events, newest first, at most {@code limit}. */
    List<JournalEntry> recentRejections(int limit);

    /**
     * How far back {@link #journalAbout} looks for a subject the journal has no index for (a process: the rows
     * it wrote or that are about it), counted in journal rows from the newest.
     */
    int SUBJECT_SCAN_ROWS = 50_000;

    /**
     * The newest journal rows about {@code subject} (newest first, at most {@code limit}) with how many there
     * are, each with its sentence. An actor's rows are every row whose actor column names it, over the whole
     * journal (SQLite: index {@code fence_events_by_actor}); a process's are the rows it wrote or was refused
     * and the rows about it (started, stopped, identity claims), among the journal's last
     * {@value #SUBJECT_SCAN_ROWS} rows (the journal has no index by process; rows <em>about</em> a process are
     * found over the whole journal through {@code fence_events_by_resource}).
     *
     * <p>This default reads the journal's tail through {@link #eventsSince} and filters it: correct on any
     * backend, bounded, never index-backed; backends override it.
     */
    default JournalSlice journalAbout(JournalSubject subject, int limit) {
        long last = snapshot().lastSeq();
        long from = Math.max(0, last - SUBJECT_SCAN_ROWS);
        ArrayDeque<JournalEntry> newest = new ArrayDeque<>();
        long total = 0;
        long after = from;
        while (true) {
            List<JournalEntry> page = eventsSince(after, 1_000);
            for (JournalEntry e : page) {
                if (subject.names(e)) {
                    total++;
                    newest.addFirst(e);
                    if (newest.size() > limit) {
                        newest.removeLast();
                    }
                }
            }
            if (page.size() < 1_000) {
                break;
            }
            after = page.get(page.size() - 1).seq();
        }
        return new JournalSlice(subject, List.copyOf(newest), total, from, last);
    }

    /**
     * Writes the whole journal to {@code target} as CSV (RFC 4180: CRLF line ends, fields quoted when
     * they contain a comma, a quote or a line break, quotes doubled), via a temporary file moved into
     * place at the end, so a failed export never leaves half a file under the target's name. The file is
     * {@code 0600} (only its owner may read it; docs/decisions/0801), also when it replaces an existing one.
     *
     * @param progress told after every page; may be {@link ExportProgress#NONE}
     * @return how many events were written
     * @throws java.io.UncheckedIOException when the target cannot be written
     */
    long exportJournalCsv(Path target, ExportProgress progress);

    /** Closes the connection; idempotent. */
    @Override
    void close();
}
