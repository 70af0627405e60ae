package dev.sovereign.engine.internal.postgres;

import dev.sovereign.engine.internal.jdbc.Dialect;
import dev.sovereign.engine.internal.jdbc.IdentityClaim;
import dev.sovereign.engine.internal.jdbc.JdbcTxBase;
import dev.sovereign.engine.internal.jdbc.WentBackwardsGuard;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * One transaction (or one auto-commit read) on the engine's PostgreSQL connection. {@link #now()} is the
 * SERVER's clock, read once per transaction on first use (after the store has locked its rows), and every
 * stamp the stores write is that value. The lock helpers take the rows in the order of decision 0900.
 * Not thread-safe; lives only inside {@link PgDatabase#write} or {@link PgDatabase#read}.
 */
public final class PgTx extends JdbcTxBase {
    /** How many rows the token counter has, each minting for the actors of its stripe (schema version 19). */
    static final int TOKEN_STRIPES = 64;

    private final PgDatabase db;
    private final Connection c;
    private Long now;
    private Long transactionId;

    PgTx(PgDatabase db, WentBackwardsGuard backwards, Connection c, IdentityClaim claimToJournal) {
        super(db, backwards, claimToJournal);
        this.db = db;
        this.c = c;
    }

    /** The server's clock ({@code sovereign_now_ms()}), read once in this transaction. */
    @Override
    public long now() throws SQLException {
        if (now == null) {
            now = scalarLong("SELECT sovereign_now_ms()");
        }
        return now;
    }

    Connection connection() {
        return c;
    }

    /**
     * Whether one of the ledger's write functions (the lease functions of schema version 5, decision 0506; the
     * mailbox functions of version 16, decision 0920; the run functions of version 17, decision 0921) may write this
     * transaction's rows: only when this engine acts under no identity claim (decision 0802). A claim is journalled with the
     * first change a transaction makes and named in every fence event it writes; a function's writes are not seen
     * by {@link #update}, so a claimed transaction takes the full path.
     */
    boolean mayDelegateWrites() {
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
        if (n > 0) {
            journalClaim();
        }
    }

    // ---- the locks, in the order of decision 0900 ----

    /**
     * Locks the token counter row of {@code actor}'s stripe for the rest of this transaction (every row, in order, for
     * {@code null}): first, in every transaction that may mint for the actor, so its grants, attempts and claims are
     * serialised in commit order and a second grant of a free actor waits for the first and then sees its row (there
     * is no lease row to lock yet). Actors of other stripes do not wait (schema version 19, decision 0924).
     */
    @Override
    public void lockTokenCounter(String actor) throws SQLException {
        if (actor == null) {
            query("SELECT last_token FROM token_counter ORDER BY id FOR UPDATE", rs -> rs.getLong(1));
        } else {
            query(
                    "SELECT last_token FROM token_counter WHERE id = sovereign_token_stripe(?) FOR UPDATE",
                    rs -> rs.getLong(1),
                    actor);
        }
    }

    /** One step of {@code actor}'s stripe: the stripe count, so every stripe's tokens stay its own (0924). */
    @Override
    protected String mintTokenSql() {
        return "UPDATE token_counter SET last_token = last_token + " + TOKEN_STRIPES
                + " WHERE id = sovereign_token_stripe(?) RETURNING last_token";
    }

    @Override
    protected Object[] mintTokenArguments(String actor) {
        return new Object[] {actor};
    }

    /** A race the row locks did not exclude: {@link PgDatabase#write} runs the whole transaction again. */
    @Override
    public RuntimeException changedUnderLock(String row) {
        return new PgConflict(row + " changed under its row lock");
    }

    /**
     * Nothing to lock: since schema version 18 a lease write's change marker is its own transaction's id (decision
     * 0923), and no lease write waits for another actor's.
     */
    @Override
    public void lockLeaseChanges() {}

    /** This transaction's id ({@code txid_current()}), the change marker every lease write of it carries (0923). */
    @Override
    public long nextLeaseChange() throws SQLException {
        if (transactionId == null) {
            transactionId = scalarLong("SELECT txid_current()");
        }
        return transactionId;
    }
}
