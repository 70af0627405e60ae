package dev.sovereign.engine.internal.sqlite;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.testing.RawSql;
import dev.sovereign.engine.testing.SettableClock;
import dev.sovereign.engine.testing.TempDatabase;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.function.LongFunction;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Schema version 14 (found by the standing attack suite): a raw writer appended a supervisor tick with seq
 * 2^63 - 1, and every later tick failed (SQLITE_FULL: AUTOINCREMENT cannot pass the largest key); the journal and the
 * history would take a random key after such a row, which "only appended" refuses, so every journalled write would
 * fail for good. Now a row of the three append-only tables takes the next seq only, by every statement form, with
 * {@code recursive_triggers} off and on, and the engine's own next row still follows; the ticks have no
 * AUTOINCREMENT, so winding {@code sqlite_sequence} changes nothing. A version 13 file migrates with its rows.
 */
class NextSeqTest {
    @RegisterExtension
    final TempDatabase temp = new TempDatabase();

    private final SettableClock clock = new SettableClock();

    private static final List<Long> FAR = List.of(Long.MAX_VALUE, Long.MAX_VALUE - 1, 1L << 40);

    private static String tick(long seq) {
        return "INSERT INTO supervisor_ticks (seq, at, process_identity, expired_leases, stale_processes, swept_claims,"
                + " recovered, failures, report) VALUES (" + seq + ", 1, 'proc_by_hand', 0, 0, 0, 0, 0, '{}')";
    }

    private static String event(long seq) {
        return "INSERT INTO fence_events (seq, at, kind, resource_type, resource_id, category, detail) VALUES (" + seq
                + ", 1, 'REJECTED', 'actor', 'w', 'actor_lease_held', 'by hand')";
    }

    private static String history(long seq) {
        return "INSERT INTO ledger_history (seq, at, kind, epoch, from_token, to_token, detail) VALUES (" + seq
                + ", 1, 'backwards', 0, 0, 0, 'by hand')";
    }

    /** Every way to put a row at {@code seq}: plain, OR REPLACE, OR IGNORE, and an upsert. */
    private static List<String> forms(String insert) {
        return List.of(
                insert,
                insert.replaceFirst("INSERT INTO", "INSERT OR REPLACE INTO"),
                insert.replaceFirst("INSERT INTO", "INSERT OR IGNORE INTO"),
                insert + " ON CONFLICT (seq) DO UPDATE SET at = excluded.at");
    }

    /**
     * Every form of a row far ahead is refused. {@code rule}: the words of the refusal; the history's other guards
     * (a row states the counter as it is) may refuse such a hand-made row first.
     */
    private void everyFarSeqRefused(RawSql raw, String table, LongFunction<String> row, String rule)
            throws SQLException {
        for (boolean recursive : new boolean[] {false, true}) {
            long next = raw.scalar("SELECT coalesce(max(seq), 0) + 1 FROM " + table);
            for (long seq : List.of(next + 1, next + 1000, FAR.get(0), FAR.get(1), FAR.get(2))) {
                for (String statement : forms(row.apply(seq))) {
                    assertThatThrownBy(() -> raw.run(recursive, statement))
                            .as("%s (recursive_triggers %s)", statement, recursive)
                            .hasMessageContaining(rule);
                }
            }
            assertThat(raw.scalar("SELECT max(seq) FROM " + table)).isEqualTo(next - 1);
        }
    }

    @Test
    void aRowFarAheadIsRefusedInEveryTableAndTheEnginesNextRowStillFollows() throws Exception {
        Engine a = temp.open(clock);
        a.actors().add("w");
        a.leases().acquire("w", Duration.ofMinutes(1));
        a.supervisor().tick();
        a.bumpFence(-1);
        RawSql raw = new RawSql(temp.file());

        everyFarSeqRefused(raw, "supervisor_ticks", NextSeqTest::tick, "takes the next seq");
        everyFarSeqRefused(raw, "fence_events", NextSeqTest::event, "takes the next seq");
        everyFarSeqRefused(raw, "ledger_history", NextSeqTest::history, "fence: a history row");

        // the counter AUTOINCREMENT kept is gone: winding it to the end changes nothing
        raw.run(false, "UPDATE sqlite_sequence SET seq = 9223372036854775807 WHERE name = 'supervisor_ticks'");
        long ticks = raw.scalar("SELECT max(seq) FROM supervisor_ticks");
        long events = raw.scalar("SELECT max(seq) FROM fence_events");
        long history = raw.scalar("SELECT max(seq) FROM ledger_history");
        clock.advance(Duration.ofMinutes(2));
        a.supervisor().tick();
        a.leases().acquire("w", Duration.ofMinutes(1));
        a.bumpFence(-1);
        assertThat(raw.scalar("SELECT max(seq) FROM supervisor_ticks")).isEqualTo(ticks + 1);
        assertThat(raw.scalar("SELECT max(seq) FROM fence_events")).isGreaterThan(events);
        assertThat(raw.scalar("SELECT max(seq) FROM ledger_history")).isEqualTo(history + 1);
        // the next seq by hand is still a row like any other (the journal's other guards permitting)
        raw.run(false, tick(ticks + 2));
    }

    @Test
    void aVersionThirteenFileMigratesItsTicksWithoutAutoincrementAndKeepsThem() throws Exception {
        long now = clock.millis();
        OlderSchema.create(temp.file(), 13, s -> {
            s.execute("INSERT INTO ledger_mark (id, lab_sandbox, marked_at) VALUES (1, 0, " + now + ")");
            for (int i = 0; i < 3; i++) {
                s.execute(tick(i + 1).replace(", 1, 'proc_by_hand'", ", " + now + ", 'proc_by_hand'"));
            }
        });
        RawSql raw = new RawSql(temp.file());
        try (Engine a = temp.open(clock)) {
            assertThat(raw.scalar("PRAGMA user_version")).isEqualTo(Migrator.LATEST);
            assertThat(raw.rows("SELECT seq, process_identity FROM supervisor_ticks ORDER BY seq"))
                    .containsExactly("1|proc_by_hand|", "2|proc_by_hand|", "3|proc_by_hand|");
            assertThat(raw.text("SELECT sql FROM sqlite_master WHERE name = 'supervisor_ticks'"))
                    .doesNotContain("AUTOINCREMENT");
            try (Connection c = raw.connect(false)) {
                assertThat(Migrator.guardProblems(c)).isEmpty();
            }
            a.supervisor().tick();
            assertThat(raw.scalar("SELECT max(seq) FROM supervisor_ticks")).isEqualTo(4);
            assertThatThrownBy(() -> raw.run(false, tick(Long.MAX_VALUE))).hasMessageContaining("takes the next seq");
        }
    }
}
