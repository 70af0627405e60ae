package dev.sovereign.engine.internal.postgres;

import static dev.sovereign.engine.testing.RawPg.q;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.EngineAccess;
import dev.sovereign.engine.base.EngineConfig;
import dev.sovereign.engine.base.Refusal;
import dev.sovereign.engine.base.RefusalCategory;
import dev.sovereign.engine.lease.Lease;
import dev.sovereign.engine.mailbox.Claim;
import dev.sovereign.engine.testing.PgFenceWrites;
import dev.sovereign.engine.testing.PgTestServer;
import dev.sovereign.engine.testing.RawPg;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The one-call functions of schema versions 16 and 17 (decisions 0920, 0921) against real concurrent connections:
 * another connection holds the rows a call needs (a lease released and granted to another process, a sweep, a
 * supersede), the call waits for them, the other commits, and the call — PL/pgSQL and VOLATILE, so each of its
 * statements reads after the locks it waited for — writes nothing. And the one place where a function reads later
 * than the full path: the holder's heartbeat (decisions 0920's and 0921's updates).
 */
class PgOneCallRacesTest {
    private static Engine engine(PgTestServer.Database db) {
        return Engine.open(EngineConfig.forDatabase(db.url()).heartbeat(false).build());
    }

    /**
     * Waits until {@code waiters} backends of {@code db} wait for a lock (the calls under test are parked behind the
     * other connection's rows): a condition, polled, never a fixed time.
     */
    private static void awaitWaiting(RawPg watcher, PgTestServer.Database db, int waiters, Future<?> call)
            throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (System.nanoTime() < deadline) {
            if (watcher.scalar("SELECT count(*) FROM pg_stat_activity WHERE datname = " + q(db.name())
                            + " AND wait_event_type = 'Lock'")
                    >= waiters) {
                return;
            }
            if (call.isDone()) {
                call.get(); // it did not wait: say why
                throw new AssertionError("the call finished without waiting for the lock");
            }
            Thread.sleep(5);
        }
        throw new AssertionError("the call never waited for a lock");
    }

    /** A fresh ledger with actor alpha and processes proc_h and proc_q of the owner's login; proc_h holds alpha. */
    private record Ledger(PgTestServer.Database db, RawPg owner, PgFenceWrites w, long live) {
        Other another() throws SQLException {
            return new Other(new RawPg(db.connect()));
        }
    }

    /** A connection of its own, closed with the try block. */
    private record Other(RawPg sql) implements AutoCloseable {
        void exec(String... statements) {
            sql.exec(statements);
        }

        long scalar(String query) {
            return sql.scalar(query);
        }

        @Override
        public void close() throws SQLException {
            sql.connection().close();
        }
    }

    private static Ledger ledger() throws SQLException {
        PgTestServer.Database db = PgTestServer.freshDatabase();
        try (Engine created = engine(db)) {
            created.actors().add("alpha");
        }
        RawPg owner = new RawPg(db.connect());
        PgFenceWrites w = new PgFenceWrites(owner);
        w.process("proc_h");
        w.process("proc_q");
        long live = w.acquire("alpha", "proc_h", 600_000);
        return new Ledger(db, owner, w, live);
    }

    private static <T> Future<T> inTheBackground(ExecutorService pool, Callable<T> call) {
        return pool.submit(call);
    }

    @Test
    void aClaimAndAStartWaitingForTheCounterSeeTheLeaseReleasedAndGrantedToAnotherProcess() throws Exception {
        Ledger l = ledger();
        l.w().send("m1", "alpha");
        l.w().assign("asg_1", "alpha");
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try (Other mover = l.another();
                Other claimer = l.another();
                Other starter = l.another()) {
            mover.exec("BEGIN");
            mover.exec(PgFenceWrites.releaseStatements("alpha", l.live()));
            mover.exec(PgFenceWrites.acquireStatements("alpha", "proc_q", 600_000)); // mints: holds the counter
            Future<Long> claimed = inTheBackground(
                    pool, () -> claimer.scalar("SELECT count(*) FROM sovereign_claim('m1', 'alpha', 'proc_h', 5000)"));
            awaitWaiting(l.owner(), l.db(), 1, claimed);
            Future<Long> started = inTheBackground(
                    pool,
                    () -> starter.scalar("SELECT count(*) FROM sovereign_attempt_start('asg_1', 'att_x', 'proc_h', "
                            + l.live() + ", 5000)"));
            awaitWaiting(l.owner(), l.db(), 2, started); // behind the counter too
            mover.exec("COMMIT");

            assertThat(claimed.get(20, TimeUnit.SECONDS)).isZero();
            assertThat(started.get(20, TimeUnit.SECONDS)).isZero();
        } finally {
            pool.shutdownNow();
        }
        assertThat(l.owner().text("SELECT concat_ws('|', state, claim_token) FROM messages WHERE id = 'm1'"))
                .isEqualTo("NEW");
        assertThat(l.owner().text("SELECT concat_ws('|', state, current_attempt) FROM assignments WHERE id = 'asg_1'"))
                .isEqualTo("CREATED");
        assertThat(l.owner().scalar("SELECT count(*) FROM execution_attempts")).isZero();
        assertThat(l.owner()
                        .scalar("SELECT count(*) FROM fence_events WHERE kind IN ('CLAIM_GRANTED', 'ATTEMPT_STARTED')"))
                .isZero();
    }

    @Test
    void aCompletionWaitingForTheLeaseSeesItReleasedAndGrantedToAnotherProcess() throws Exception {
        Ledger l = ledger();
        l.w().send("m1", "alpha");
        long t = l.w().claim("m1", "alpha", "proc_h", 600_000);
        ExecutorService pool = Executors.newFixedThreadPool(1);
        try (Other mover = l.another();
                Other completer = l.another()) {
            mover.exec("BEGIN");
            mover.exec(PgFenceWrites.releaseStatements("alpha", l.live())); // the lease row deleted, locked
            mover.exec(PgFenceWrites.acquireStatements("alpha", "proc_q", 600_000)); // and inserted for proc_q
            Future<Long> done = inTheBackground(
                    pool,
                    () -> completer.scalar(
                            "SELECT count(*) FROM sovereign_message_complete('m1', " + t + ", 'proc_h')"));
            awaitWaiting(l.owner(), l.db(), 1, done);
            mover.exec("COMMIT");
            assertThat(done.get(20, TimeUnit.SECONDS)).isZero();
        } finally {
            pool.shutdownNow();
        }
        assertThat(l.owner().text("SELECT state FROM messages WHERE id = 'm1'")).isEqualTo("CLAIMED");
        assertThat(l.owner().scalar("SELECT count(*) FROM fence_events WHERE kind = 'MESSAGE_DONE'"))
                .isZero();
    }

    @Test
    void aCompletionWaitingForTheMessageSeesTheSweepAndWritesNothing() throws Exception {
        Ledger l = ledger();
        l.w().send("m1", "alpha");
        long t = l.w().claim("m1", "alpha", "proc_h", -1); // expired: a sweep may take it back
        ExecutorService pool = Executors.newFixedThreadPool(1);
        try (Other sweeper = l.another();
                Other completer = l.another()) {
            sweeper.exec("BEGIN");
            sweeper.exec("UPDATE messages SET state = 'NEW', claim_actor = NULL, claim_process = NULL,"
                    + " claim_token = NULL, claim_expires_at = NULL, updated_at = sovereign_now_ms()"
                    + " WHERE id = 'm1' AND claim_token = " + t + " AND claim_expires_at <= sovereign_now_ms()");
            Future<Long> done = inTheBackground(
                    pool,
                    () -> completer.scalar(
                            "SELECT count(*) FROM sovereign_message_complete('m1', " + t + ", 'proc_h')"));
            awaitWaiting(l.owner(), l.db(), 1, done);
            sweeper.exec("COMMIT");
            assertThat(done.get(20, TimeUnit.SECONDS)).isZero();
        } finally {
            pool.shutdownNow();
        }
        assertThat(l.owner().text("SELECT concat_ws('|', state, finished_with) FROM messages WHERE id = 'm1'"))
                .isEqualTo("NEW");
        assertThat(l.owner().scalar("SELECT count(*) FROM fence_events WHERE kind = 'MESSAGE_DONE'"))
                .isZero();
    }

    @Test
    void aTerminalWriteWaitingForItsAttemptSeesTheSupersedeAndWritesNothing() throws Exception {
        Ledger l = ledger();
        l.w().assign("asg_1", "alpha");
        l.w().start("att_old", "asg_1", "alpha", "proc_h", l.live(), -1); // expired: may be superseded
        ExecutorService pool = Executors.newFixedThreadPool(1);
        try (Other superseder = l.another();
                Other finisher = l.another()) {
            superseder.exec("BEGIN");
            superseder.exec("UPDATE execution_attempts SET state = 'SUPERSEDED', ended_at = sovereign_now_ms()"
                    + " WHERE id = 'att_old'");
            superseder.exec(PgFenceWrites.startStatements("att_new", "asg_1", "alpha", "proc_h", l.live(), 600_000));
            Future<Long> done = inTheBackground(
                    pool,
                    () -> finisher.scalar("SELECT count(*) FROM sovereign_attempt_finish('att_old', 'proc_h',"
                            + " 'completed', NULL, 1, 'x')"));
            awaitWaiting(l.owner(), l.db(), 1, done);
            superseder.exec("COMMIT");
            assertThat(done.get(20, TimeUnit.SECONDS)).isZero();
        } finally {
            pool.shutdownNow();
        }
        assertThat(l.owner().text("SELECT concat_ws('|', state, current_attempt) FROM assignments WHERE id = 'asg_1'"))
                .isEqualTo("RUNNING|att_new");
        assertThat(l.owner().scalar("SELECT count(*) FROM receipts")).isZero();
        assertThat(l.owner().scalar("SELECT count(*) FROM fence_events WHERE kind = 'ATTEMPT_DONE'"))
                .isZero();
    }

    /**
     * An attached lease whose holder's beat expired while the claim waited for the message's row lock, and whose
     * holder's session beat again before the lock was released. The function reads the beat after its locks and the
     * clock, and grants; the full path read it with the lease, before it waited, and refuses ({@code
     * actor_lease_lost}). Both are safe (the token counter and the lease stay locked; a takeover's guard reads the
     * current beat too); the function's answer is the fresher one. Pinned here so that a change to either path is
     * seen and decision 0920's account of it kept true.
     */
    @Test
    void aBeatCommittedWhileTheClaimWaitsIsSeenByTheFunctionButNotByTheFullPath() throws Exception {
        LateBeat late = lateBeat(
                holder ->
                        holder.mailbox().send("ops", "alpha", "job", "body", 3).id(),
                message -> "SELECT 1 FROM messages WHERE id = " + q(message) + " FOR UPDATE",
                (message, process, lease) ->
                        "SELECT count(*) FROM sovereign_claim(" + q(message) + ", 'alpha', " + q(process) + ", 30000)",
                (e, message, lease) -> {
                    Claim claim = e.mailbox().claim(message, "alpha", Duration.ofSeconds(30));
                    return "granted " + claim.token() + " to " + claim.process();
                });
        assertThat(late.functionAlone()).as("the function called by itself").isEqualTo("1");
        assertThat(late.function()).as("the function").startsWith("granted");
        assertThat(late.fullPath()).as("the full path").isEqualTo(RefusalCategory.ACTOR_LEASE_LOST.name());
        // with nothing to wait for, the full path reads the same fresh beat and grants
        assertThat(late.afterwards()).startsWith("granted").endsWith(" to " + late.holder());
    }

    /**
     * The same read order for an attempt's start (decision 0921's update): the holder's beat expired while the start
     * waited for the assignment's row lock and the session beat again before it was released; the function reads the
     * beat after its locks and starts the attempt, the full path read it with the lease and refuses.
     */
    @Test
    void aBeatCommittedWhileAStartWaitsIsSeenByTheFunctionButNotByTheFullPath() throws Exception {
        LateBeat late = lateBeat(
                holder -> EngineAccess.ledger(holder)
                        .runs()
                        .assign("alpha", "scripted", null)
                        .id(),
                assignment -> "SELECT 1 FROM assignments WHERE id = " + q(assignment) + " FOR UPDATE",
                (assignment, process, lease) -> "SELECT count(*) FROM sovereign_attempt_start(" + q(assignment)
                        + ", 'att_by_hand', " + q(process) + ", " + lease.token() + ", 30000)",
                (e, assignment, lease) -> "started "
                        + EngineAccess.ledger(e)
                                .runs()
                                .startAttempt(assignment, lease.token(), 30_000)
                                .token());
        assertThat(late.functionAlone()).as("the function called by itself").isEqualTo("1");
        assertThat(late.function()).as("the function").startsWith("started");
        assertThat(late.fullPath()).as("the full path").isEqualTo(RefusalCategory.ACTOR_LEASE_LOST.name());
    }

    /**
     * What {@link #lateBeat} saw: the function called by itself (rows it wrote), the engine through the function (which
     * falls back to the full path only after the wait), the full path, and the full path with no wait.
     */
    private record LateBeat(String holder, String functionAlone, String function, String fullPath, String afterwards) {}

    @FunctionalInterface
    private interface Make {
        String row(Engine holder) throws Exception;
    }

    @FunctionalInterface
    private interface Call {
        String sql(String row, String process, Lease lease);
    }

    @FunctionalInterface
    private interface Write {
        String on(Engine e, String row, Lease lease) throws Exception;
    }

    /**
     * Runs the function by itself ({@code call}, on a connection of its own), then {@code write} by the holder
     * (the function, then its fall-back) and by an engine under the holder's claimed identity (the full path), each on
     * a fresh {@code row} while another connection holds the row ({@code lock}), the
     * holder's 5 s attached lease's beat expires and the session beats again before the row is let go; then once
     * more through the full path with nothing to wait for. A refusal is answered by its category.
     */
    private static LateBeat lateBeat(
            Make make, java.util.function.Function<String, String> lock, Call call, Write write) throws Exception {
        PgTestServer.Database db = PgTestServer.freshDatabase();
        ExecutorService pool = Executors.newFixedThreadPool(1);
        try (Connection c = db.connect();
                Engine holder = engine(db);
                Engine fullPath = Engine.open(EngineConfig.forDatabase(db.url())
                        .heartbeat(false)
                        .actAs(holder.processIdentity())
                        .build());
                Other blocker = new Other(new RawPg(db.connect()));
                Other caller = new Other(new RawPg(db.connect()))) {
            RawPg sql = new RawPg(c);
            String me = holder.processIdentity();
            holder.actors().add("alpha");
            long start = sql.scalar("SELECT sovereign_now_ms()") + 1_000;
            PgTestServer.pinClock(db, start);
            Lease lease = holder.leases().acquire("alpha", Duration.ofSeconds(5)); // attached, row to start + 5 s
            assertThat(lease.attached()).isTrue();
            String[] outcome = new String[3];
            Engine[] engines = {null, holder, fullPath}; // an engine under a claimed identity takes the full path
            for (int i = 0; i < 3; i++) {
                long t0 = start + i * 100_000L;
                PgTestServer.pinClock(db, t0);
                sql.exec("UPDATE processes SET heartbeat_at = 0 WHERE identity = " + q(me)); // stamped: t0
                String row = make.row(holder);
                blocker.exec("BEGIN", lock.apply(row));
                Engine e = engines[i];
                Future<String> written = e == null
                        ? inTheBackground(pool, () -> String.valueOf(caller.scalar(call.sql(row, me, lease))))
                        : inTheBackground(pool, () -> attempt(() -> write.on(e, row, lease)));
                awaitWaiting(sql, db, 1, written);
                // the beat expires (t0 + 5 s), then the holder's session beats again, before the row is let go
                PgTestServer.pinClock(db, t0 + 6_000);
                sql.exec("UPDATE processes SET heartbeat_at = 0 WHERE identity = " + q(me)); // stamped: t0 + 6 s
                blocker.exec("ROLLBACK");
                outcome[i] = written.get(20, TimeUnit.SECONDS);
            }
            String row = make.row(holder);
            return new LateBeat(me, outcome[0], outcome[1], outcome[2], attempt(() -> write.on(fullPath, row, lease)));
        } finally {
            pool.shutdownNow();
        }
    }

    private static String attempt(Callable<String> write) throws Exception {
        try {
            return write.call();
        } catch (Refusal r) {
            return r.category().name();
        }
    }
}
