package dev.sovereign.console.testing;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.Refusal;
import dev.sovereign.engine.journal.EventKind;
import dev.sovereign.engine.lease.Lease;
import java.time.Duration;
import java.util.List;

/**
 * A realistic ledger made by real engines on the fixture's file: five actors, four workers, a
 * takeover after a paused holder, its refused late renewal, a contested acquire, a release, renewals
 * from heartbeats, and — until the runs and mailbox APIs land on this branch — assignments, attempts,
 * receipts, messages and a supervisor tick written with the engine's own transaction door.
 */
public final class Scenario {
    public final Engine workerA;
    public final Engine workerB;
    public final Engine workerC;
    public final Engine workerD;
    public Lease operatorFirst;
    public Lease operatorSecond;

    private final ConsoleFixture fx;

    private Scenario(ConsoleFixture fx) {
        this.fx = fx;
        workerA = fx.engine("worker 7101");
        workerB = fx.engine("worker 7102");
        workerC = fx.engine("worker 7103");
        workerD = fx.engine("worker 7104");
    }

    /** Builds the scenario; the clock ends 100 s after it started. */
    public static Scenario build(ConsoleFixture fx) {
        Scenario s = new Scenario(fx);
        s.run();
        return s;
    }

    private void step(int seconds, List<Engine> beating) {
        for (int i = 0; i < seconds; i++) {
            fx.clock.advance(Duration.ofSeconds(1));
            beating.forEach(Engine::heartbeatNow);
        }
    }

    private void run() {
        for (String actor : List.of("operator", "reviewer", "planner", "indexer", "archivist")) {
            workerA.actors().add(actor);
        }
        Engine cli = fx.engine("sovereign cli");
        cli.close();
        operatorFirst = workerA.leases().acquire("operator", Duration.ofSeconds(10));
        workerC.leases().acquire("reviewer", Duration.ofSeconds(15));
        step(10, List.of(workerA, workerC));
        Lease indexer = workerC.leases().acquire("indexer", Duration.ofSeconds(10));
        step(10, List.of(workerA, workerC));
        workerD.leases().acquire("planner", Duration.ofSeconds(8));
        step(10, List.of(workerA, workerC, workerD));
        workerC.leases().release("indexer", indexer.token());
        step(10, List.of(workerA, workerC, workerD));
        // worker A pauses (no more heartbeats): its operator lease runs out and worker B takes over.
        step(12, List.of(workerC, workerD));
        operatorSecond = workerB.leases().acquire("operator", Duration.ofSeconds(10));
        step(1, List.of(workerB, workerC, workerD));
        // worker A wakes up and presents its old token: refused and journalled.
        try {
            workerA.leases().renew("operator", operatorFirst.token());
        } catch (Refusal expected) {
            // the point of the scenario
        }
        step(2, List.of(workerB, workerC, workerD));
        try {
            workerA.leases().acquire("operator", Duration.ofSeconds(10));
        } catch (Refusal expected) {
            // held by worker B
        }
        step(7, List.of(workerB, workerC, workerD));
        // worker D stops beating: planner expires and nobody takes it over.
        step(8, List.of(workerB, workerC));
        workerB.leases().acquire("indexer", Duration.ofSeconds(12));
        writeRunsAndMailbox();
        step(20, List.of(workerB, workerC));
        writeSupervisorTick();
        step(10, List.of(workerB, workerC));
    }

