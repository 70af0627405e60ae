package dev.sovereign.engine.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.base.FencingTokens;
import dev.sovereign.engine.base.StorageException;
import dev.sovereign.engine.testing.RawSql;
import dev.sovereign.engine.testing.SettableClock;
import dev.sovereign.engine.testing.TempDatabase;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The token counter of a file (issue 26 item 7, issue 32 item 2; decision 0603), written by a raw writer — the
 * sqlite3 shell, a buggy client — with {@code recursive_triggers} off and on: a value that is not a whole number
 * (a real, text, a blob, a number beyond 2^63 that SQLite stores as a real; a real that is a whole number, 2.0, is
 * stored as the integer 2 by the column's affinity), a jump (to 2^63 - 1, by two, to an
 * epoch's start without a history row) and every replacing form are refused; one step, as a mint makes it, passes,
 * and the engine's next grant still works. Within an epoch the counter never steps onto the next epoch's start: the
 * grant after an epoch's last token says to run {@code sovereign fence bump}.
 */
class CounterGuardTest {
    @RegisterExtension
    final TempDatabase temp = new TempDatabase();

    private final SettableClock clock = new SettableClock();
    private RawSql raw;
    private Engine engine;

    @BeforeEach
    void open() {
        raw = new RawSql(temp.file());
        engine = temp.open(clock);
        engine.actors().add("a");
        engine.actors().add("b");
        assertThat(engine.leases().acquire("a", Duration.ofMinutes(1)).token()).isEqualTo(1);
    }

    private void refused(boolean recursive, String expected, String statement) {
        assertThatThrownBy(() -> raw.run(recursive, statement))
                .as(statement)
                .isInstanceOf(SQLException.class)
                .hasMessageContaining(expected);
    }

    @ParameterizedTest(name = "recursive_triggers={0}")
    @ValueSource(booleans = {false, true})
    void aRawWriterMovesTheCounterOnlyByOneStep(boolean recursive) throws Exception {
        for (String garbage : List.of("0.5", "'abc'", "x'01'", "'99999999999999999999'", "1.5")) {
            refused(recursive, "holds a whole number", "UPDATE token_counter SET last_token = " + garbage);
        }
        for (String jump : List.of("9223372036854775807", "last_token + 2", Long.toString(FencingTokens.startOf(1)))) {
            refused(recursive, "moves only by one step", "UPDATE token_counter SET last_token = " + jump);
        }
        for (String replace : List.of(
                "REPLACE INTO token_counter (id, last_token) VALUES (1, 9223372036854775807)",
                "INSERT INTO token_counter (id, last_token) VALUES (1, 5) ON CONFLICT (id) DO UPDATE SET last_token = 'abc'",
                "INSERT INTO token_counter (id, last_token) VALUES (1, 5) ON CONFLICT (id) DO UPDATE SET last_token = 99",
                "UPDATE OR REPLACE token_counter SET last_token = x'01'")) {
            refused(recursive, "fence", replace);
        }
        assertThat(raw.text("SELECT typeof(last_token) || ' ' || last_token FROM token_counter"))
                .isEqualTo("integer 1");
        raw.run(recursive, "UPDATE token_counter SET last_token = last_token + 1"); // a mint's step (token 2, unused)
        assertThat(engine.leases().acquire("b", Duration.ofMinutes(1)).token()).isEqualTo(3);
        assertThat(engine.summary().lastToken()).isEqualTo(3);
    }

    @Test
    void theLeaseChangeCounterHoldsWholeNumbersToo() {
        refused(false, "holds a whole number", "UPDATE lease_change_counter SET last_change = 'x'");
    }

    @Test
    void anEpochsLastTokenIsItsLastAndTheNextGrantSaysToBump() throws Exception {
        windCounterTo(FencingTokens.EPOCH_SPAN - 1); // as 2^40 - 1 grants would
        refused(false, "has issued every token of its epoch", "UPDATE token_counter SET last_token = last_token + 1");
        assertThatThrownBy(() -> engine.leases().acquire("b", Duration.ofMinutes(1)))
                .isInstanceOfSatisfying(
                        StorageException.class,
                        x -> assertThat(x.problem()).isEqualTo(StorageException.Problem.EPOCH_EXHAUSTED))
                .hasMessageContaining("sovereign fence bump");
        assertThat(engine.bumpFence(-1).epoch()).isEqualTo(1);
        assertThat(engine.leases().acquire("b", Duration.ofMinutes(1)).token())
                .isEqualTo(FencingTokens.firstTokenOf(1));
    }

    /**
     * Moves the counter as no statement may (the guards are dropped and put back, as they were, in the one
     * transaction: the way LedgerInvariantsTest fakes corruption).
     */
    private void windCounterTo(long value) throws SQLException {
        List<String[]> guards = new ArrayList<>();
        for (String row :
                raw.rows("SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'token_counter'")) {
            String name = row.substring(0, row.indexOf('|'));
            guards.add(new String[] {name, row.substring(name.length() + 1, row.length() - 1)});
        }
        List<String> statements = new ArrayList<>(List.of("BEGIN IMMEDIATE"));
        guards.forEach(g -> statements.add("DROP TRIGGER " + g[0]));
        statements.add("UPDATE token_counter SET last_token = " + value);
        guards.forEach(g -> statements.add(g[1]));
        statements.add("COMMIT");
        raw.run(false, statements.toArray(String[]::new));
    }
}
