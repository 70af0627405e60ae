package dev.sovereign.engine.internal.sqlite;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.base.EngineConfig;
import dev.sovereign.engine.journal.EventKind;
import dev.sovereign.engine.testing.RawSql;
import dev.sovereign.engine.testing.SettableClock;
import dev.sovereign.engine.testing.TempDatabase;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The migration that guards every input of the fence (issues 26 and 32; decisions 0011, 0012), on a ledger the
 * version before it wrote: a lease renewed last (the state in which that version let a bare DELETE through), its
 * holder's session, a claimed message and an assignment. Every row is kept; from then on the lease is deleted only
 * by its release, and the migrated file's schema is the same, object for object and word for word, as a new file's.
 */
class GuardedInputsMigrationTest {
    @RegisterExtension
    final TempDatabase temp = new TempDatabase();

    private final SettableClock clock = new SettableClock();
    private static final String OLD = "proc_old-host-1";
    /** The version before the one this test is about (V0008): later versions add their own tables and columns. */
    private static final int BEFORE = Migrator.MIGRATIONS.indexOf("V0008__every_input_of_the_fence_guarded.sql");

    private void createOlderFile() throws Exception {
        long now = clock.millis();
        OlderSchema.create(temp.file(), BEFORE, s -> {
            s.execute("INSERT INTO ledger_mark (id, lab_sandbox, marked_at) VALUES (1, 0, " + now + ")");
            for (int v = Migrator.MIGRATION_RECORD_VERSION; v <= BEFORE; v++) {
                s.execute("INSERT INTO schema_migrations (schema_version, sovereign_version, sovereign_commit,"
                        + " migrated_at) VALUES (" + v + ", '0.0.7', 'older', " + now + ")");
            }
            s.execute(
                    "INSERT INTO processes (identity, pid, host, kind, started_at, heartbeat_at, heartbeat_interval_ms)"
                            + " VALUES ('" + OLD + "', 42, 'old-host', 'worker', " + now + ", " + (now + 5_000)
                            + ", 1000)");
            s.execute("INSERT INTO actors (id, created_at) VALUES ('w', " + now + ")");
            // granted (token 1, change 1), then renewed presenting its token (change 2): the last lease write
            s.execute("UPDATE token_counter SET last_token = 1 WHERE id = 1");
            s.execute("UPDATE lease_change_counter SET last_change = 1 WHERE id = 1");
            s.execute("INSERT INTO actor_leases (actor_id, process_identity, token, ttl_ms, acquired_at, renewed_at,"
                    + " expires_at, renewals, renewal_journalled_at, change_seq, attached) VALUES ('w', '" + OLD
                    + "', 1, 600000, " + now + ", " + now + ", " + (now + 600_000) + ", 0, " + now + ", 1, 1)");
            s.execute("UPDATE lease_change_counter SET last_change = 2 WHERE id = 1");
            s.execute("UPDATE actor_leases SET renewed_at = " + (now + 1_000) + ", expires_at = " + (now + 601_000)
                    + ", renewals = 1, change_seq = 2, presented_token = 1, presented_change = 2 WHERE actor_id = 'w'");
            s.execute(
                    "INSERT INTO fence_events (at, kind, resource_type, resource_id, actor_id, process_identity, token)"
                            + " VALUES (" + now + ", 'LEASE_ACQUIRED', 'actor', 'w', 'w', '" + OLD + "', 1)");
            // a message claimed under that lease (token 2) and an assignment waiting to run
            s.execute("INSERT INTO messages (id, sender, recipient, subject, state, created_at, updated_at)"
                    + " VALUES ('msg_1', 'ops', 'w', 'job', 'NEW', " + now + ", " + now + ")");
            s.execute("UPDATE token_counter SET last_token = 2 WHERE id = 1");
            s.execute("UPDATE messages SET state = 'CLAIMED', claim_actor = 'w', claim_process = '" + OLD + "',"
                    + " claim_token = 2, claim_expires_at = " + (now + 3_600_000) + ", updated_at = " + now
                    + " WHERE id = 'msg_1'");
            s.execute("INSERT INTO assignments (id, actor_id, provider_spec, workspace_policy, state, created_at,"
                    + " updated_at) VALUES ('asg_1', 'w', 'scripted', 'temporary', 'CREATED', " + now + ", " + now
                    + ")");
        });
    }