    private void writeRunsAndMailbox() {
        String a = workerA.processIdentity();
        String b = workerB.processIdentity();
        workerB.database().write(tx -> {
            long now = tx.now();
            long lease = operatorSecond.token();
            insertAssignment(tx, "as-3", "operator", "command:make test", "FAILED", null, now - 40_000, now - 8_000);
            long lostToken = tx.mintToken();
            tx.update("INSERT INTO execution_attempts (id, assignment_id, actor_id, process_identity, token, lease_token,"
                    + " state, ttl_ms, started_at, renewed_at, expires_at, ended_at) VALUES ('at-3a', 'as-3', 'operator',"
                    + " ?, ?, ?, 'RECOVERED', 10000, ?, ?, ?, ?)", a, lostToken, operatorFirst.token(), now - 40_000,
                    now - 30_000, now - 20_000, now - 8_000);
            tx.update("INSERT INTO receipts (assignment_id, attempt_id, attempt_token, process_identity, status,"
                    + " failure_category, outcome_known, summary, created_at) VALUES ('as-3', 'at-3a', ?, ?, 'failed',"
                    + " 'worker_lost', 0, 'Recovered by the supervisor: the attempt expired while its process was"
                    + " silent.', ?)", lostToken, a, now - 8_000);
            tx.journal(EventKind.ATTEMPT_RECOVERED, "attempt", "at-3a", "operator", b, lostToken, null, null, null,
                    "worker_lost");
            insertAssignment(tx, "as-5", "reviewer", "scripted:ms=2000,outcome=completed", "COMPLETED", null,
                    now - 30_000, now - 25_000);
            long doneToken = tx.mintToken();
            tx.update("INSERT INTO execution_attempts (id, assignment_id, actor_id, process_identity, token, lease_token,"
                    + " state, ttl_ms, started_at, renewed_at, expires_at, ended_at) VALUES ('at-5a', 'as-5', 'reviewer',"
                    + " ?, ?, 1, 'DONE', 10000, ?, ?, ?, ?)", workerC.processIdentity(), doneToken, now - 28_000,
                    now - 26_000, now - 16_000, now - 25_000);
            tx.update("INSERT INTO receipts (assignment_id, attempt_id, attempt_token, process_identity, status,"
                    + " outcome_known, summary, created_at) VALUES ('as-5', 'at-5a', ?, ?, 'completed', 1,"
                    + " 'scripted provider finished in 2000 ms', ?)", doneToken, workerC.processIdentity(), now - 25_000);
            insertAssignment(tx, "as-7", "operator", "scripted:ms=60000,outcome=completed", "CREATED", null, now - 2_000,
                    now - 2_000);
            long runToken = tx.mintToken();
            tx.update("INSERT INTO execution_attempts (id, assignment_id, actor_id, process_identity, token, lease_token,"
                    + " state, ttl_ms, started_at, renewed_at, expires_at) VALUES ('at-7a', 'as-7', 'operator', ?, ?, ?,"
                    + " 'ACTIVE', 10000, ?, ?, ?)", b, runToken, lease, now - 1_000, now - 1_000, now + 9_000);
            tx.update("UPDATE assignments SET state = 'RUNNING', current_attempt = 'at-7a' WHERE id = 'as-7'");
            tx.journal(EventKind.ATTEMPT_STARTED, "attempt", "at-7a", "operator", b, runToken, null, null, null, null);
            insertAssignment(tx, "as-8", "planner", "command:./nightly.sh", "CREATED", null, now, now);
            insertMessage(tx, "msg-1", "reviewer", "operator", "Deploy checklist", "NEW", null, null, now - 5_000);
            long claim = tx.mintToken();
            insertMessage(tx, "msg-2", "planner", "operator", "Rotate the keys", "CLAIMED", b, claim, now - 9_000);
            tx.update("UPDATE messages SET claim_expires_at = ? WHERE id = 'msg-2'", now + 25_000);
            insertMessage(tx, "msg-3", "operator", "reviewer", "Review PR 42", "DONE", null, null, now - 50_000);
            insertMessage(tx, "msg-4", "operator", "archivist", "Archive March", "DEAD", null, null, now - 70_000);
            return null;
        });
    }

    private static void insertAssignment(dev.sovereign.engine.internal.sqlite.Tx tx, String id, String actor,
                                         String spec, String state, String retryOf, long created, long updated)
            throws java.sql.SQLException {
        tx.update("INSERT INTO assignments (id, actor_id, provider_spec, workspace_policy, state, retry_of, created_at,"
                + " updated_at) VALUES (?, ?, ?, 'temporary', ?, ?, ?, ?)", id, actor, spec, state, retryOf, created,
                updated);
    }

    private static void insertMessage(dev.sovereign.engine.internal.sqlite.Tx tx, String id, String from, String to,
                                      String subject, String state, String claimProcess, Long claimToken, long created)
            throws java.sql.SQLException {
        boolean claimed = state.equals("CLAIMED");
        tx.update("INSERT INTO messages (id, sender, recipient, subject, state, claim_actor, claim_process, claim_token,"
                        + " claim_expires_at, retry_count, max_retries, created_at, updated_at)"
                        + " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 3, ?, ?)", id, from, to, subject, state,
                claimed ? to : null, claimProcess, claimToken, claimed ? created + 30_000 : null,
                state.equals("DEAD") ? 3 : 0, created, created + 1_000);
    }

    private void writeSupervisorTick() {
        Engine sup = fx.engine("supervisor 7110");
        sup.database().write(tx -> tx.update("INSERT INTO supervisor_ticks (at, process_identity, expired_leases,"
                + " stale_processes, swept_claims, recovered, failures, report) VALUES (?, ?, 1, 2, 0, 1, 0, ?)",
                tx.now(), sup.processIdentity(), "expired lease: planner (token held by worker 7104)\n"
                        + "stale process: worker 7101 (no heartbeat for 58 s)\n"
                        + "stale process: worker 7104 (no heartbeat for 20 s)\n"
                        + "recovered: attempt at-3a of assignment as-3 as failed / worker_lost\n"
                        + "swept claims: none"));
        sup.close();
    }
}
