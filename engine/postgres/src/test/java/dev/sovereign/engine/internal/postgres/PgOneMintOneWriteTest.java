package dev.sovereign.engine.internal.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sovereign.engine.testing.PgFenceWrites;
import dev.sovereign.engine.testing.PgLogins;
import dev.sovereign.engine.testing.PgTestServer;
import dev.sovereign.engine.testing.RawPg;
import dev.sovereign.engine.testing.Stripes;
import java.sql.Connection;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * One mint carries one write (schema version 20, decision 0925): a hand-typed transaction that mints once cannot write
 * the token twice, to two leases, a lease and an attempt, or a lease and a claim; nor write an issued token again after
 * it halted the ledger; nor mark a used mint unused. Each from a worker login, as another host's hand would type it.
 * "a" and "actor-1" share stripe 10 of the counter.
 */
class PgOneMintOneWriteTest {
    private static final String MINTED = "minted for it in the same transaction";

    private PgTestServer.Database db;
    private Connection owner;
    private RawPg asOwner;
    private RawPg asWorker;
    private String process;

    @BeforeEach
    void ledger() throws Exception {
        db = PgTestServer.freshDatabase();
        owner = db.connect();
        new PgMigrator(false, "test", "abc", 10_000).migrate(owner);
        asOwner = new RawPg(owner);
        asWorker = PgLogins.worker(db, asOwner, "host_w");
        process = "proc_w";
        new PgFenceWrites(asWorker).process(process);
        PgFenceWrites w = new PgFenceWrites(asOwner);
        for (String actor : new String[] {"a", "actor-1"}) {
            w.actor(actor);
        }
        assertThat(Stripes.of("a")).isEqualTo(Stripes.of("actor-1"));
    }

    @AfterEach
    void close() throws Exception {
        owner.close();
    }

    private long issued() {
        return asOwner.scalar("SELECT count(*) FROM actor_leases")
                + asOwner.scalar("SELECT count(*) FROM execution_attempts")
                + asOwner.scalar("SELECT count(*) FROM messages WHERE claim_token IS NOT NULL");
    }

    @Test
    void oneMintCannotGrantTwoLeases() {
        String[] first = PgFenceWrites.acquireStatements("a", process, 60_000);
        String second = PgFenceWrites.acquireStatements("actor-1", process, 60_000)[1];
        asWorker.refused(MINTED, first[0], first[1], second);
        assertThat(issued()).isZero();
        // a mint for each: both granted, with two tokens of the one stripe
        asWorker.passes(first[0], first[1], PgFenceWrites.acquireStatements("actor-1", process, 60_000)[0], second);
        assertThat(asOwner.scalar("SELECT count(DISTINCT token) FROM actor_leases"))
                .isEqualTo(2);
    }

    @Test
    void oneMintCannotGrantALeaseAndStartAnAttemptOrGrantAClaim() {
        PgFenceWrites w = new PgFenceWrites(asWorker);
        long lease = w.acquire("a", process, 600_000);
        new PgFenceWrites(asOwner).assign("asg_1", "a");
        w.send("msg_1", "actor-1");
        String[] grant = PgFenceWrites.acquireStatements("actor-1", process, 60_000);
        // the attempt's insert after the lease's: the attempt names a (stripe 10), the token was actor-1's grant
        String[] start = PgFenceWrites.startStatements("att_1", "asg_1", "a", process, lease, 60_000);
        asWorker.refused("with a freshly minted token", grant[0], grant[1], start[1], start[2]);
        String[] claim = PgFenceWrites.claimStatements("msg_1", "actor-1", process, 60_000);
        asWorker.refused("a claim is granted with a freshly minted token", grant[0], grant[1], claim[1]);
        assertThat(issued()).isEqualTo(1); // a's lease only
    }

    @Test
    void aHaltedLedgerMarksNoMintSoAnIssuedTokenIsNotWrittenAgain() {
        PgFenceWrites w = new PgFenceWrites(asWorker);
        long token = w.acquire("a", process, 60_000);
        long counter = asOwner.scalar("SELECT max(last_token) FROM token_counter");
        // a worker may report a ledger gone backwards (it halts every stripe); in the same transaction,
        // the stripe's issued value written again for another actor
        asWorker.refused(
                MINTED,
                "INSERT INTO ledger_history (at, kind, epoch, from_token, to_token, seen_token, detail) VALUES (0,"
                        + " 'backwards', 0, " + counter + ", " + counter + ", " + (counter + 1) + ", 'a report')",
                PgFenceWrites.acquireStatements("actor-1", process, 60_000)[1]);
        assertThat(asOwner.scalar("SELECT count(*) FROM actor_leases WHERE token = " + token))
                .isEqualTo(1);
    }

