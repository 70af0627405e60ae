package dev.sovereign.engine.internal.jdbc;

import dev.sovereign.engine.admin.EventSentences;
import dev.sovereign.engine.admin.JournalEntry;
import dev.sovereign.engine.admin.JournalSlice;
import dev.sovereign.engine.admin.JournalSubject;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * The journal as operators read it, for both backends: rows after a sequence number, the newest rejections, each
 * with its sentence ({@link EventSentences}) — for a rejection, the one that explains it from the grant that minted
 * the current token (or, when nothing was current, from what ended the resource; decision 0404). Reads on what its
 * backend hands over. Stateless; not thread-safe (its reader serialises every use).
 *
 * <p>On PostgreSQL rows become visible out of {@code seq} order (decision 0900): the console follows them with a
 * {@code JournalTail}.
 */
public final class JdbcAdminJournal {
    private static final String EVENT_SELECT = "SELECT e.seq, e.at, e.kind, e.resource_type, e.resource_id,"
            + " e.actor_id, e.process_identity, e.token, e.presented_token, e.current_token, e.category, e.detail,"
            + " p.label AS p_label, p.pid AS p_pid, p.host AS p_host"
            + " FROM fence_events e LEFT JOIN processes p ON p.identity = e.process_identity";

    private final EventSentences sentences;

    public JdbcAdminJournal(EventSentences sentences) {
        this.sentences = sentences;
    }

    /** Journal rows after {@code afterSeq}, oldest first, each with its sentence. */
    public List<JournalEntry> eventsSince(JdbcReads q, long afterSeq, int limit) throws SQLException {
        return explainAll(
                q,
                q.query(
                        EVENT_SELECT + " WHERE e.seq > ? ORDER BY e.seq LIMIT ?",
                        JdbcAdminJournal::rawEvent,
                        afterSeq,
                        limit));
    }

    /** The newest rejections first, each with the sentence that explains it. */
    public List<JournalEntry> recentRejections(JdbcReads q, int limit) throws SQLException {
        return explainAll(
                q,
                q.query(
                        EVENT_SELECT + " WHERE e.kind = 'REJECTED' ORDER BY e.seq DESC LIMIT ?",
                        JdbcAdminJournal::rawEvent,
                        limit));
    }

    /**
     * The newest rows about one actor or process, with their count (see {@code AdminReader#journalAbout}). An
     * actor: {@code fence_events_by_actor} for the rows and the count. A process: the rows about it through
     * {@code fence_events_by_resource} over the whole journal, plus the rows it wrote among the journal's last
     * {@code scanRows} rows (a range of the primary key: there is no index by writer).
     */
    public JournalSlice journalAbout(JdbcReads q, JournalSubject subject, int limit, int scanRows) throws SQLException {
        long last = q.scalarLong("SELECT coalesce(max(seq), 0) FROM fence_events");
        if (subject.kind() == JournalSubject.Kind.ACTOR) {
            List<JournalEntry> rows = explainAll(
                    q,
                    q.query(
                            EVENT_SELECT + " WHERE e.actor_id = ? ORDER BY e.seq DESC" + " LIMIT ?",
                            JdbcAdminJournal::rawEvent,
                            subject.id(),
                            limit));
            long total = q.scalarLong("SELECT count(*) FROM fence_events WHERE actor_id = ?", subject.id());
            return new JournalSlice(subject, rows, total, 0, last);
        }
        long from = Math.max(0, last - scanRows);
        List<JournalEntry> about = q.query(
                EVENT_SELECT + " WHERE e.resource_type = 'process' AND e.resource_id = ?"
                        + " ORDER BY e.seq DESC LIMIT ?",
                JdbcAdminJournal::rawEvent,
                subject.id(),
                limit);
        List<JournalEntry> wrote = q.query(
                EVENT_SELECT + " WHERE e.seq > ? AND e.process_identity = ?"
                        + " AND NOT (e.resource_type = 'process' AND e.resource_id = ?) ORDER BY e.seq DESC LIMIT ?",
                JdbcAdminJournal::rawEvent,
                from,
                subject.id(),
                subject.id(),
                limit);
        List<JournalEntry> merged = new ArrayList<>(about);
        merged.addAll(wrote);
        merged.sort(Comparator.comparingLong(JournalEntry::seq).reversed());
        if (merged.size() > limit) {
            merged = merged.subList(0, limit);
        }
        long total = q.scalarLong(
                        "SELECT count(*) FROM fence_events WHERE resource_type = 'process' AND resource_id = ?",
                        subject.id())
                + q.scalarLong(
                        "SELECT count(*) FROM fence_events WHERE seq > ? AND process_identity = ?"
                                + " AND NOT (resource_type = 'process' AND resource_id = ?)",
                        from,
                        subject.id(),
                        subject.id());
        return new JournalSlice(subject, explainAll(q, merged), total, from, last);
    }

