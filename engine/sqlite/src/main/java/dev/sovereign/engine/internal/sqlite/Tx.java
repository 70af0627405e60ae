package dev.sovereign.engine.internal.sqlite;

import dev.sovereign.engine.journal.EventKind;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * One transaction (or one autocommit read) on the engine's connection, with {@link #now()} read
 * inside it. Small helpers keep the stores to one SQL statement per line. Not thread-safe; lives only
 * inside {@link Database#write} or {@link Database#read}.
 */
public final class Tx {
    private final Database db;
    private final StatementCache statements;
    private final long now;

    /** A claim to journal before this transaction's first change, or null (decision 0802). */
    private final IdentityClaim claimToJournal;
    private boolean claimWritten;
    /** The highest token minted in this transaction (0: none). */
    private long minted;

    Tx(Database db, StatementCache statements, long now) {
        this(db, statements, now, null);
    }

    Tx(Database db, StatementCache statements, long now, IdentityClaim claimToJournal) {
        this.claimToJournal = claimToJournal;
        this.db = db;
        this.statements = statements;
        this.now = now;
    }

    /** The clock reading taken after the write lock was held. */
    public long now() {
        return now;
    }

    public String processIdentity() {
        return db.processIdentity();
    }

    /** The ledger file this transaction writes. */
    public java.nio.file.Path file() {
        return db.file();
    }

    /** Whether this transaction journalled the claim it was given. */
    boolean claimWritten() {
        return claimWritten;
    }

    /** Maps the current row of a result set. */
    @FunctionalInterface
    public interface RowMapper<T> {
        T map(ResultSet rs) throws SQLException;
    }

    public int update(String sql, Object... args) throws SQLException {
        PreparedStatement ps = prepare(sql, args);
        boolean completed = false;
        try {
            int n = ps.executeUpdate();
            completed = true;
            if (n > 0) {
                // the claim is journalled with the first change it makes (a refused call rolls both back)
                journalClaim();
            }
            return n;
        } finally {
            release(sql, ps, completed);
        }
    }

    /**
     * Journals the identity claim this transaction carries, once, if it has not yet: for a change whose journal row the
     * schema itself writes inside the statement (a lease's release, V0008), so that the claim still comes first.
     */
    void journalClaim() throws SQLException {
        if (claimToJournal != null && !claimWritten) {
            claimWritten = true;
            journal(EventKind.PROCESS_STARTED, "process", processIdentity(), null, processIdentity(), null, null,
                    null, IdentityClaim.CATEGORY, claimToJournal.sentence(processIdentity()));
        }
    }

    public <T> List<T> query(String sql, RowMapper<T> mapper, Object... args) throws SQLException {
        PreparedStatement ps = prepare(sql, args);
        boolean completed = false;
        try {
            List<T> out = new ArrayList<>();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(mapper.map(rs));
                }
            }
            completed = true;
            return out;
        } finally {
            release(sql, ps, completed);
        }
    }

    private void release(String sql, PreparedStatement ps, boolean completed) {
        if (completed) {
            statements.giveBack(sql, ps);
        } else {
            statements.discard(ps);
        }
    }

    public <T> Optional<T> one(String sql, RowMapper<T> mapper, Object... args) throws SQLException {
        List<T> rows = query(sql, mapper, args);
        if (rows.size() > 1) {
            throw new IllegalStateException("expected at most one row, got " + rows.size() + " for: " + sql);
        }
        return rows.isEmpty() ? Optional.empty() : Optional.of(rows.get(0));
    }

    public long scalarLong(String sql, Object... args) throws SQLException {
        return one(sql, rs -> rs.getLong(1), args).orElseThrow(
                () -> new IllegalStateException("no row for: " + sql));
    }

    /**
     * Mints the next fencing token from the one database-wide counter, in this transaction: it is
     * committed (or rolled back) together with the compare-and-set it authorises.
     */
    public long mintToken() throws SQLException {
        long token = one("UPDATE token_counter SET last_token = last_token + 1 WHERE id = 1 RETURNING last_token",
                rs -> rs.getLong(1)).orElseThrow(() -> new IllegalStateException("the token counter row is missing"));
        db.requireForward(token); // a token this engine already saw: the ledger went backwards (decision 0605)
        minted = Math.max(minted, token);
        return token;
    }

    /** The highest token this transaction minted, 0 when none: the engine remembers it once it commits. */
    long minted() {
        return minted;
    }

    /**
     * Bumps the lease change counter in this transaction and returns its new value: the marker every
     * statement that inserts or updates {@code actor_leases} writes into {@code change_seq} (a trigger
     * refuses a row without it). A reader reads only rows marked above the value it saw last. See
     * docs/decisions/0414-lease-change-marker.md.
     */
    public long nextLeaseChange() throws SQLException {
        return one("UPDATE lease_change_counter SET last_change = last_change + 1 WHERE id = 1 RETURNING last_change",
                rs -> rs.getLong(1)).orElseThrow(
                        () -> new IllegalStateException("the lease change counter row is missing"));
    }

    /** The highest token ever minted. */
    public long lastToken() throws SQLException {
        return scalarLong("SELECT last_token FROM token_counter WHERE id = 1");
    }

    /** Appends one fence event in this transaction. */
    public void journal(EventKind kind, String resourceType, String resourceId, String actorId,
                        String process, Long token, Long presented, Long current, String category, String detail)
            throws SQLException {
        update("INSERT INTO fence_events (at, kind, resource_type, resource_id, actor_id, process_identity,"
                        + " token, presented_token, current_token, category, detail)"
                        + " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                now, kind.name(), resourceType, resourceId, actorId, process, token, presented, current,
                category, IdentityClaim.CATEGORY.equals(category) ? detail : IdentityClaim.attribute(detail, db.claim()));
    }

    /**
     * The detail of a journal row this transaction writes, as {@link #journal} would write it: with the claimant
     * named when this process acts as a borrowed identity (decision 0802). For a row the schema writes itself from
     * what the statement states (a lease's release, V0008).
     */
    public String attributed(String detail) {
        return IdentityClaim.attribute(detail, db.claim());
    }

    /** Shorthand for a grant-like event by this process. */
    public void journal(EventKind kind, String resourceType, String resourceId, String actorId, Long token,
                        String detail) throws SQLException {
        journal(kind, resourceType, resourceId, actorId, processIdentity(), token, null, null, null, detail);
    }

    private PreparedStatement prepare(String sql, Object... args) throws SQLException {
        PreparedStatement ps = statements.take(sql);
        try {
            bind(ps, args);
            return ps;
        } catch (SQLException | RuntimeException e) {
            statements.discard(ps);
            throw e;
        }
    }

    /** Binds positional arguments: null, Long, Integer, Boolean (as 0/1) or anything else as text. */
    static void bind(PreparedStatement ps, Object... args) throws SQLException {
        for (int i = 0; i < args.length; i++) {
            Object a = args[i];
            if (a == null) {
                ps.setNull(i + 1, Types.NULL);
            } else if (a instanceof Long l) {
                ps.setLong(i + 1, l);
            } else if (a instanceof Integer n) {
                ps.setInt(i + 1, n);
            } else if (a instanceof Boolean b) {
                ps.setInt(i + 1, b ? 1 : 0);
            } else {
                ps.setString(i + 1, a.toString());
            }
        }
    }

    /** Reads a nullable INTEGER column. */
    public static Long nullableLong(ResultSet rs, String column) throws SQLException {
        long v = rs.getLong(column);
        return rs.wasNull() ? null : v;
    }
}
