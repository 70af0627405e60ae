package dev.sovereign.engine.internal.postgres;

import dev.sovereign.engine.internal.jdbc.JdbcTx;
import dev.sovereign.engine.admin.EventSentences;
import dev.sovereign.engine.admin.JournalEntry;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * The journal as operators read it, each row with its sentence ({@link EventSentences}, shared with SQLite): for
 * a rejection, the one that explains it from the grant that minted the current token, or from what ended the
 * resource. The look-ups are SQLite's (decision 0404). Stateless; its {@link PgAdminReader} serialises every use.
 *
 * <p>Rows become visible out of {@code seq} order (0900): the console follows them with a {@code JournalTail}.
 */
final class PgAdminJournal {
    private static final String EVENT_SELECT = "SELECT e.seq, e.at, e.kind, e.resource_type, e.resource_id,"
            + " e.actor_id, e.process_identity, e.token, e.presented_token, e.current_token, e.category, e.detail,"
            + " p.label AS p_label, p.pid AS p_pid, p.host AS p_host"
            + " FROM fence_events e LEFT JOIN processes p ON p.identity = e.process_identity";

    private final EventSentences sentences;

    PgAdminJournal(EventSentences sentences) {
        this.sentences = sentences;
    }

    List<JournalEntry> eventsSince(JdbcTx tx, long afterSeq, int limit) throws SQLException {
        return explainAll(tx, tx.query(EVENT_SELECT + " WHERE e.seq > ? ORDER BY e.seq LIMIT ?",
                PgAdminJournal::rawEvent, afterSeq, limit));
    }

    List<JournalEntry> recentRejections(JdbcTx tx, int limit) throws SQLException {
        return explainAll(tx, tx.query(EVENT_SELECT + " WHERE e.kind = 'REJECTED' ORDER BY e.seq DESC LIMIT ?",
                PgAdminJournal::rawEvent, limit));
    }

    /**
     * The newest rows about one actor or process, with their count ({@code AdminReader#journalAbout}), as on
     * SQLite: an actor's through {@code fence_events_by_actor}; a process's rows about it through
     * {@code fence_events_by_resource} over the whole journal, plus the rows it wrote among the journal's last
     * {@code scanRows} (a range of the primary key: there is no index by writer).
     */
    dev.sovereign.engine.admin.JournalSlice journalAbout(JdbcTx tx, dev.sovereign.engine.admin.JournalSubject subject,
                                                         int limit, int scanRows) throws SQLException {
        long last = tx.scalarLong("SELECT coalesce(max(seq), 0) FROM fence_events");
        if (subject.kind() == dev.sovereign.engine.admin.JournalSubject.Kind.ACTOR) {
            List<JournalEntry> rows = explainAll(tx, tx.query(EVENT_SELECT + " WHERE e.actor_id = ? ORDER BY e.seq DESC"
                    + " LIMIT ?", PgAdminJournal::rawEvent, subject.id(), limit));
            long total = tx.scalarLong("SELECT count(*) FROM fence_events WHERE actor_id = ?", subject.id());
            return new dev.sovereign.engine.admin.JournalSlice(subject, rows, total, 0, last);
        }
        long from = Math.max(0, last - scanRows);
        List<JournalEntry> merged = new ArrayList<>(tx.query(EVENT_SELECT + " WHERE e.resource_type = 'process'"
                + " AND e.resource_id = ? ORDER BY e.seq DESC LIMIT ?", PgAdminJournal::rawEvent, subject.id(), limit));
        merged.addAll(tx.query(EVENT_SELECT + " WHERE e.seq > ? AND e.process_identity = ?"
                + " AND NOT (e.resource_type = 'process' AND e.resource_id = ?) ORDER BY e.seq DESC LIMIT ?",
                PgAdminJournal::rawEvent, from, subject.id(), subject.id(), limit));
        merged.sort(java.util.Comparator.comparingLong(JournalEntry::seq).reversed());
        if (merged.size() > limit) {
            merged = merged.subList(0, limit);
        }
        long total = tx.scalarLong("SELECT count(*) FROM fence_events WHERE resource_type = 'process'"
                + " AND resource_id = ?", subject.id())
                + tx.scalarLong("SELECT count(*) FROM fence_events WHERE seq > ? AND process_identity = ?"
                + " AND NOT (resource_type = 'process' AND resource_id = ?)", from, subject.id(), subject.id());
        return new dev.sovereign.engine.admin.JournalSlice(subject, explainAll(tx, merged), total, from, last);
    }

    private List<JournalEntry> explainAll(JdbcTx tx, List<JournalEntry> raw) throws SQLException {
        List<JournalEntry> out = new ArrayList<>(raw.size());
        for (JournalEntry e : raw) {
            String sentence = e.isRejection() ? explain(tx, e) : sentences.describe(e);
            out.add(new JournalEntry(e.seq(), e.at(), e.kind(), e.resourceType(), e.resourceId(), e.actor(),
                    e.process(), e.token(), e.presentedToken(), e.currentToken(), e.category(), e.detail(), sentence));
        }
        return out;
    }

    private String explain(JdbcTx tx, JournalEntry r) throws SQLException {
        JournalEntry grant = null;
        JournalEntry ended = null;
        if (r.currentToken() != null) {
            grant = first(tx, " WHERE e.resource_type = ? AND e.resource_id = ? AND e.seq < ? AND e.token = ?"
                    + " AND e.kind <> 'REJECTED' ORDER BY e.seq LIMIT 1", r.resourceType(), r.resourceId(), r.seq(),
                    r.currentToken());
            if (grant == null) {
                grant = first(tx, " WHERE e.token = ? AND e.seq < ? AND e.kind <> 'REJECTED' ORDER BY e.seq LIMIT 1",
                        r.currentToken(), r.seq());
            }
        } else {
            ended = first(tx, " WHERE e.resource_type = ? AND e.resource_id = ? AND e.seq < ?"
                    + " AND e.kind NOT IN ('REJECTED', 'LEASE_RENEWED') ORDER BY e.seq DESC LIMIT 1",
                    r.resourceType(), r.resourceId(), r.seq());
            if (r.presentedToken() != null && r.actor() != null) {
                JournalEntry stolen = first(tx, " WHERE e.actor_id = ? AND e.seq < ? AND e.kind = 'ATTEMPT_STOLEN'"
                        + " AND e.token = ? ORDER BY e.seq DESC LIMIT 1", r.actor(), r.seq(), r.presentedToken());
                if (stolen != null && (ended == null || stolen.seq() > ended.seq())) {
                    ended = stolen;
                }
            }
        }
        return sentences.explainRejection(r, grant, ended);
    }

    private JournalEntry first(JdbcTx tx, String where, Object... args) throws SQLException {
        return tx.one(EVENT_SELECT + where, PgAdminJournal::rawEvent, args).orElse(null);
    }

    private static JournalEntry rawEvent(ResultSet rs) throws SQLException {
        String process = rs.getString("process_identity");
        return new JournalEntry(rs.getLong("seq"), rs.getLong("at"), rs.getString("kind"), rs.getString("resource_type"),
                rs.getString("resource_id"), rs.getString("actor_id"),
                process == null ? null : PgAdminRows.ref(rs, process), JdbcTx.nullableLong(rs, "token"),
                JdbcTx.nullableLong(rs, "presented_token"), JdbcTx.nullableLong(rs, "current_token"),
                rs.getString("category"), rs.getString("detail"), null);
    }
}
