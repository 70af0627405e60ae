package dev.sovereign.engine.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.internal.sqlite.SqliteLedger;
import dev.sovereign.engine.lease.Lease;
import dev.sovereign.engine.provider.Outcome;
import dev.sovereign.engine.run.Assignment;
import dev.sovereign.engine.run.Attempt;
import dev.sovereign.engine.testing.RawSql;
import dev.sovereign.engine.testing.SettableClock;
import dev.sovereign.engine.testing.Sqlite;
import dev.sovereign.engine.testing.TempDatabase;
import java.sql.SQLException;
import java.time.Duration;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Schema version 13 of a file: the standing attack suite's longest run found that a raw writer could set the live
 * attempt's {@code renewed_at} to a text ({@code 'abc'}), which SQLite compares above every number, so the guard that
 * lets an attempt be renewed only forward let it through and the holder's next beat failed on the row. An attempt's
 * token, TTL and times are whole numbers now, on every write that sets one, with {@code recursive_triggers} off and
 * on; a whole-number renewal by the same statement still passes.
 */
class AttemptTimesTypedTest {
    private static final String TYPED = "fence: an attempt's token, TTL and times are whole numbers";

    @RegisterExtension
    final TempDatabase temp = new TempDatabase();

    private final SettableClock clock = new SettableClock();
    private RawSql raw;
    private Engine a;
    private Attempt live;

    @BeforeEach
    void open() {
        raw = new RawSql(temp.file());
        a = temp.open(clock);
        a.actors().add("w");
        Assignment x = a.runs().assign("w", "scripted");
        Lease lease = a.leases().acquire("w", Duration.ofMinutes(1));
        live = SqliteLedger.runStore(Sqlite.database(a), false).startAttempt(x.id(), lease.token(), 60_000);
    }

    private static final String[] TEXTS = {
        "renewed_at = 'abc'",
        "renewed_at = renewed_at + 0.5",
        "expires_at = ''",
        "expires_at = x'00'",
        "ttl_ms = 'a minute'",
        "renewed_at = renewed_at + 1000, expires_at = 'later'"
    };

    private void refusedEveryWay(boolean recursive, String expected) {
        String id = "'" + live.id() + "'";
        for (String set : TEXTS) {
            for (String sql : new String[] {
                "UPDATE execution_attempts SET " + set + " WHERE id = " + id,
                "UPDATE OR REPLACE execution_attempts SET " + set + " WHERE id = " + id,
                "UPDATE OR IGNORE execution_attempts SET " + set + " WHERE id = " + id,
                // an upsert of the same row: its DO UPDATE is an update, its INSERT half the start's guards
                "INSERT INTO execution_attempts SELECT * FROM execution_attempts WHERE id = " + id
                        + " ON CONFLICT (id) DO UPDATE SET " + set.replace("renewed_at +", "excluded.renewed_at +")
            }) {
                assertThatThrownBy(() -> raw.run(recursive, sql))
                        .as(sql)
                        .isInstanceOf(SQLException.class)
                        .hasMessageContaining(expected);
            }
        }
    }

    /** After the start, after a whole-number renewal, and after the attempt ended: every statement form is refused. */
    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void noStatementFormStoresATextAfterAnyPrecedingWrite(boolean recursive) throws SQLException {
        refusedEveryWay(recursive, "fence:");
        raw.run(
                recursive,
                "UPDATE execution_attempts SET renewed_at = renewed_at + 1000, expires_at = expires_at + 1000"
                        + " WHERE id = '" + live.id() + "'");
        refusedEveryWay(recursive, "fence:");
        SqliteLedger.runStore(Sqlite.database(a), false).finish(live, Outcome.COMPLETED, null, true, "done");
        refusedEveryWay(recursive, "fence:");
        assertThat(raw.scalar("SELECT count(*) FROM execution_attempts WHERE typeof(renewed_at) <> 'integer'"
                        + " OR typeof(expires_at) <> 'integer' OR typeof(ttl_ms) <> 'integer'"))
                .isEqualTo(0L);
    }

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void aLiveAttemptsTimesStayWholeNumbers(boolean recursive) throws SQLException {
        for (String set : new String[] {
            "renewed_at = 'abc'",
            "renewed_at = renewed_at + 0.5",
            "expires_at = ''",
            "expires_at = x'00'",
            "ttl_ms = 'a minute'",
            "renewed_at = renewed_at + 1000, expires_at = 'later'"
        }) {
            String sql = "UPDATE execution_attempts SET " + set + " WHERE id = '" + live.id() + "'";
            assertThatThrownBy(() -> raw.run(recursive, sql))
                    .as(sql)
                    .isInstanceOf(SQLException.class)
                    .hasMessageContaining(TYPED);
        }
        // the renewal an engine writes (whole numbers, forward, within the TTL) still passes the same guards
        raw.run(
                recursive,
                "UPDATE execution_attempts SET renewed_at = renewed_at + 1000, expires_at = expires_at + 1000"
                        + " WHERE id = '" + live.id() + "'");
        assertThat(a.runs().attempts(live.assignmentId()).get(0).renewedAt()).isEqualTo(live.renewedAt() + 1000);
    }
}
