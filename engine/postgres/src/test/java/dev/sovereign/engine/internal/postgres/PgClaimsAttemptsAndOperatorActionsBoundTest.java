package dev.sovereign.engine.internal.postgres;

import static dev.sovereign.engine.testing.RawPg.CLAIM_TOKEN;
import static dev.sovereign.engine.testing.RawPg.MINT;
import static dev.sovereign.engine.testing.RawPg.NOW;
import static dev.sovereign.engine.testing.RawPg.q;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.base.StorageException;
import dev.sovereign.engine.lease.Lease;
import dev.sovereign.engine.mailbox.Claim;
import dev.sovereign.engine.mailbox.Message;
import dev.sovereign.engine.mailbox.MessageState;
import dev.sovereign.engine.run.Assignment;
import dev.sovereign.engine.run.AssignmentState;
import dev.sovereign.engine.testing.PgFenceWrites;
import dev.sovereign.engine.testing.PgLogins;
import dev.sovereign.engine.testing.RawPg;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Issue 32 items 4-6 on PostgreSQL (decision 0916): a worker login could expire, freeze, forge and finish another
 * host's message claims, retry a RUNNING or COMPLETED assignment and acknowledge one that never failed, and record
 * work as done that never ran (an attempt in another process's name, ended, with a receipt). Since schema version 9
 * a claim, an attempt and an assignment's terminal write through an attempt are written only by the login that
 * registered the process they name (or the operator role, or the owner); a claim's expiry is bounded by the
 * server's clock; retry and acknowledge are the operator's, once, only after a failure.
 *
 * <p>Real logins on the embedded server: two worker hosts and an operator, members of the roles the ledger made.
 */
class PgClaimsAttemptsAndOperatorActionsBoundTest {
    private static final long YEAR = 365L * 86_400_000L;

    private static PgLogins logins;
    private static RawPg owner;
    private static String hostA;
    private static String hostB;
    private static String ops;
    private static RawPg asA;
    private static RawPg asB;
    private static RawPg asOps;
    private static int names;
    private Engine a;

    @BeforeAll
    static void ledger() throws Exception {
        logins = PgLogins.open();
        owner = logins.owner();
        hostA = logins.hostA();
        hostB = logins.hostB();
        ops = logins.ops();
        asA = logins.asA();
        asB = logins.asB();
        asOps = logins.asOps();
    }

    @AfterAll
    static void closeLedger() throws Exception {
        logins.close();
    }

    @BeforeEach
    void open() {
        a = logins.engineAs(hostA);
    }

    @AfterEach
    void close() {
        a.close();
    }

    private static String name(String prefix) {
        return prefix + "_" + ++names;
    }

    private static String actor() {
        String id = name("alpha");
        new PgFenceWrites(owner).actor(id);
        return id;
    }

    private Engine engineAs(String login) {
        return logins.engineAs(login);
    }

    private static long serverNow() {
        return logins.serverNow();
    }

    // ---- item 4: claims ----

    @Test
    void anotherHostsLoginCannotExpireFreezeForgeOrFinishALiveClaimAndTheHoldersOwnLoginIsBoundedByTheServersClock() {
        String alpha = actor();
        String holder = a.processIdentity();
        a.leases().acquire(alpha, Duration.ofHours(2));
        Message m = a.mailbox().send("someone", alpha, "hello", "body", 3);
        Claim claim = a.mailbox().claim(m.id(), alpha, Duration.ofHours(1));
        String where = " WHERE id = " + q(m.id());
        String notB = "only by the login that registered the claiming process (" + hostA + ")";

        // the attack: expire the live claim, then sweep it back to NEW — in one transaction or two
        asB.refused(notB, "UPDATE messages SET claim_expires_at = 0" + where);
        asB.refused(
                notB,
                "UPDATE messages SET claim_expires_at = 0" + where,
                "UPDATE messages SET state = 'NEW',"
                        + " claim_actor = NULL, claim_process = NULL, claim_token = NULL, claim_expires_at = NULL"
                        + where);
        // freeze it until 2255
        asB.refused(notB, "UPDATE messages SET claim_expires_at = 9000000000000" + where);
        // expire and re-mint in one transaction, in the holder's name
        asB.refused(
                notB,
                "UPDATE messages SET claim_expires_at = 0" + where,
                MINT,
                "UPDATE messages SET claim_token = " + CLAIM_TOKEN + ", claim_expires_at = " + NOW + " + 60000"
                        + where);
        // finish it
        asB.refused(
                "finished only by the login that registered the claiming process (" + hostA + ")",
                PgFenceWrites.finishStatement(m.id(), claim.token()));
        // a forged claim of a NEW message in the hosting process's name, with a token minted for it
        Message other = a.mailbox().send("someone", alpha, "second", "body", 3);
        asB.refused(notB, PgFenceWrites.claimStatements(other.id(), alpha, holder, 60_000));

        // the holder's own login: never into the past, never beyond a year from the server's clock
        String bounded = "a claim expires at most 365 days after the server's clock";
        asA.refused(bounded, "UPDATE messages SET claim_expires_at = 0" + where);
        asA.refused(bounded, "UPDATE messages SET claim_expires_at = 9000000000000" + where);
        asA.refused(bounded, PgFenceWrites.claimStatements(other.id(), alpha, holder, YEAR + 60_000));
        assertThat(owner.scalar("SELECT claim_expires_at FROM messages" + where))
                .isEqualTo(claim.expiresAt());
        assertThat(owner.scalar("SELECT count(*) FROM fence_events WHERE kind = 'CLAIM_SWEPT'"))
                .isZero();

        // the engine's own claims still work: a re-claim with a shorter TTL, a complete, a claim by the other host
        Claim again = a.mailbox().claim(m.id(), alpha, Duration.ofMinutes(1));
        assertThat(again.token()).isEqualTo(claim.token());
        assertThat(a.mailbox().complete(m.id(), claim.token()).state()).isEqualTo(MessageState.DONE);
        Claim second = a.mailbox().claim(other.id(), alpha, Duration.ofHours(1));
        assertThat(a.mailbox().deadLetter(other.id(), second.token()).state()).isEqualTo(MessageState.NEW);
        // the operator may act for any process (decision 0912)
        asOps.passes(PgFenceWrites.claimStatements(other.id(), alpha, holder, 60_000));
    }

    // ---- item 5: retry and acknowledge ----

    @Test
    void onlyTheOperatorRetriesOrAcknowledgesAndOnlyAFailedOrBlockedAssignmentOnce() {
        String alpha = actor();
        Assignment failed = a.runs().assign(alpha, "scripted:outcome=failed");
        a.runs().runAssignment(failed.id());
        Assignment completed = a.runs().assign(alpha, "scripted");
        a.runs().runAssignment(completed.id());
        String running = name("asg_running");
        String[] insert = {
            "INSERT INTO assignments (id, actor_id, provider_spec, workspace_policy, state, retry_of,"
                    + " created_at, updated_at) VALUES (",
            ", " + q(alpha) + ", 'scripted', 'temporary', 'CREATED', ",
            ", " + NOW + ", " + NOW + ")"
        };
        PgFenceWrites byOwner = new PgFenceWrites(owner);
        String gamma = actor();
        String process = name("proc_owner");
        byOwner.process(process);
        byOwner.assign(running, gamma);
        byOwner.start(name("att"), running, gamma, process, byOwner.acquire(gamma, process, 60_000), 60_000);

        // a worker login: neither a retry nor an acknowledgement, of anything
        for (String target : new String[] {failed.id(), completed.id(), running}) {
            asB.refused(
                    "retried only by the ledger's operator role or its owner, not by " + hostB,
                    insert[0] + q(name("asg_r")) + insert[1] + q(target) + insert[2]);
            asA.refused(
                    "acknowledged only by the ledger's operator role or its owner, not by " + hostA,
                    "UPDATE assignments SET acknowledged_at = 1 WHERE id = " + q(target));
        }
        // the operator: only a FAILED or BLOCKED one, once
        for (String target : new String[] {completed.id(), running}) {
            asOps.refused(
                    "only a FAILED or BLOCKED assignment is retried, and only once",
                    insert[0] + q(name("asg_r")) + insert[1] + q(target) + insert[2]);
            asOps.refused(
                    "only a FAILED or BLOCKED assignment is acknowledged, and only once",
                    "UPDATE assignments SET acknowledged_at = " + NOW + " WHERE id = " + q(target));
        }
        asOps.refused(
                "an assignment is created unacknowledged",
                "INSERT INTO assignments (id, actor_id, provider_spec,"
                        + " workspace_policy, state, acknowledged_at, created_at, updated_at) VALUES (" + q(name("asg"))
                        + ", "
                        + q(alpha) + ", 'scripted', 'temporary', 'CREATED', 1, " + NOW + ", " + NOW + ")");
        long before = serverNow();
        asOps.passes("UPDATE assignments SET acknowledged_at = 1 WHERE id = " + q(failed.id()));
        assertThat(owner.scalar("SELECT acknowledged_at FROM assignments WHERE id = " + q(failed.id())))
                .isBetween(before, serverNow()); // the server's stamp, not the statement's
        asOps.refused(
                "only an acknowledgement can be added", // once (version 1's words)
                "UPDATE assignments SET acknowledged_at = " + NOW + " WHERE id = " + q(failed.id()));
        asOps.passes(insert[0] + q(name("asg_r")) + insert[1] + q(failed.id()) + insert[2]);
        asOps.refused(
                "only a FAILED or BLOCKED assignment is retried, and only once",
                insert[0] + q(name("asg_r")) + insert[1] + q(failed.id()) + insert[2]);

        // the engine: a worker's retry is refused by the database, the operator's goes through, journalled
        Assignment failedToo = a.runs().assign(alpha, "scripted:outcome=failed");
        a.runs().runAssignment(failedToo.id());
        for (Runnable byAWorker : new Runnable[] {
            () -> a.runs().retry(failedToo.id()), () -> a.runs().acknowledge(failedToo.id())
        }) {
            assertThatThrownBy(byAWorker::run).isInstanceOfSatisfying(StorageException.class, e -> {
                assertThat(e.problem()).isEqualTo(StorageException.Problem.READ_ONLY); // not CORRUPT: nothing is broken
                assertThat(e.getMessage())
                        .contains("only by the ledger's operator role or its owner, not by " + hostA)
                        .doesNotContain("\n");
            });
        }
        try (Engine operator = engineAs(ops)) {
            Assignment retry = operator.runs().retry(failedToo.id());
            assertThat(retry.retryOf()).isEqualTo(failedToo.id());
            assertThat(operator.runs().acknowledge(failedToo.id()).acknowledgedAt())
                    .isNotNull();
        }
        assertThat(owner.scalar("SELECT count(*) FROM fence_events WHERE resource_id = " + q(failedToo.id())
                        + " AND kind = 'ASSIGNMENT_ACKNOWLEDGED'"))
                .isEqualTo(1);
    }

    // ---- item 6: attempts ----

    @Test
    void anotherHostsLoginCannotRecordWorkAsDoneInAProcesssNameThatNeverRanIt() {
        String alpha = actor();
        String holder = a.processIdentity();
        Lease lease = a.leases().acquire(alpha, Duration.ofHours(1));
        String asg = name("asg");
        new PgFenceWrites(owner).assign(asg, alpha);
        String att = name("att");
        String notB = "only by the login that registered its process (" + hostA + ")";

        // the attack, in one transaction: start in the holder's name, end through it, write a receipt
        String[] start = PgFenceWrites.startStatements(att, asg, alpha, holder, lease.token(), 60_000);
        String[] end = PgFenceWrites.endStatements(asg, att, "COMPLETED", "attempt");
        asB.refused(
                notB,
                start[0],
                start[1],
                start[2],
                end[0],
                end[1],
                PgFenceWrites.receiptStatement(asg, att, 0, "completed", null, 1)
                        .replace(
                                ", 0, 'proc_x'",
                                ", (SELECT token FROM execution_attempts WHERE id = " + q(att) + "), " + q(holder)));
        assertThat(owner.text("SELECT state FROM assignments WHERE id = " + q(asg)))
                .isEqualTo("CREATED");

        // the holder's own login may start it (its times from the server's clock) ...
        asA.refused(
                "an attempt's times come from the server's clock",
                start[0],
                start[1].replace("now.ms + 60000", "now.ms + 9000000000000"),
                start[2]);
        asA.passes(start);
        // ... and another host's login may neither renew it nor end it through it
        asB.refused(
                "renewed or ended DONE only by the login that registered its process (" + hostA + ")",
                "UPDATE execution_attempts SET renewed_at = " + NOW + " WHERE id = " + q(att));
        asB.refused("ended by its attempt only by the login that registered the attempt's process", end);
        asA.passes(end);
        assertThat(owner.text("SELECT state FROM execution_attempts WHERE id = " + q(att)))
                .isEqualTo("DONE");

        // the engine's own runs still work for a worker login, and for another host on its own process
        Assignment run = a.runs().assign(alpha, "scripted");
        assertThat(a.runs().runAssignment(run.id()).assignment().state()).isEqualTo(AssignmentState.COMPLETED);
        String beta = actor();
        try (Engine b = engineAs(hostB)) {
            Assignment other = b.runs().assign(beta, "scripted");
            assertThat(b.runs().runAssignment(other.id()).assignment().state()).isEqualTo(AssignmentState.COMPLETED);
        }
    }
}
