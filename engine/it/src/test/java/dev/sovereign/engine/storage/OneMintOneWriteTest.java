package dev.sovereign.engine.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.lease.Lease;
import dev.sovereign.engine.testing.RawSql;
import dev.sovereign.engine.testing.SettableClock;
import dev.sovereign.engine.testing.TempDatabase;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * One mint carries one write on SQLite (schema version 17, decision 0925): the counter's value, already written by a
 * grant, cannot be written again — by a later transaction for a free actor, for an attempt or a claim, nor twice in
 * the transaction that minted it — and the counter's record of it cannot be wound back. Statements typed by hand
 * into the file (the sqlite3 shell), with and without recursive triggers.
 */
class OneMintOneWriteTest {
    @RegisterExtension
    final TempDatabase temp = new TempDatabase();

    private final SettableClock clock = new SettableClock();

    private static final String MINT = "UPDATE token_counter SET last_token = last_token + 1 WHERE id = 1";
    private static final String TOKEN = "(SELECT last_token FROM token_counter WHERE id = 1)";
    private static final String USED = "carries one write";

    private static String grant(String actor, String process) {
        return "INSERT INTO actor_leases (actor_id, process_identity, token, ttl_ms, acquired_at, renewed_at, expires_at,"
                + " renewals, renewal_journalled_at, change_seq) VALUES ('" + actor + "', '" + process + "', " + TOKEN
                + ", 60000, 1, 1, 60001, 0, 1, (SELECT last_change FROM lease_change_counter WHERE id = 1))";
    }

    private static final String BUMP = "UPDATE lease_change_counter SET last_change = last_change + 1 WHERE id = 1";

    @Test
    void theLastGrantsTokenIsNotWrittenAgainNorTwiceInOneTransaction() throws Exception {
        Engine e = temp.open(clock);
        e.actors().add("a");
        e.actors().add("b");
        e.actors().add("c");
        Lease a = e.leases().acquire("a", Duration.ofMinutes(1));
        String me = e.processIdentity();
        RawSql raw = new RawSql(temp.file());
        for (boolean recursive : new boolean[] {true, false}) {
            // a later transaction: nothing minted since a's grant, so the counter is a's token
            assertThatThrownBy(() -> raw.run(recursive, "BEGIN IMMEDIATE", BUMP, grant("b", me), "COMMIT"))
                    .hasMessageContaining(USED);
            // the transaction that mints: once for b, and the same value again for c
            assertThatThrownBy(() -> raw.run(
                            recursive, "BEGIN IMMEDIATE", MINT, BUMP, grant("b", me), BUMP, grant("c", me), "COMMIT"))
                    .hasMessageContaining(USED);
            // the record of the use cannot be wound back, nor set past the counter
            assertThatThrownBy(
                            () -> raw.run(recursive, "UPDATE token_counter SET last_used = last_used - 1 WHERE id = 1"))
                    .hasMessageContaining(USED);
            assertThatThrownBy(() ->
                            raw.run(recursive, "UPDATE token_counter SET last_used = last_token + 1 WHERE id = 1"))
                    .hasMessageContaining(USED);
            assertThatThrownBy(() -> raw.run(recursive, "UPDATE token_counter SET last_used = 'x' WHERE id = 1"))
                    .hasMessageContaining(USED);
        }
        assertThat(raw.scalar("SELECT count(*) FROM actor_leases")).isEqualTo(1);
        assertThat(raw.scalar("SELECT token FROM actor_leases")).isEqualTo(a.token());
        // a mint for each: both granted, each with its own token
        raw.run(true, "BEGIN IMMEDIATE", MINT, BUMP, grant("b", me), MINT, BUMP, grant("c", me), "COMMIT");
        assertThat(raw.scalar("SELECT count(DISTINCT token) FROM actor_leases")).isEqualTo(3);
        // and the engine's next grant goes on above them
        e.actors().add("d");
        assertThat(e.leases().acquire("d", Duration.ofMinutes(1)).token()).isGreaterThan(a.token() + 2);
    }

