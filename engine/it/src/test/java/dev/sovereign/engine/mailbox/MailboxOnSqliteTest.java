package dev.sovereign.engine.mailbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sovereign.engine.testing.Sqlite;
import dev.sovereign.engine.testing.TestBackend;
import org.junit.jupiter.api.Test;

/**
 * {@link MailboxContract} on SQLite: a real file per test, and what the file's schema does that only SQLite shows
 * (PostgreSQL's own proof is {@code PgDatabaseEnforcedFenceTest}).
 */
class MailboxOnSqliteTest extends MailboxContract {
    @Override
    protected TestBackend backend() {
        return TestBackend.sqlite();
    }

    @Test
    void theSchemaItselfRefusesToMoveAFinishedMessage() {
        a.leases().acquire("operator", TTL);
        Message m = a.mailbox().send("x", "operator", "done", null);
        a.mailbox().complete(m.id(), a.mailbox().claim(m.id(), "operator").token());

        assertThatThrownBy(() -> Sqlite.database(a)
                        .write(tx -> tx.update(
                                "UPDATE messages SET state = 'NEW', claim_actor = NULL, claim_process = NULL, claim_token = NULL,"
                                        + " claim_expires_at = NULL WHERE id = ?",
                                m.id())))
                .hasMessageContaining("refused a write");
        assertThat(a.mailbox().find(m.id())).get().extracting(Message::state).isEqualTo(MessageState.DONE);
    }
}
