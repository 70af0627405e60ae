package dev.sovereign.engine.attack;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.mailbox.Claim;
import dev.sovereign.engine.mailbox.Message;
import dev.sovereign.engine.mailbox.MessageState;
import dev.sovereign.engine.testing.RawSql;
import dev.sovereign.engine.testing.SettableClock;
import dev.sovereign.engine.testing.TempDatabase;
import java.sql.SQLException;
import java.time.Duration;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Issue 32 item 4 on SQLite: a claim's expiry is guarded like an attempt's (decision 0113). Until then a plain
 * connection could expire a live one-hour claim ({@code claim_expires_at = 0}) and put the message back to NEW, or
 * expire it and mint a new claim in one transaction (the holder's {@code complete} then refused, the message
 * delivered twice, no sweep in the journal), or freeze it until 2255. Now, under the same claim, the expiry only
 * moves forward while the claim is live, and any expiry written is later than the write's own time and at most
 * 365 days after it (the longest TTL the API allows, decision 0602). Time is the writer's: SQLite has no clock every
 * writer shares, so "the write's own time" is the {@code updated_at} it stamps.
 */
class ClaimExpiryGuardsTest {
    @RegisterExtension
    final TempDatabase temp = new TempDatabase();

    private final SettableClock clock = new SettableClock();
    private RawSql raw;
    private Engine holder;
    private Message message;
    private Claim claim;

    @BeforeEach
    void open() {
        raw = new RawSql(temp.file());
        holder = temp.open(clock);
        holder.actors().add("w");
        holder.leases().acquire("w", Duration.ofHours(2));
        message = holder.mailbox().send("ops", "w", "job", null);
        claim = holder.mailbox().claim(message.id(), "w", Duration.ofHours(1));
        clock.advance(Duration.ofMinutes(1));
    }

    private String where() {
        return " WHERE id = '" + message.id() + "'";
    }

    private void refused(boolean recursive, String... statements) {
        assertThatThrownBy(() -> raw.run(recursive, statements))
                .as(String.join("; ", statements))
                .isInstanceOf(SQLException.class)
                .hasMessageContaining("fence: ");
    }

    /** The claim is untouched, and its holder finishes the message with its token. */
    private void stillClaimed() throws SQLException {
        assertThat(raw.text("SELECT state || ' ' || claim_token || ' ' || claim_expires_at FROM messages" + where()))
                .isEqualTo("CLAIMED " + claim.token() + " " + claim.expiresAt());
        assertThat(holder.mailbox().complete(message.id(), claim.token()).state())
                .isEqualTo(MessageState.DONE);
    }

    @ParameterizedTest(name = "claim_expires_at = {0}")
    @ValueSource(
            strings = {
                "0",
                "claim_expires_at - 1",
                "9000000000000",
                "claim_expires_at + 31536000000",
                "'abc'",
                "x'01'",
                "claim_expires_at + 0.5"
            })
    void aLiveClaimsExpiryCannotBeMovedBackFrozenOrRetyped(String value) throws Exception {
        for (boolean recursive : new boolean[] {false, true}) {
            refused(recursive, "UPDATE messages SET claim_expires_at = " + value + where());
        }
        stillClaimed();
    }

    @Test
    void aLiveClaimCannotBeExpiredThenSweptBackToNew() throws Exception {
        String sweep =
                "UPDATE messages SET state = 'NEW', claim_actor = NULL, claim_process = NULL, claim_token = NULL,"
                        + " claim_expires_at = NULL" + where();
        refused(false, "BEGIN IMMEDIATE", "UPDATE messages SET claim_expires_at = 0" + where(), sweep, "COMMIT");
        refused(false, sweep);
        stillClaimed();
    }

    @Test
    void aLiveClaimCannotBeExpiredAndReMintedInOneTransaction() throws Exception {
        long now = clock.millis();
        refused(
                false,
                "BEGIN IMMEDIATE",
                "UPDATE messages SET claim_expires_at = 0" + where(),
                "UPDATE token_counter SET last_token = last_token + 1 WHERE id = 1",
                "UPDATE messages SET claim_token = (SELECT last_token FROM token_counter), claim_expires_at = "
                        + (now + 3_600_000) + ", updated_at = " + now + where(),
                "COMMIT");
        stillClaimed();
    }

    /** A new claim, by hand with a freshly minted token over an expired one, still needs an expiry within a year. */
    @Test
    void aNewClaimExpiresAfterItsWriteAndWithinAYear() throws Exception {
        clock.advance(Duration.ofHours(2)); // the claim expired; the lease is still the holder's
        long now = clock.millis();
        String mint = "UPDATE token_counter SET last_token = last_token + 1 WHERE id = 1";
        String reclaim = "UPDATE messages SET claim_token = (SELECT last_token FROM token_counter), updated_at = " + now
                + ", claim_expires_at = ";
        refused(false, "BEGIN IMMEDIATE", mint, reclaim + (now + 31_536_000_001L) + where(), "COMMIT");
        refused(false, "BEGIN IMMEDIATE", mint, reclaim + now + where(), "COMMIT");
        raw.run(false, "BEGIN IMMEDIATE", mint, reclaim + (now + 31_536_000_000L) + where(), "COMMIT");
        assertThat(holder.mailbox().find(message.id()).orElseThrow().claim().expiresAt())
                .isEqualTo(now + 31_536_000_000L);
    }

    /** What the engine does still passes: a re-claim keeps the token and only extends, a sweep once expired. */
    @Test
    void theHoldersReClaimOnlyExtendsAndTheSweepTakesOnlyAnExpiredClaim() {
        Claim again = holder.mailbox().claim(message.id(), "w", Duration.ofHours(2));
        assertThat(again.token()).isEqualTo(claim.token());
        assertThat(again.expiresAt())
                .isEqualTo(clock.millis() + Duration.ofHours(2).toMillis());
        // a shorter TTL, or a clock stepped back, keeps the expiry already promised
        Claim shorter = holder.mailbox().claim(message.id(), "w", Duration.ofMinutes(5));
        assertThat(shorter.expiresAt()).isEqualTo(again.expiresAt());
        clock.advance(Duration.ofMinutes(-30));
        assertThat(holder.mailbox()
                        .claim(message.id(), "w", Duration.ofMinutes(5))
                        .expiresAt())
                .isEqualTo(again.expiresAt());

        assertThat(holder.mailbox().sweepExpiredClaims()).isEmpty();
        clock.set(again.expiresAt());
        assertThat(holder.mailbox().sweepExpiredClaims())
                .extracting(Claim::token)
                .containsExactly(claim.token());
    }
}
