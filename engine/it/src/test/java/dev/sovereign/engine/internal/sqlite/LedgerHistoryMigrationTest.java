package dev.sovereign.engine.internal.sqlite;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.Ledgers;
import dev.sovereign.engine.admin.AdminReader;
import dev.sovereign.engine.admin.AdminSnapshot;
import dev.sovereign.engine.base.StorageException;
import dev.sovereign.engine.testing.RawSql;
import dev.sovereign.engine.testing.SettableClock;
import dev.sovereign.engine.testing.TempDatabase;
import java.sql.Connection;
import java.time.Duration;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Version 8 (decisions 0603-0605) on a ledger an older Sovereign wrote: its tokens keep their values (epoch 0), its
 * journal keeps every row (the table is rebuilt for the new kinds), and a counter a raw writer left damaged before
 * version 8 guarded it is named in one sentence by every open, and never shown as token 0.
 */
class LedgerHistoryMigrationTest {
    @RegisterExtension
    final TempDatabase temp = new TempDatabase();

    private final SettableClock clock = new SettableClock();

    private void versionSevenWithCounter(String counter) throws Exception {
        long now = clock.millis();
        OlderSchema.create(temp.file(), 7, s -> {
            s.execute("INSERT INTO ledger_mark (id, lab_sandbox, marked_at) VALUES (1, 0, " + now + ")");
            s.execute("INSERT INTO actors (id, created_at) VALUES ('a', " + now + ")");
            for (int i = 0; i < 3; i++) {
                s.execute("UPDATE token_counter SET last_token = last_token + 1 WHERE id = 1");
                s.execute("INSERT INTO fence_events (at, kind, resource_type, resource_id, token) VALUES (" + now
                        + ", 'MESSAGE_SENT', 'message', 'm" + i + "', " + (i + 1) + ")");
            }
            if (counter != null) {
                s.execute("UPDATE token_counter SET last_token = " + counter + " WHERE id = 1");
            }
        });
    }

    @Test
    void aVersionSevenLedgerKeepsItsTokensAndItsJournalInEpochZero() throws Exception {
        versionSevenWithCounter(null);
        try (Engine e = temp.open(clock)) {
            RawSql raw = new RawSql(temp.file());
            assertThat(raw.scalar("PRAGMA user_version")).isEqualTo(Migrator.LATEST);
            assertThat(raw.rows("SELECT seq, kind, token FROM fence_events ORDER BY seq"))
                    .startsWith("1|MESSAGE_SENT|1|", "2|MESSAGE_SENT|2|", "3|MESSAGE_SENT|3|");
            try (Connection c = raw.connect(false)) {
                assertThat(Migrator.guardProblems(c)).isEmpty();
            }
            assertThat(e.summary().history().epoch()).isZero();
            assertThat(e.leases().acquire("a", Duration.ofMinutes(1)).token()).isEqualTo(4);
        }
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(
            delimiter = '|',
            quoteCharacter = '"',
            value = {
                "3.5|holds 3.5 (real)",
                "'abc'|holds 'abc' (text)",
                "x'01'|holds X'01' (blob)",
                "'99999999999999999999'|(real)",
                "9223372036854775807|a token of epoch 8388607"
            })
    void aCounterARawWriterDamagedIsNamedAtOpenAndNeverShownAsZero(String counter, String named) throws Exception {
        versionSevenWithCounter(counter);
        assertThatThrownBy(() -> temp.open(clock))
                .isInstanceOfSatisfying(
                        StorageException.class,
                        x -> assertThat(x.problem()).isEqualTo(StorageException.Problem.CORRUPT))
                .hasMessageContaining("fencing-token counter")
                .hasMessageContaining(named)
                .hasMessageContaining("sovereign restore");
        try (AdminReader reader = Ledgers.openReader(temp.file(), clock, ZoneOffset.UTC)) {
            AdminSnapshot s = reader.snapshot();
            assertThat(s.history().counterProblem()).contains(named);
            if (!counter.equals("9223372036854775807")) {
                assertThat(s.lastToken()).isEqualTo(-1);
            }
        }
    }
}