    @Test
    void theLastGrantsTokenStartsNoAttemptAndGrantsNoClaim() throws Exception {
        Engine e = temp.open(clock);
        e.actors().add("a");
        Lease a = e.leases().acquire("a", Duration.ofMinutes(1));
        e.runs().assign("a", "scripted");
        e.mailbox().send("ops", "a", "s", "b", 3);
        String me = e.processIdentity();
        RawSql raw = new RawSql(temp.file());
        String assignment = raw.text("SELECT id FROM assignments");
        String message = raw.text("SELECT id FROM messages");
        assertThatThrownBy(() -> raw.run(
                        true,
                        "INSERT INTO execution_attempts (id, assignment_id, actor_id, process_identity, token,"
                                + " lease_token, state, ttl_ms, started_at, renewed_at, expires_at) VALUES ('att_x', '"
                                + assignment + "', 'a', '" + me + "', " + TOKEN + ", " + a.token()
                                + ", 'ACTIVE', 5000, 1, 1, 5001)"))
                .hasMessageContaining(USED);
        assertThatThrownBy(() -> raw.run(
                        true,
                        "UPDATE messages SET state = 'CLAIMED', claim_actor = 'a', claim_process = '" + me
                                + "', claim_token = " + TOKEN + ", claim_expires_at = 60001,"
                                + " updated_at = 1 WHERE id = '" + message + "'"))
                .hasMessageContaining(USED);
        assertThat(raw.scalar("SELECT count(*) FROM execution_attempts")).isZero();
        assertThat(raw.scalar("SELECT count(*) FROM messages WHERE claim_token IS NOT NULL"))
                .isZero();
    }

    /** A finished claim keeps its record and a tombstone its marker (schema version 18, as PostgreSQL's 21). */
    @Test
    void aFinishedClaimKeepsItsTokenAndClaimantAndATombstoneItsMarker() throws Exception {
        Engine e = temp.open(clock);
        e.actors().add("a");
        e.actors().add("b");
        Lease a = e.leases().acquire("a", Duration.ofMinutes(1));
        String m1 = e.mailbox().send("ops", "a", "s", "b", 3).id();
        String m2 = e.mailbox().send("ops", "a", "s", "b", 3).id();
        long claim = e.mailbox().claim(m1, "a").token();
        RawSql raw = new RawSql(temp.file());
        String finish = "UPDATE messages SET state = 'DONE', finished_with = " + claim + ", updated_at = updated_at";
        assertThatThrownBy(() -> raw.run(true, finish + ", claim_token = " + a.token() + " WHERE id = '" + m1 + "'"))
                .hasMessageContaining("changes only by a claim");
        assertThatThrownBy(() -> raw.run(true, finish + ", claim_process = 'proc_x' WHERE id = '" + m1 + "'"))
                .hasMessageContaining("keeps the claim that finished it");
        assertThatThrownBy(() ->
                        raw.run(true, "UPDATE messages SET claim_token = " + a.token() + " WHERE id = '" + m2 + "'"))
                .hasMessageContaining("changes only by a claim");
        assertThat(raw.scalar("SELECT claim_token FROM messages WHERE id = '" + m1 + "'"))
                .isEqualTo(claim);

        e.leases().release("a", a.token());
        for (boolean recursive : new boolean[] {true, false}) {
            assertThatThrownBy(
                            () -> raw.run(recursive, "UPDATE lease_tombstones SET change_seq = 1 WHERE actor_id = 'a'"))
                    .hasMessageContaining("a tombstone carries");
            assertThatThrownBy(() ->
                            raw.run(recursive, "INSERT INTO lease_tombstones (actor_id, change_seq) VALUES ('b', 1)"))
                    .hasMessageContaining("a tombstone carries");
        }
        assertThat(raw.scalar("SELECT change_seq FROM lease_tombstones WHERE actor_id = 'a'"))
                .isEqualTo(raw.scalar("SELECT last_change FROM lease_change_counter"));
    }

    /** After the engine's own takeover, claim and renewal, the counter's last token cannot be written again by hand. */
    @Test
    void afterATakeoverAClaimOrARenewalTheLastTokenIsUsed() throws Exception {
        Engine a = temp.open(clock);
        Engine b = temp.open(clock);
        a.actors().add("a");
        a.actors().add("b");
        Lease held = a.leases().acquire("a", Duration.ofSeconds(5));
        clock.advance(Duration.ofSeconds(10));
        Lease taken = b.leases().acquire("a", Duration.ofMinutes(1)); // a takeover: the counter's last token
        assertThat(taken.token()).isGreaterThan(held.token());
        RawSql raw = new RawSql(temp.file());
        String me = b.processIdentity();
        assertThatThrownBy(() -> raw.run(true, "BEGIN IMMEDIATE", BUMP, grant("b", me), "COMMIT"))
                .hasMessageContaining(USED);
        String m = b.mailbox().send("ops", "a", "s", "body", 3).id();
        assertThat(b.mailbox().claim(m, "a").token()).isGreaterThan(taken.token()); // a claim's mint
        assertThatThrownBy(() -> raw.run(true, "BEGIN IMMEDIATE", BUMP, grant("b", me), "COMMIT"))
                .hasMessageContaining(USED);
        b.leases().renew("a", taken.token()); // a renewal mints nothing: the claim's token stays used
        assertThatThrownBy(() -> raw.run(false, "BEGIN IMMEDIATE", BUMP, grant("b", me), "COMMIT"))
                .hasMessageContaining(USED);
        assertThat(raw.scalar("SELECT count(*) FROM actor_leases WHERE actor_id = 'b'"))
                .isZero();
    }
}
