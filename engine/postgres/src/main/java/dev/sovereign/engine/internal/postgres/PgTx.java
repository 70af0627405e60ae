package dev.sovereign.engine.internal.postgres;

import dev.sovereign.engine.internal.jdbc.Dialect;
import dev.sovereign.engine.internal.jdbc.IdentityClaim;
import dev.sovereign.engine.internal.jdbc.JdbcTx;
import dev.sovereign.engine.journal.EventKind;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.util.ArrayList;
import java.util.List;

/**
 * One transaction (or one auto-commit read) on the engine's PostgreSQL connection. {@link #now()} is the
 * SERVER's clock, read once per transaction on first use (after the store has locked its rows), and every
 * stamp the stores write is that value. The lock helpers take the rows in the order of decision 0900.
 * Not thread-safe; lives only inside {@link PgDatabase#write} or {@link PgDatabase#read}.
 */
public final class PgTx implements JdbcTx {
    private final PgDatabase db;
    private final Connection c;
    private final IdentityClaim claimToJournal;
    private boolean claimWritten;
    private Long now;
    /** The highest token minted in this transaction (0: none). */
    private long minted;

    PgTx(PgDatabase db, Connection c, IdentityClaim claimToJournal) {
        this.db = db;
        this.c = c;
        this.claimToJournal = claimToJournal;
    }

    /** The server's clock ({@code sovereign_now_ms()}), read once in this transaction. */
    @Override
    public long now() throws SQLException {
        if (now == null) {
            now = scalarLong("SELECT sovereign_now_ms()");
        }
        return now;
    }

    @Override
    public String processIdentity() {
        return db.processIdentity();
    }

    Connection connection() {
        return c;
    }

    boolean claimWritten() {
        return claimWritten;
    }

    /**
     * Whether one of the ledger's lease functions (schema version 5, decision 0506) may write this transaction's
     * rows: only when this engine acts under no identity claim (decision 0802). A claim is journalled with the
     * first change a transaction makes and named in every fence event it writes; a function's writes are not seen
     * by {@link #update}, so a claimed transaction takes the full path.
     */
    boolean mayDelegateLeaseWrites() {
        return db.claim() == null;
    }

    @Override
    public Dialect dialect() {
        return Dialect.POSTGRES;
    }

    @Override
    public int update(String sql, Object... args) throws SQLException {
        int n;
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            bind(ps, args);
            n = ps.executeUpdate();
        }
        afterChange(n);
        return n;
    }

    @Override
    public <T> List<T> query(String sql, RowMapper<T> mapper, Object... args) throws SQLException {
        List<T> out = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            bind(ps, args);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(mapper.map(rs));
                }
            }
        }
        if (!out.isEmpty() && isChange(sql)) {
            afterChange(out.size());
        }
        return out;
    }

    private static boolean isChange(String sql) {
        String head = sql.stripLeading();
        return head.regionMatches(true, 0, "UPDATE", 0, 6)
                || head.regionMatches(true, 0, "INSERT", 0, 6)
                || head.regionMatches(true, 0, "DELETE", 0, 6);
    }

    /** The claim is journalled with the first change this transaction makes (a refused call rolls both back). */
    private void afterChange(int n) throws SQLException {
        if (n > 0 && claimToJournal != null && !claimWritten) {
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

    // ---- the locks, in the order of decision 0900 ----

    /**
     * Locks the token counter row for the rest of this transaction: first, in every transaction that may
     * mint, so grants are serialised in commit order and a second grant of a free actor waits for the first
     * and then sees its row (there is no lease row to lock yet).
     */
    @Override
    public void lockTokenCounter() throws SQLException {
        query("SELECT last_token FROM token_counter WHERE id = 1 FOR UPDATE", rs -> rs.getLong(1));
    }

    /** A race the row locks did not exclude: {@link PgDatabase#write} runs the whole transaction again. */
    @Override
    public RuntimeException changedUnderLock(String row) {
        return new PgConflict(row + " changed under its row lock");
    }

    /** Locks the lease change counter row (second in the order), for transactions that write a lease. */
    @Override
    public void lockLeaseChanges() throws SQLException {
        query("SELECT last_change FROM lease_change_counter WHERE id = 1 FOR UPDATE", rs -> rs.getLong(1));
    }

    /**
     * Mints the next fencing token from the one counter, in this transaction: committed (or rolled back)
     * with the compare-and-set it authorises; the counter's guard stamps this transaction on it.
     */
    @Override
    public long mintToken() throws SQLException {
        long token = one(
                        "UPDATE token_counter SET last_token = last_token + 1 WHERE id = 1 RETURNING last_token",
                        rs -> rs.getLong(1))
                .orElseThrow(() -> new IllegalStateException("the token counter row is missing"));
        sawMinted(token);
        return token;
    }

    /**
     * A token this transaction minted (here or in one of the ledger's functions): one this engine already saw
     * committed means the ledger went backwards (decision 0605) and the transaction must not commit.
     */
    void sawMinted(long token) {
        db.requireForward(token);
        minted = Math.max(minted, token);
    }

    /** The highest token this transaction minted, 0 when none. */
    long minted() {
        return minted;
    }

    /** Appends one fence event in this transaction, stamped with the server's {@link #now()}. */
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
                now(),
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

    /** Binds positional arguments: null, Long, Integer, Boolean (as 0/1) or anything else as text. */
    static void bind(PreparedStatement ps, Object... args) throws SQLException {
        for (int i = 0; i < args.length; i++) {
            Object a = args[i];
            if (a == null) {
                ps.setNull(i + 1, Types.NULL); // unspecified: the server infers the column's type
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
