package dev.sovereign.engine.mailbox;

import dev.sovereign.engine.testing.PgTestBackend;
import dev.sovereign.engine.testing.TestBackend;

/** {@link MailboxContract} on PostgreSQL: a fresh database per test on this JVM's embedded server. */
class MailboxOnPostgresTest extends MailboxContract {
    @Override
    protected TestBackend backend() {
        return PgTestBackend.INSTANCE;
    }
}
