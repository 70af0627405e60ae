package dev.sovereign.engine.internal.sqlite;

import dev.sovereign.engine.internal.jdbc.Dialect;
import dev.sovereign.engine.internal.jdbc.IdentityClaim;
import dev.sovereign.engine.internal.jdbc.JdbcTx;
import dev.sovereign.engine.journal.EventKind;
import java.nio.file.Path;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.util.ArrayList;
import java.util.List;

/**
 * One transaction (or one autocommit read) on the engine's connection, with {@link #now()} read
 * inside it. Small helpers keep the stores to one SQL statement per line. Not thread-safe; lives only
 * inside {@link Database#write} or {@link Database#read}.
 */
public final class Tx implements JdbcTx {
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
    @Override
    public long now() {
        return now;
    }

    @Override
    public String processIdentity() {
        return db.processIdentity();
    }

    /** The ledger file this transaction writes. */
    public Path file() {
        return db.file();
    }

    /** Whether this transaction journalled the claim it was given. */
    boolean claimWritten() {
        return claimWritten;
    }

    @Override
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
            journal(
                    EventKind.PROCESS_STARTED,
                    "process",
                    processIdentity(),
                    null,
                    processIdentity(),
                    null,
                    null,
                    null,
                    IdentityClaim.CATEGORY,
                    claimToJournal.sentence(processIdentity()));
        }
    }

    @Override
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

    @Override
    public Dialect dialect() {
        return Dialect.SQLITE;
    }

    /** Nothing to lock: the transaction holds the file's one write lock from its {@code BEGIN IMMEDIATE}. */
    @Override
    public void lockTokenCounter() {}

    /** Under the file's one write lock nothing else writes: a row changed under it is a bug. */
    @Override
    public RuntimeException changedUnderLock(String row) {
        return new IllegalStateException(row + " changed under the write lock");
    }

    /** Nothing to lock, as {@link #lockTokenCounter}. */
    @Override
    public void lockLeaseChanges() {}

    /**
     * Mints the next fencing token from the one database-wide counter, in this transaction: it is
     * committed (or rolled back) together with the compare-and-set it authorises.
     */
    @Override
    public long mintToken() throws SQLException {
        long token = one(
                        "UPDATE token_counter SET last_token = last_token + 1 WHERE id = 1 RETURNING last_token",
                        rs -> rs.getLong(1))
                .orElseThrow(() -> new IllegalStateException("the token counter row is missing"));
        db.requireForward(token); // a token this engine already saw: the ledger went backwards (decision 0605)
        minted = Math.max(minted, token);
        return token;
    }

    /** The highest token this transaction minted, 0 when none: the engine remembers it once it commits. */
    long minted() {
        return minted;
    }

    /** Appends one fence event in this transaction. */
    @Override
    public void journal(
            EventKind kind,
            String resourceType,
            String resourceId,
            String actorId,
            String process,
            Long token,
            Long presented,
            Long current,
            String category,
            String detail)
            throws SQLException {
        update(
                "INSERT INTO fence_events (at, kind, resource_type, resource_id, actor_id, process_identity,"
                        + " token, presented_token, current_token, category, detail)"
                        + " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                now,
                kind.name(),
                resourceType,
                resourceId,
                actorId,
                process,
                token,
                presented,
                current,
                category,
                IdentityClaim.CATEGORY.equals(category) ? detail : IdentityClaim.attribute(detail, db.claim()));
    }

    /**
     * The detail of a journal row this transaction writes, as {@link #journal} would write it: with the claimant
     * named when this process acts as a borrowed identity (decision 0802). For a row the schema writes itself from
     * what the statement states (a lease's release, V0008).
     */
    public String attributed(String detail) {
        return IdentityClaim.attribute(detail, db.claim());
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
}
