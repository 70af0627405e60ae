package dev.sovereign.engine.internal.postgres;

import dev.sovereign.engine.internal.jdbc.JdbcMailbox;
import dev.sovereign.engine.internal.jdbc.JdbcTx;
import dev.sovereign.engine.mailbox.Message;
import java.sql.SQLException;
import java.util.Optional;

/**
 * The common case of a claim and of a completion in one round trip, through the ledger's mailbox functions (schema
 * version 16, decision 0920): {@code sovereign_claim} and {@code sovereign_message_complete} send the full path's
 * statements from inside the server, or write nothing and return no row, and {@link JdbcMailbox} then runs its full
 * path in the same transaction, which words every refusal. As for the lease functions ({@link PgLeaseWrites}), a
 * transaction under an identity claim takes the full path: a function's writes do not journal the claim. Stateless.
 */
final class PgMailboxWrites implements JdbcMailbox.Writes {
    static final PgMailboxWrites INSTANCE = new PgMailboxWrites();

    private static final String COLUMNS = JdbcMailbox.COLUMNS;

    private PgMailboxWrites() {}

    @Override
    public Optional<Message> claimInOneCall(JdbcTx tx, String message, String actor, long ttlMs) throws SQLException {
        if (!((PgTx) tx).mayDelegateWrites()) {
            return Optional.empty();
        }
        Optional<Message> claimed = tx.one(
                "SELECT " + COLUMNS + " FROM sovereign_claim(?::text, ?::text, ?::text, ?::bigint)",
                JdbcMailbox::map,
                message,
                actor,
                tx.processIdentity(),
                ttlMs);
        claimed.ifPresent(m -> ((PgTx) tx).sawMinted(m.claim().token()));
        return claimed;
    }

    @Override
    public Optional<Message> completeInOneCall(JdbcTx tx, String message, long token) throws SQLException {
        if (!((PgTx) tx).mayDelegateWrites()) {
            return Optional.empty();
        }
        return tx.one(
                "SELECT " + COLUMNS + " FROM sovereign_message_complete(?::text, ?::bigint, ?::text)",
                JdbcMailbox::map,
                message,
                token,
                tx.processIdentity());
    }
}
