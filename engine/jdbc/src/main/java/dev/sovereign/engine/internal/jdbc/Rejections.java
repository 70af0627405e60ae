package dev.sovereign.engine.internal.jdbc;

import dev.sovereign.engine.base.Refusal;
import dev.sovereign.engine.base.RefusalCategory;
import dev.sovereign.engine.base.StorageException;
import dev.sovereign.engine.journal.EventKind;
import java.sql.SQLException;

/**
 * A refusal's {@code REJECTED} row in the journal (decision 0005), as both backends' doors write it, and what a
 * refusal says when that row could not be written (decision 0109: the refusal is the answer; the missing row is
 * reported, never swallowed). Stateless.
 */
public final class Rejections {
    private Rejections() {}

    /** The contention window (decision 0019): ten minutes, aligned to the epoch, the same on every backend. */
    public static final long CONTENTION_WINDOW_MS = 600_000L;

    /**
     * Appends the refusal's {@code REJECTED} row in {@code tx}, in the name of {@code process}; a repeated refusal
     * of a live lease is counted instead (see {@link #countedAsContention}).
     */
    public static void journalIn(JdbcTx tx, Refusal r, String process) throws SQLException {
        if (isContention(r, process) && countedAsContention(tx, r, process)) {
            return;
        }
        tx.journal(
                EventKind.REJECTED,
                r.resourceType() == null ? "actor" : r.resourceType(),
                r.resourceId() == null ? "?" : r.resourceId(),
                r.actorId(),
                process,
                null,
                r.presentedToken(),
                r.currentToken(),
                r.category().code(),
                r.getMessage());
        if (isContention(r, process)) {
            openWindow(tx, r, process);
        }
    }

    /**
     * Whether the refusal is contention (decision 0019): an acquire refused because the lease is live
     * ({@code actor_lease_held}) and presenting no token. A refusal that presents a token always keeps its own row:
     * that is the evidence fencing exists for.
     */
    private static boolean isContention(Refusal r, String process) {
        return r.category() == RefusalCategory.ACTOR_LEASE_HELD
                && r.presentedToken() == null
                && r.actorId() != null
                && process != null;
    }

    /**
     * Counts the refusal in its process's window for the actor, when the window's first refusal has its journal row
     * (decision 0019). A window whose first row is not the process's own journalled refusal in that window (one
     * written by hand) counts nothing: the refusal is journalled, so nobody can keep another process's refusal out
     * of the journal.
     */
    static boolean countedAsContention(JdbcTx tx, Refusal r, String process) throws SQLException {
        long at = tx.now();
        long window = at - Math.floorMod(at, CONTENTION_WINDOW_MS);
        return tx.update(
                        "UPDATE lease_contention SET refusals = refusals + 1, last_at = "
                                + tx.dialect().greatest() + "(last_at, ?), holder_token = ?"
                                + " WHERE actor_id = ? AND process_identity = ? AND window_start = ?"
                                + " AND EXISTS (SELECT 1 FROM fence_events e WHERE e.seq = lease_contention.first_seq"
                                + " AND e.kind = 'REJECTED' AND e.actor_id = lease_contention.actor_id"
                                + " AND e.process_identity = lease_contention.process_identity"
                                + " AND e.at >= lease_contention.window_start)",
                        at,
                        r.currentToken(),
                        r.actorId(),
                        process,
                        window)
                == 1;
    }

    /** Opens the refusal's window with the journal row just written as its first, unless the window exists. */
    private static void openWindow(JdbcTx tx, Refusal r, String process) throws SQLException {
        long at = tx.now();
        long window = at - Math.floorMod(at, CONTENTION_WINDOW_MS);
        tx.update(
                "INSERT INTO lease_contention (actor_id, process_identity, window_start, first_at, last_at, refusals,"
                        + " holder_token, first_seq) SELECT ?, ?, ?, ?, ?, 1, ?, "
                        + tx.dialect().lastJournalSeq()
                        + " WHERE NOT EXISTS (SELECT 1 FROM lease_contention c WHERE c.actor_id = ?"
                        + " AND c.process_identity = ? AND c.window_start = ?)",
                r.actorId(),
                process,
                window,
                at,
                at,
                r.currentToken(),
                r.actorId(),
                process,
                window);
    }

    /** The refusal, carrying a warning that its row is missing when {@code journal} failed to write it. */
    public static Refusal orWarn(Refusal r, Runnable journal) {
        try {
            journal.run();
            return r;
        } catch (StorageException e) {
            return r.withWarning(missingRow(e));
        }
    }

    /** The warning a refusal carries when its {@code REJECTED} row could not be written. */
    public static String missingRow(StorageException e) {
        return "the REJECTED journal row for this refusal could not be written, so the console will not show it: "
                + e.getMessage();
    }
}