    private List<JournalEntry> explainAll(JdbcReads q, List<JournalEntry> raw) throws SQLException {
        List<JournalEntry> out = new ArrayList<>(raw.size());
        for (JournalEntry e : raw) {
            out.add(withSentence(e, e.isRejection() ? explain(q, e) + repeats(q, e) : sentences.describe(e)));
        }
        return out;
    }

    /**
     * How often the refusal that opened a contention window was repeated in it (decision 0019), looked up by the
     * window's key and first row: a refusal of a live lease with no token presented, the only kind that is counted.
     */
    private String repeats(JdbcReads q, JournalEntry e) throws SQLException {
        if (!"actor_lease_held".equals(e.category())
                || e.presentedToken() != null
                || e.actor() == null
                || e.process() == null) {
            return "";
        }
        return q.one(
                        "SELECT refusals, last_at FROM lease_contention WHERE actor_id = ? AND process_identity = ?"
                                + " AND window_start = ? AND first_seq = ?",
                        rs -> sentences.repeated(rs.getLong(1), rs.getLong(2)),
                        e.actor(),
                        e.process().identity(),
                        e.at() - Math.floorMod(e.at(), 600_000L),
                        e.seq())
                .orElse("");
    }

    /**
     * Finds why a rejection happened: the event that minted the current token (tokens come from one
     * counter, so at most one grant carries it), looked up on the same resource first (indexed), then
     * anywhere before the rejection; or, when nothing was current, the last event on the resource.
     */
    private String explain(JdbcReads q, JournalEntry r) throws SQLException {
        JournalEntry grant = null;
        JournalEntry ended = null;
        if (r.currentToken() != null) {
            grant = first(
                    q,
                    EVENT_SELECT + " WHERE e.resource_type = ? AND e.resource_id = ? AND e.seq < ?"
                            + " AND e.token = ? AND e.kind <> 'REJECTED' ORDER BY e.seq LIMIT 1",
                    r.resourceType(),
                    r.resourceId(),
                    r.seq(),
                    r.currentToken());
            if (grant == null) {
                grant = first(
                        q,
                        EVENT_SELECT + " WHERE e.token = ? AND e.seq < ? AND e.kind <> 'REJECTED'"
                                + " ORDER BY e.seq LIMIT 1",
                        r.currentToken(),
                        r.seq());
            }
        } else {
            ended = first(
                    q,
                    EVENT_SELECT + " WHERE e.resource_type = ? AND e.resource_id = ? AND e.seq < ?"
                            + " AND e.kind NOT IN ('REJECTED', 'LEASE_RENEWED') ORDER BY e.seq DESC LIMIT 1",
                    r.resourceType(),
                    r.resourceId(),
                    r.seq());
            if (r.presentedToken() != null && r.actor() != null) {
                // A stolen fence is journalled on the attempt, not on the assignment the worker wrote to:
                // find it by the token it presented (fence_events_by_actor, newest first).
                JournalEntry stolen = first(
                        q,
                        EVENT_SELECT + " WHERE e.actor_id = ? AND e.seq < ?"
                                + " AND e.kind = 'ATTEMPT_STOLEN' AND e.token = ? ORDER BY e.seq DESC LIMIT 1",
                        r.actor(),
                        r.seq(),
                        r.presentedToken());
                if (stolen != null && (ended == null || stolen.seq() > ended.seq())) {
                    ended = stolen;
                }
            }
        }
        return sentences.explainRejection(r, grant, ended);
    }

    private JournalEntry first(JdbcReads q, String sql, Object... args) throws SQLException {
        return q.one(sql, JdbcAdminJournal::rawEvent, args).orElse(null);
    }

    private static JournalEntry withSentence(JournalEntry e, String sentence) {
        return new JournalEntry(
                e.seq(),
                e.at(),
                e.kind(),
                e.resourceType(),
                e.resourceId(),
                e.actor(),
                e.process(),
                e.token(),
                e.presentedToken(),
                e.currentToken(),
                e.category(),
                e.detail(),
                sentence);
    }

    private static JournalEntry rawEvent(ResultSet rs) throws SQLException {
        String process = rs.getString("process_identity");
        return new JournalEntry(
                rs.getLong("seq"),
                rs.getLong("at"),
                rs.getString("kind"),
                rs.getString("resource_type"),
                rs.getString("resource_id"),
                rs.getString("actor_id"),
                process == null ? null : JdbcAdminRows.ref(rs, process),
                JdbcTx.nullableLong(rs, "token"),
                JdbcTx.nullableLong(rs, "presented_token"),
                JdbcTx.nullableLong(rs, "current_token"),
                rs.getString("category"),
                rs.getString("detail"),
                null);
    }
}
