package dev.sovereign.engine.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.base.Refusal;
import dev.sovereign.engine.base.RefusalCategory;
import dev.sovereign.engine.internal.jdbc.JdbcRuns;
import dev.sovereign.engine.lease.Lease;
import dev.sovereign.engine.provider.ProviderResult;
import dev.sovereign.engine.testing.ChildOutput;
import dev.sovereign.engine.testing.Port;
import dev.sovereign.engine.testing.SettableClock;
import dev.sovereign.engine.testing.TempDatabase;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Decision 0109 with a real SQLite write lock held by another connection at the moment that matters:
 * a refusal whose REJECTED row cannot be written is still the refusal (with a warning), and a stop (an
 * interrupt) while the terminal write waits for the lock does not throw the provider's outcome away.
 */
class RefusalsAndResultsUnderALockTest {
    private static final Duration DEADLINE = Duration.ofSeconds(30);

    @RegisterExtension
    final TempDatabase temp = new TempDatabase();

    private final SettableClock clock = new SettableClock();
    private Connection rogue;

    @AfterEach
    void closeRogue() throws SQLException {
        if (rogue != null) {
            rogue.close();
        }
    }

    private Statement takeTheLock() throws SQLException {
        rogue = DriverManager.getConnection("jdbc:sqlite:" + temp.file());
        Statement s = rogue.createStatement();
        s.execute("BEGIN IMMEDIATE");
        return s;
    }

    @Test
    void aRefusalWhoseRejectedRowCannotBeWrittenIsStillTheRefusalAndSaysTheRowIsMissing() throws Exception {
        Engine holder = temp.open(clock);
        Engine late =
                temp.open(temp.config(clock).busyBound(Duration.ofMillis(300)).build());
        holder.actors().add("operator");
        Assignment x = holder.runs().assign("operator", "scripted");
        Lease lease = holder.leases().acquire("operator", Duration.ofSeconds(30));
        Attempt live = Port.runs(holder).startAttempt(x.id(), lease.token(), 30_000);
        Statement lock = takeTheLock();

        // the refusal is decided by a read (no lock needed); its REJECTED row needs the lock
        assertThatThrownBy(() -> late.runs().runAssignment(x.id())).isInstanceOfSatisfying(Refusal.class, r -> {
            assertThat(r.category()).isEqualTo(RefusalCategory.EXECUTION_ATTEMPT_HELD);
            assertThat(r.currentToken()).isEqualTo(live.token());
            assertThat(r.warnings())
                    .singleElement()
                    .asString()
                    .contains("REJECTED journal row")
                    .contains("could not be written");
        });
        lock.execute("ROLLBACK");
        assertThat(late.journal().rejections(10)).isEmpty();
    }

    @Test
    void anInterruptWhileTheTerminalWriteWaitsForTheLockStillCommitsTheOutcome() throws Exception {
        Engine engine = temp.open(clock);
        engine.actors().add("operator");
        CountDownLatch locked = new CountDownLatch(1);
        AtomicReference<Statement> lock = new AtomicReference<>();
        engine.providers().register("lock-then-finish", arg -> job -> {
            try {
                lock.set(takeTheLock()); // held by another connection when the terminal write begins
            } catch (SQLException e) {
                throw new IllegalStateException(e);
            }
            locked.countDown();
            return ProviderResult.completed("finished before the stop");
        });
        Assignment x = engine.runs().assign("operator", "lock-then-finish");
        AtomicReference<Object> outcome = new AtomicReference<>();
        boolean[] interruptedAfter = {false};
        Thread runner = new Thread(
                () -> {
                    try {
                        outcome.set(engine.runs().runAssignment(x.id()));
                    } catch (RuntimeException e) {
                        outcome.set(e);
                    }
                    interruptedAfter[0] = Thread.currentThread().isInterrupted();
                },
                "runner");
        runner.start();
        assertThat(locked.await(DEADLINE.toSeconds(), TimeUnit.SECONDS)).isTrue();
        ChildOutput.await(
                "the terminal write to wait for the lock",
                DEADLINE,
                () -> Arrays.stream(runner.getStackTrace())
                        .anyMatch(f -> f.getMethodName().startsWith("finish")
                                && f.getClassName().equals(JdbcRuns.class.getName())));

        runner.interrupt(); // what `sovereign run` does on SIGINT
        // hold the lock until the wait has seen the interrupt: it either gave up (dead) or took it in
        ChildOutput.await(
                "the interrupt to be seen by the waiting write",
                DEADLINE,
                () -> !runner.isAlive() || !runner.isInterrupted());
        lock.get().execute("ROLLBACK");
        runner.join(DEADLINE.toMillis());

        assertThat(outcome.get()).isInstanceOfSatisfying(RunResult.class, r -> {
            assertThat(r.assignment().state()).isEqualTo(AssignmentState.COMPLETED);
            assertThat(r.receipt().summary()).isEqualTo("finished before the stop");
        });
        assertThat(interruptedAfter[0])
                .as("the interrupt is restored after the run's last write")
                .isTrue();
        assertThat(engine.runs().get(x.id()))
                .get()
                .extracting(Assignment::state)
                .isEqualTo(AssignmentState.COMPLETED);
        assertThat(engine.leases().current("operator")).isEmpty();
    }
}