    /** Every row of every table but the migration record, without the columns the migration adds. */
    private static Map<String, List<String>> everyRow(RawSql raw) throws SQLException {
        Map<String, List<String>> out = new LinkedHashMap<>();
        for (String table : raw.rows("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite%'"
                + " AND name <> 'schema_migrations' ORDER BY name")) {
            String name = table.substring(0, table.length() - 1);
            String columns = name.equals("actor_leases")
                    ? "actor_id, process_identity, token, ttl_ms, acquired_at,"
                            + " renewed_at, expires_at, renewals, renewal_journalled_at, change_seq, presented_token,"
                            + " presented_change, attached"
                    : name.equals("token_counter")
                            ? "id, last_token" // version 17 adds last_used: the counter, used
                            : "*";
            out.put(name, raw.rows("SELECT " + columns + " FROM " + name + " ORDER BY 1"));
        }
        return out;
    }

    private static List<String> schemaOf(Path file) throws SQLException {
        return new RawSql(file).rows("SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY type, name");
    }

    @Test
    void anOlderLedgerKeepsEveryRowAndIsGuardedLikeANewOne() throws Exception {
        createOlderFile();
        RawSql raw = new RawSql(temp.file());
        Map<String, List<String>> before = everyRow(raw);

        try (Engine e = Engine.openExisting(EngineConfig.forDatabase(temp.file())
                .clock(clock)
                .heartbeat(false)
                .registerLazily(true)
                .build())) {
            assertThat(raw.scalar("PRAGMA user_version")).isEqualTo(Migrator.LATEST);
            Map<String, List<String>> after = everyRow(raw);
            after.keySet().retainAll(before.keySet()); // tables a later version adds are not this migration's concern
            assertThat(after).isEqualTo(before);
            try (Connection c = raw.connect(false)) {
                assertThat(Migrator.guardProblems(c)).isEmpty();
            }
            // what the older version let through after a renewal is refused now, and the renewal still works
            for (boolean recursive : new boolean[] {false, true}) {
                assertThatThrownBy(() -> raw.run(recursive, "DELETE FROM actor_leases WHERE actor_id = 'w'"))
                        .hasMessageContaining("fence: a lease is released only");
                assertThatThrownBy(() -> raw.run(recursive, "UPDATE processes SET heartbeat_at = 0"))
                        .hasMessageContaining("fence: ");
                assertThatThrownBy(() -> raw.run(recursive, "UPDATE messages SET claim_expires_at = 0"))
                        .hasMessageContaining("fence: ");
            }
            assertThat(raw.scalar("SELECT count(*) FROM actor_leases")).isEqualTo(1);
            // the older holder's lease is taken over once it and its session expired, then released: journalled once
            clock.advance(Duration.ofMinutes(11));
            long token = e.leases().acquire("w", Duration.ofMinutes(1)).token();
            assertThat(token).isEqualTo(3);
            assertThat(e.leases().release("w", token)).isTrue();
            assertThat(e.journal().since(0, 100))
                    .filteredOn(ev -> ev.kind() == EventKind.LEASE_RELEASED)
                    .singleElement()
                    .satisfies(ev -> assertThat(ev.token()).isEqualTo(token));
        }

        Path fresh = temp.dir().resolve("fresh.db");
        Engine.open(EngineConfig.forDatabase(fresh)
                        .clock(clock)
                        .heartbeat(false)
                        .build())
                .close();
        assertThat(schemaOf(temp.file())).isEqualTo(schemaOf(fresh));
    }
}
