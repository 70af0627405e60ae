package dev.sovereign.engine.internal.sqlite;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.base.EngineConfig;
import dev.sovereign.engine.base.StorageException;
import dev.sovereign.engine.lease.Lease;
import dev.sovereign.engine.provider.Outcome;
import dev.sovereign.engine.run.Assignment;
import dev.sovereign.engine.run.AssignmentState;
import dev.sovereign.engine.run.Attempt;
import dev.sovereign.engine.run.AttemptState;
import dev.sovereign.engine.testing.Port;
import dev.sovereign.engine.testing.RawSql;
import dev.sovereign.engine.testing.SettableClock;
import dev.sovereign.engine.testing.TempDatabase;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Version 5 (issue 19, decision 0113): an ACTIVE attempt ends or is renewed only the way the engine does
 * it. A version-4 ledger gains the two guards when this Sovereign opens it, in the migration's own
 * transaction with its record row; every later open checks them like every other guard.
 */
class SchemaVersionFiveMigrationTest {
    private static final List<String> NEW_GUARDS =
            List.of("attempts_end_only_through_their_fence", "attempts_renewed_only_under_their_lease");

    @RegisterExtension
    final TempDatabase temp = new TempDatabase();

    private final SettableClock clock = new SettableClock();

    /** A file exactly as a version-4 Sovereign leaves it: migrations 1-4, its mark and record, an actor. */
    private void createVersionFourFileOnly() throws Exception {
        long now = clock.millis();
        OlderSchema.create(temp.file(), 4, s -> {
            s.execute("INSERT INTO ledger_mark (id, lab_sandbox, marked_at) VALUES (1, 0, " + now + ")");
            s.execute("INSERT INTO schema_migrations (schema_version, sovereign_version, sovereign_commit, migrated_at)"
                    + " VALUES (4, '0.0.4', 'older', " + now + ")");
            s.execute("INSERT INTO actors (id, created_at) VALUES ('operator', " + now + ")");
        });
    }

    private long guardsPresent(RawSql raw) throws SQLException {
        return raw.scalar("SELECT count(*) FROM sqlite_master WHERE type = 'trigger' AND name IN ('"
                + String.join("', '", NEW_GUARDS) + "')");
    }

    @Test
    void aVersionFourLedgerGainsTheAttemptGuardsOnOpenAndTheEnginesOwnWritesStillPass() throws Exception {
        createVersionFourFileOnly();
        RawSql raw = new RawSql(temp.file());
        assertThat(raw.scalar("PRAGMA user_version")).isEqualTo(4);
        assertThat(guardsPresent(raw)).isZero();

        try (Engine e = temp.open(temp.config(clock).build())) {
            assertThat(raw.scalar("PRAGMA user_version")).isEqualTo(Migrator.LATEST);
            assertThat(guardsPresent(raw)).isEqualTo(2);
            assertThat(raw.rows("SELECT schema_version, sovereign_version FROM schema_migrations ORDER BY 1"))
                    .hasSize(Migrator.LATEST - 3)
                    .first()
                    .isEqualTo("4|0.0.4|");
            try (Connection c = raw.connect(false)) {
                assertThat(Migrator.guardProblems(c)).isEmpty();
            }

            Lease lease = e.leases().acquire("operator", Duration.ofSeconds(5));
            Assignment x = e.runs().assign("operator", "scripted");
            Attempt t = Port.runs(e).startAttempt(x.id(), lease.token(), 5_000);
            // the hand-typed end of someone else's ACTIVE attempt that version 4 let through
            assertThatThrownBy(() -> raw.run(
                            false,
                            "UPDATE execution_attempts SET state = 'DONE', ended_at = " + clock.millis()
                                    + " WHERE id = '" + t.id() + "'"))
                    .hasMessageContaining("fence: an ACTIVE attempt ends");
            // the engine's own terminal write ends it DONE
            var done = Port.runs(e).finish(t, Outcome.COMPLETED, null, true, "done");
            assertThat(done.assignment().state()).isEqualTo(AssignmentState.COMPLETED);
            assertThat(done.attempt().state()).isEqualTo(AttemptState.DONE);
        }
    }

    @Test
    void everyOpenChecksTheNewGuardsLikeEveryOther() throws Exception {
        temp.open(clock).close();
        RawSql raw = new RawSql(temp.file());
        for (String guard : NEW_GUARDS) {
            String sql = raw.text("SELECT sql FROM sqlite_master WHERE name = '" + guard + "'");
            raw.run(false, "DROP TRIGGER " + guard);
            assertThatThrownBy(() -> Engine.open(EngineConfig.forDatabase(temp.file())
                            .clock(clock)
                            .heartbeat(false)
                            .build()))
                    .isInstanceOfSatisfying(StorageException.class, ex -> {
                        assertThat(ex.problem()).isEqualTo(StorageException.Problem.CORRUPT);
                        assertThat(ex.getMessage())
                                .contains("guard " + guard + " is missing")
                                .contains("no longer enforces the fence")
                                .doesNotContain("\n");
                    });
            // a look-alike that lets everything through is not the guard either
            raw.run(false, sql.replace("WHEN OLD.state = 'ACTIVE'", "WHEN 0 AND OLD.state = 'ACTIVE'"));
            assertThatThrownBy(() -> Engine.open(EngineConfig.forDatabase(temp.file())
                            .clock(clock)
                            .heartbeat(false)
                            .build()))
                    .isInstanceOfSatisfying(
                            StorageException.class,
                            ex -> assertThat(ex.getMessage())
                                    .contains("guard " + guard + " was replaced by different code"));
            raw.run(false, "DROP TRIGGER " + guard, sql);
            temp.open(clock).close();
        }
    }
}
