package dev.sovereign.engine.internal.postgres;

import static dev.sovereign.engine.testing.PgFenceWrites.endStatements;
import static dev.sovereign.engine.testing.PgFenceWrites.takeOverStatements;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sovereign.engine.testing.PgFenceWrites;
import dev.sovereign.engine.testing.PgTestServer;
import dev.sovereign.engine.testing.RawPg;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Several transactions at once under READ COMMITTED, the level decision 0900 recommends: the counter
 * row lock orders grants by commit, a CAS re-checks its WHERE on the row version that committed, and
 * a guard that relies on the actor's lease waits for a concurrent takeover and then sees it.
 */
class PgConcurrentWritersTest {
    private PgTestServer.Database db;
    private Connection c;
    private RawPg sql;
    private PgFenceWrites w;
    private ExecutorService pool;

    @BeforeEach
    void open() throws Exception {
        db = PgTestServer.freshDatabase();
        c = db.connect();
        new PgMigrator(false, "test", "abc123", 10_000).migrate(c);
        sql = new RawPg(c);
        w = new PgFenceWrites(sql);
        w.process("proc_a");
        w.process("proc_b");
        pool = Executors.newFixedThreadPool(4);
    }

    @AfterEach
    void close() throws Exception {
        pool.shutdownNow();
        c.close();
    }

    /** Runs the statements as one transaction on a new connection; the row count of the last one, or the refusal. */
    private Object transaction(String... statements) {
        try (Connection own = db.connect();
                Statement s = own.createStatement()) {
            own.setAutoCommit(false);
            int rows = 0;
            try {
                for (String statement : statements) {
                    s.execute(statement);
                    rows = s.getUpdateCount();
                }
                own.commit();
                return rows;
            } catch (SQLException e) {
                own.rollback();
                return e.getMessage();
            }
        } catch (SQLException e) {
            return e.getMessage();
        }
    }

    private void awaitLockWait(int pid, Future<?> waiter) throws Exception {
        for (int i = 0; i < 500; i++) {
            if (waiter.isDone()) {
                waiter.get(); // it did not wait: surface what it did instead
                throw new AssertionError("the second transaction finished without waiting for the first");
            }
            if (sql.scalar("SELECT count(*) FROM pg_stat_activity WHERE pid = " + pid + " AND wait_event_type = 'Lock'")
                    == 1) {
                return;
            }
            Thread.sleep(10); // polling another server process's state, not waiting for time to pass
        }
        throw new AssertionError("the second transaction never waited for the first");
    }

    @Test
    void aStaleHolderBlockedBehindATakeoverIsRefusedOnceTheTakeoverCommits() throws Exception {
        w.actor("operator");
        long lease = w.acquire("operator", "proc_a", -1); // A's lease has expired, its attempt not yet
        w.assign("asg_1", "operator");
        w.start("att_1", "asg_1", "operator", "proc_a", lease, 60_000);

        try (Connection b = db.connect();
                Statement s = b.createStatement();
                Connection a = db.connect()) {
            b.setAutoCommit(false);
            for (String statement : takeOverStatements("operator", lease, "proc_b", 60_000)) {
                s.execute(statement); // B has taken the actor over, not yet committed
            }
            int aPid = (int) new RawPg(a).scalar("SELECT pg_backend_pid()");
            Future<String> completion = pool.submit(() -> {
                RawPg raw = new RawPg(a);
                raw.refused(
                        "an assignment ends only by its current attempt",
                        endStatements("asg_1", "att_1", "COMPLETED", "attempt"));
                return "refused";
            });
            awaitLockWait(aPid, completion); // A's completion waits on the lease row B is writing ...
            b.commit(); // ... and, once B commits, sees B's token and is refused
            assertThat(completion.get(30, TimeUnit.SECONDS)).isEqualTo("refused");
        }
        assertThat(sql.text("SELECT state FROM assignments")).isEqualTo("RUNNING");
    }

    @Test
    void twoTakeoversOfOneExpiredLeaseNeverBothWin() throws Exception {
        for (int round = 0; round < 10; round++) {
            String actor = "actor_" + round;
            w.actor(actor);
            long expired = w.acquire(actor, "proc_a", -1);
            CyclicBarrier gate = new CyclicBarrier(2);
            List<Future<Object>> racers = new ArrayList<>();
            for (String process : List.of("proc_a", "proc_b")) {
                racers.add(pool.submit(() -> {
                    gate.await(10, TimeUnit.SECONDS);
                    return transaction(takeOverStatements(actor, expired, process, 60_000));
                }));
            }
            List<Object> results = new ArrayList<>();
            for (Future<Object> r : racers) {
                results.add(r.get(30, TimeUnit.SECONDS));
            }
            assertThat(results).as("round %d", round).containsExactlyInAnyOrder(1, 0); // one row won, the other none
        }
    }

    @Test
    void concurrentGrantsNeverShareATokenAndTheCounterCountsEveryOne() throws Exception {
        int threads = 4;
        int each = 20;
        for (int t = 0; t < threads; t++) {
            w.actor("actor_" + t);
        }
        CyclicBarrier gate = new CyclicBarrier(threads);
        List<Future<List<Long>>> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            String actor = "actor_" + t;
            workers.add(pool.submit(() -> {
                gate.await(10, TimeUnit.SECONDS);
                List<Long> tokens = new ArrayList<>();
                try (Connection own = db.connect()) {
                    RawPg raw = new RawPg(own);
                    PgFenceWrites mine = new PgFenceWrites(raw);
                    for (int i = 0; i < each; i++) {
                        long token = mine.acquire(actor, "proc_a", 60_000);
                        tokens.add(token);
                        raw.passes(PgFenceWrites.releaseStatements(actor, token));
                    }
                }
                return tokens;
            }));
        }
        Set<Long> all = new HashSet<>();
        for (Future<List<Long>> f : workers) {
            List<Long> tokens = f.get(60, TimeUnit.SECONDS);
            assertThat(tokens).isSorted();
            all.addAll(tokens);
        }
        assertThat(all).hasSize(threads * each);
        // every stripe's steps together: one per grant (schema version 19, decision 0924)
        assertThat(sql.scalar("SELECT sum((last_token - id) / 64) FROM token_counter"))
                .isEqualTo(threads * each);
    }

    @Test
    void aJournalRowWhoseSeqWasDrawnEarlierMayCommitLater() throws Exception {
        try (Connection first = db.connect();
                Statement one = first.createStatement();
                Connection second = db.connect();
                Statement two = second.createStatement()) {
            first.setAutoCommit(false);
            second.setAutoCommit(false);
            one.execute(PgFenceWrites.journalStatement("LEASE_ACQUIRED", "early")); // draws seq n
            two.execute(PgFenceWrites.journalStatement("LEASE_ACQUIRED", "late")); // draws seq n + 1
            second.commit();
            first.commit(); // lower seq, later commit: an append all the same, not history rewritten
        }
        assertThat(sql.text("SELECT string_agg(resource_id, ',' ORDER BY seq) FROM fence_events"))
                .isEqualTo("early,late");
    }
}