    @Test
    void aUsedMintCannotBeMarkedUnusedAgain() {
        String[] first = PgFenceWrites.acquireStatements("a", process, 60_000);
        String second = PgFenceWrites.acquireStatements("actor-1", process, 60_000)[1];
        for (String unuse : new String[] {
            "UPDATE token_counter SET last_xact = txid_current() WHERE id = " + Stripes.of("a"),
            "UPDATE token_counter SET last_xact = 0 WHERE id = " + Stripes.of("a"),
            "UPDATE token_counter SET last_xact = -txid_current() WHERE id = " + Stripes.of("a") // used twice
        }) {
            asWorker.refused("only increases", first[0], first[1], unuse, second);
        }
        assertThat(issued()).isZero();
    }

    /**
     * A finished claim keeps its record (schema version 21): the finish cannot rewrite the claim's token to another
     * resource's, nor its claimant; a NEW message gets no token but by a claim; a tombstone's marker cannot be moved below
     * the console's cursor. Found by a read-only attack on versions 18 to 20; older than them.
     */
    @Test
    void aFinishedClaimKeepsItsTokenAndClaimantAndATombstoneItsMarker() {
        PgFenceWrites w = new PgFenceWrites(asWorker);
        long lease = w.acquire("a", process, 600_000);
        w.send("m1", "a");
        w.send("m2", "a");
        long claim = w.claim("m1", "a", process, 600_000);
        String finish = "UPDATE messages SET state = 'DONE', finished_with = " + claim + ", updated_at = " + RawPg.NOW;
        asWorker.refused("changes only by a claim", finish + ", claim_token = " + lease + " WHERE id = 'm1'");
        asWorker.refused("keeps the claim that finished it", finish + ", claim_process = 'proc_x' WHERE id = 'm1'");
        asWorker.refused("changes only by a claim", "UPDATE messages SET claim_token = " + lease + " WHERE id = 'm2'");
        asWorker.passes(finish + " WHERE id = 'm1'");
        assertThat(asOwner.scalar("SELECT claim_token FROM messages WHERE id = 'm1'"))
                .isEqualTo(claim);

        asWorker.passes(PgFenceWrites.releaseStatements("a", lease));
        asWorker.refused("a tombstone carries", "UPDATE lease_tombstones SET change_seq = 1 WHERE actor_id = 'a'");
        asWorker.refused(
                "a tombstone carries", "INSERT INTO lease_tombstones (actor_id, change_seq) VALUES ('actor-1', 1)");
        assertThat(asOwner.scalar("SELECT count(*) FROM lease_tombstones WHERE actor_id = 'a'"
                        + " AND change_seq = xmin::text::bigint"))
                .isEqualTo(1);
    }

    /**
     * After every kind of write that carries a mint — a takeover, a grant released again in the same transaction —
     * the mint is used; and a tombstone's marker holds against the upsert and MERGE forms too.
     */
    @Test
    void aMintIsUsedAfterATakeoverOrAGrantReleasedAgainAndATombstoneHoldsAgainstEveryForm() {
        PgFenceWrites w = new PgFenceWrites(asWorker);
        long expired = w.acquire("a", process, -1);
        String[] takeOver = PgFenceWrites.takeOverStatements("a", expired, process, 60_000);
        String grantOther = PgFenceWrites.acquireStatements("actor-1", process, 60_000)[1];
        asWorker.refused(MINTED, takeOver[0], takeOver[1], grantOther);
        long current = w.takeOver("a", expired, process, 60_000);
        assertThat(current).isGreaterThan(expired);

        String present = "UPDATE actor_leases SET presented_token = token, change_seq = txid_current(),"
                + " presented_change = txid_current() WHERE actor_id = 'a'";
        asWorker.passes(PgFenceWrites.releaseStatements("a", current));
        String[] grant = PgFenceWrites.acquireStatements("a", process, 60_000);
        asWorker.refused(
                MINTED, grant[0], grant[1], present, "DELETE FROM actor_leases WHERE actor_id = 'a'", grantOther);
        assertThat(asOwner.scalar("SELECT count(*) FROM actor_leases")).isZero();

        asWorker.refused(
                "a tombstone carries",
                "INSERT INTO lease_tombstones (actor_id, change_seq) VALUES ('a', txid_current())"
                        + " ON CONFLICT (actor_id) DO UPDATE SET change_seq = 1");
        asWorker.refused(
                "a tombstone carries",
                "MERGE INTO lease_tombstones t USING (SELECT 'a' AS actor_id) s ON t.actor_id = s.actor_id"
                        + " WHEN MATCHED THEN UPDATE SET change_seq = 1");
        assertThat(asOwner.scalar("SELECT count(*) FROM lease_tombstones WHERE change_seq = 1"))
                .isZero();
    }
}
