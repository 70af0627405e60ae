package dev.sovereign.engine.internal.jdbc;

import dev.sovereign.engine.base.Refusal;
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

    /** Appends the refusal's {@code REJECTED} row in {@code tx}, in the name of {@code process}. */
    public static void journalIn(JdbcTx tx, Refusal r, String process) throws SQLException {
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
