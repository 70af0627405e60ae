package dev.sovereign.engine.mailbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.base.StorageException;
import dev.sovereign.engine.testing.SettableClock;
import dev.sovereign.engine.testing.TempDatabase;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The supervisor's claim sweep asks its partial index first and takes SQLite's write lock only when a claim
 * has expired (issue 16): an idle tick never queues behind, or blocks, a writer. Shown with another
 * connection holding the write lock on the real file.
 */
class IdleSweepTakesNoWriteLockTest {
    @RegisterExtension
    final TempDatabase temp = new TempDatabase();

    private final SettableClock clock = new SettableClock();

    @Test
    void withNothingExpiredTheSweepAnswersWhileAnotherWriterHoldsTheLockAndWithAnExpiredClaimItNeedsTheLock()
            throws Exception {
        Engine e =
                temp.open(temp.config(clock).busyBound(Duration.ofMillis(300)).build());
        e.actors().add("operator", null);
        e.leases().acquire("operator", Duration.ofSeconds(60));
        Message m = e.mailbox().send("x", "operator", "job", null);
        e.mailbox().claim(m.id(), "operator", Duration.ofSeconds(5));

        try (Connection other = DriverManager.getConnection("jdbc:sqlite:" + temp.file());
                Statement s = other.createStatement()) {
            s.execute("BEGIN IMMEDIATE"); // another process's write transaction, held open

            // a write here would wait the 300 ms bound and fail BUSY; the idle sweep answers
            assertThat(e.mailbox().sweepExpiredClaims()).isEmpty();

            clock.advance(Duration.ofSeconds(5)); // now there is work, and work needs the lock
            assertThatThrownBy(() -> e.mailbox().sweepExpiredClaims())
                    .isInstanceOfSatisfying(
                            StorageException.class,
                            x -> assertThat(x.problem()).isEqualTo(StorageException.Problem.BUSY));
            s.execute("ROLLBACK");
        }
        assertThat(e.mailbox().sweepExpiredClaims())
                .singleElement()
                .extracting(Claim::message)
                .isEqualTo(m.id());
    }
}
