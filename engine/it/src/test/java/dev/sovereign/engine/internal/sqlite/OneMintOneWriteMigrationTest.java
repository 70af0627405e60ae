package dev.sovereign.engine.internal.sqlite;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.testing.RawSql;
import dev.sovereign.engine.testing.SettableClock;
import dev.sovereign.engine.testing.TempDatabase;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A version-16 file migrates to version 17 (decision 0925) with its counter used: the token its last grant carries
 * cannot be written again by hand, and the engine's next grant goes on above it.
 */
class OneMintOneWriteMigrationTest {
    @RegisterExtension
    final TempDatabase temp = new TempDatabase();

    @Test
    void aVersionSixteenFileMigratesWithEveryIssuedTokenUsed() throws Exception {
        OlderSchema.create(temp.file(), 16, s -> {
            for (int i = 0; i < 5; i++) {
                s.execute("UPDATE token_counter SET last_token = last_token + 1 WHERE id = 1");
            }
        });
        RawSql raw = new RawSql(temp.file());
        assertThat(raw.scalar("SELECT last_token FROM token_counter")).isEqualTo(5);
        Engine e = temp.open(new SettableClock());
        assertThat(raw.scalar("PRAGMA user_version")).isEqualTo(Migrator.LATEST);
        assertThat(raw.scalar("SELECT last_used FROM token_counter")).isEqualTo(5);
        e.actors().add("a");
        assertThatThrownBy(() -> raw.run(
                        true,
                        "BEGIN IMMEDIATE",
                        "UPDATE lease_change_counter SET last_change = last_change + 1 WHERE id = 1",
                        "INSERT INTO actor_leases (actor_id, process_identity, token, ttl_ms, acquired_at, renewed_at,"
                                + " expires_at, renewals, renewal_journalled_at, change_seq) VALUES ('a', '"
                                + e.processIdentity() + "', 5, 60000, 1, 1, 60001, 0, 1,"
                                + " (SELECT last_change FROM lease_change_counter WHERE id = 1))",
                        "COMMIT"))
                .hasMessageContaining("carries one write");
        assertThat(e.leases().acquire("a", Duration.ofMinutes(1)).token()).isEqualTo(6);
        assertThat(raw.scalar("SELECT last_used FROM token_counter")).isEqualTo(6);
    }

    /** A script line with a comment after its ';' would run on into the next statement, which the driver drops. */
    @Test
    void aScriptLineThatEndsInACommentAfterItsSemicolonIsRefusedNotHalfRun() {
        assertThatThrownBy(() -> Migrator.statements("UPDATE t SET a = 1; -- why\nCREATE TABLE u (a);\n"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("ends in a comment after its ';'");
        assertThat(Migrator.statements("-- why\nUPDATE t SET a = 1;\nCREATE TABLE u (a);\n"))
                .hasSize(2);
    }
}
