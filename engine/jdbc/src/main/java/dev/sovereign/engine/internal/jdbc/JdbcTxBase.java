package dev.sovereign.engine.internal.jdbc;

import dev.sovereign.engine.journal.EventKind;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Types;

/**
 * What every backend's transaction does the same way: the identity claim journalled with the first change
 * (decision 0802), the token minted from the one counter and checked against the tokens this engine saw committed
 * (decision 0605), and the journal's rows attributed to a claimant. A backend's transaction adds how it runs a
 * statement and where its clock comes from. Not thread-safe; lives inside one transaction.
 */
public abstract class JdbcTxBase implements JdbcTx {
    private final Transactions door;
    private final WentBackwardsGuard backwards;
    /** A claim to journal before this transaction's first change, or null (decision 0802). */
    private final IdentityClaim claimToJournal;

    private boolean claimWritten;
    /** The highest token minted in this transaction (0: none). */
    private long minted;
    /** Every token minted in this transaction, in order (a few at most). */
    private long[] mintedTokens = new long[0];

    protected JdbcTxBase(Transactions door, WentBackwardsGuard backwards, IdentityClaim claimToJournal) {
        this.door = door;
        this.backwards = backwards;
        this.claimToJournal = claimToJournal;
    }

    @Override
    public String processIdentity() {
        return door.processIdentity();
    }

    /** Whether this transaction journalled the claim it was given. */
    public final boolean claimWritten() {
        return claimWritten;
    }

    /** The highest token this transaction minted, 0 when none: the door remembers it once it commits. */
    public final long minted() {
        return minted;
    }

    /** Every token this transaction minted: the door remembers each once it commits (each stripe its own, 0924). */
    public final long[] mintedTokens() {
        return mintedTokens.clone();
    }

    /**
     * Journals the identity claim this transaction carries, once, if it has not yet: before the first journal row
     * it writes ({@link #journal}), with the first change it makes that journals nothing (a beat), or before a change
     * whose journal row the schema itself writes inside the statement (SQLite's release, V0008), so that the claim
     * always comes first. A refused call rolls it back with everything else.
     */
    public final void journalClaim() throws SQLException {
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

    /**
     * Mints the next fencing token for {@code actor}'s resources, in this transaction: committed (or rolled back) with
     * the compare-and-set it authorises.
     */
    @Override
    public final long mintToken(String actor) throws SQLException {
        long token = one(mintTokenSql(), rs -> rs.getLong(1), mintTokenArguments(actor))
                .orElseThrow(() -> new IllegalStateException("the token counter row is missing"));
        sawMinted(token);
        return token;
    }

    /** The statement that mints: one step of the one counter row (SQLite); {@code PgTx} steps an actor's stripe. */
    protected String mintTokenSql() {
        return "UPDATE token_counter SET last_token = last_token + 1 WHERE id = 1 RETURNING last_token";
    }

    /** What {@link #mintTokenSql} binds for {@code actor}: nothing on SQLite. */
    protected Object[] mintTokenArguments(String actor) {
        return new Object[0];
    }

    /**
     * A token this transaction minted (here or in one of a ledger's functions): one this engine already saw committed
     * means the ledger went backwards (decision 0605) and the transaction must not commit.
     */
    public final void sawMinted(long token) {
        backwards.requireForward(token);
        minted = Math.max(minted, token);
        mintedTokens = java.util.Arrays.copyOf(mintedTokens, mintedTokens.length + 1);
        mintedTokens[mintedTokens.length - 1] = token;
    }

    /**
     * Appends one fence event in this transaction, stamped with {@link #now()}; under an identity claim not yet
     * journalled, the claim's row first, so that every row a claiming call writes comes after it (decision 0802) —
     * also when the call's first change was a statement that returned rows (a mint, a claim's UPDATE … RETURNING).
     */
    @Override
    public final void journal(
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
        journalClaim();
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
                IdentityClaim.CATEGORY.equals(category) ? detail : attributed(detail));
    }

    /**
     * The detail of a journal row this transaction writes, as {@link #journal} writes it: with the claimant named
     * when this process acts as a borrowed identity (decision 0802). Also for a row the schema writes itself from what
     * the statement states (SQLite's release, V0008).
     */
    public final String attributed(String detail) {
        return IdentityClaim.attribute(detail, door.claim());
    }

    /** Binds positional arguments: null, Long, Integer, Boolean (as 0/1) or anything else as text. */
    public static void bind(PreparedStatement ps, Object... args) throws SQLException {
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
