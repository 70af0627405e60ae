package dev.sovereign.engine.internal.sqlite;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.base.EngineConfig;
import dev.sovereign.engine.base.StorageException;
import dev.sovereign.engine.journal.EventKind;
import dev.sovereign.engine.journal.FenceEvent;
import dev.sovereign.engine.lease.Lease;
import dev.sovereign.engine.testing.RawSql;
import dev.sovereign.engine.testing.SettableClock;
import dev.sovereign.engine.testing.TempDatabase;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Version 6 (issue 16, decision 0507): actor_leases WITHOUT ROWID, the journal without AUTOINCREMENT and
 * without its time index. A ledger a version-5 Sovereign wrote (by the real scripts 1-5, with leases, a
 * release's tombstone, journal rows, an assignment with a running attempt and a message) is rebuilt on
 * open: every row is kept as it was, seqs, tokens and change markers continue from where they were, and
 * every guard still refuses what it refused.
 */
class SchemaVersionSixMigrationTest {
    @RegisterExtension
    final TempDatabase temp = new TempDatabase();

    private final SettableClock clock = new SettableClock();
    private static final String OLD = "proc_old-host-1";
    /** A guard's refusal: a fence guard's, or the change-marker guard's (version 2). */
    private static final String GUARD = "(?s).*(fence: |a lease write must carry a new lease change marker).*";

    /** A version-5 file with history, written as a version-5 engine would (each write passes the guards). */
    private void createVersionFiveFile() throws Exception {
        long now = clock.millis();
        long until = now + 60_000;
        OlderSchema.create(temp.file(), 5, s -> {
            s.execute("INSERT INTO ledger_mark (id, lab_sandbox, marked_at) VALUES (1, 0, " + now + ")");
            for (int v = 4; v <= 5; v++) {
                s.execute("INSERT INTO schema_migrations (schema_version, sovereign_version, sovereign_commit,"
                        + " migrated_at) VALUES (" + v + ", '0.0.5', 'older', " + now + ")");
            }
            s.execute(
                    "INSERT INTO processes (identity, pid, host, kind, started_at, heartbeat_at, heartbeat_interval_ms)"
                            + " VALUES ('" + OLD + "', 42, 'old-host', 'worker', " + now + ", " + now + ", 1000)");
            for (String actor : List.of("held", "released", "mailbox", "free")) {
                s.execute("INSERT INTO actors (id, created_at) VALUES ('" + actor + "', " + now + ")");
            }
            // two grants (token 1, 2; change markers 1, 2), then the release of the second
            for (String actor : List.of("held", "released")) {
                s.execute("UPDATE token_counter SET last_token = last_token + 1 WHERE id = 1");
                s.execute("UPDATE lease_change_counter SET last_change = last_change + 1 WHERE id = 1");
                s.execute(
                        "INSERT INTO actor_leases (actor_id, process_identity, token, ttl_ms, acquired_at, renewed_at,"
                                + " expires_at, renewals, renewal_journalled_at, change_seq) SELECT '" + actor + "', '"
                                + OLD
                                + "', t.last_token, 60000, " + now + ", " + now + ", " + until + ", 0, " + now
                                + ", c.last_change FROM token_counter t, lease_change_counter c");
                journal(s, now, "LEASE_ACQUIRED", "actor", actor, "(SELECT last_token FROM token_counter)");
            }
            s.execute("UPDATE lease_change_counter SET last_change = last_change + 1 WHERE id = 1");
            s.execute("UPDATE actor_leases SET change_seq = 3, presented_token = 2, presented_change = 3"
                    + " WHERE actor_id = 'released'");
            s.execute("DELETE FROM actor_leases WHERE actor_id = 'released'"); // tombstone, change marker 4
            journal(s, now, "LEASE_RELEASED", "actor", "released", "2");
            // an assignment running under the held lease (attempt token 3)
            s.execute("INSERT INTO assignments (id, actor_id, provider_spec, workspace_policy, state, created_at,"
                    + " updated_at) VALUES ('asg_1', 'held', 'scripted', 'temporary', 'CREATED', " + now + ", " + now
                    + ")");
            journal(s, now, "ASSIGNMENT_CREATED", "assignment", "asg_1", "NULL");
            s.execute("UPDATE token_counter SET last_token = last_token + 1 WHERE id = 1");
            s.execute(
                    "INSERT INTO execution_attempts (id, assignment_id, actor_id, process_identity, token, lease_token,"
                            + " state, ttl_ms, started_at, renewed_at, expires_at) VALUES ('att_1', 'asg_1', 'held', '"
                            + OLD
                            + "', 3, 1, 'ACTIVE', 30000, " + now + ", " + now + ", " + (now + 30_000) + ")");
            s.execute("UPDATE assignments SET state = 'RUNNING', current_attempt = 'att_1', updated_at = " + now
                    + " WHERE id = 'asg_1'");
            journal(s, now, "ATTEMPT_STARTED", "attempt", "att_1", "3");
            s.execute("INSERT INTO messages (id, sender, recipient, subject, body, state, created_at, updated_at)"
                    + " VALUES ('msg_1', 'ops', 'mailbox', 'job', 'body', 'NEW', " + now + ", " + now + ")");
            journal(s, now, "MESSAGE_SENT", "message", "msg_1", "NULL");
            s.execute("INSERT INTO fence_events (at, kind, resource_type, resource_id, actor_id, process_identity,"
                    + " presented_token, current_token, category) VALUES (" + now + ", 'REJECTED', 'actor', 'held',"
                    + " 'held', '" + OLD + "', 7, 1, 'actor_lease_lost')");
            s.execute("INSERT INTO supervisor_ticks (at, process_identity, expired_leases, stale_processes,"
                    + " swept_claims, recovered, failures, report) VALUES (" + now + ", '" + OLD
                    + "', 0, 0, 0, 0, 0, 'ok')");
        });
    }

    private static void journal(Statement s, long now, String kind, String type, String id, String token)
            throws SQLException {
        s.execute("INSERT INTO fence_events (at, kind, resource_type, resource_id, actor_id, process_identity, token)"
                + " VALUES (" + now + ", '" + kind + "', '" + type + "', '" + id + "', "
                + (type.equals("actor") ? "'" + id + "'" : "'held'") + ", '" + OLD + "', " + token + ")");
    }

    /** Every row of every table but the schema's own bookkeeping, table by table, in key order. */
    private static Map<String, List<String>> everyRow(RawSql raw) throws SQLException {
        Map<String, List<String>> out = new LinkedHashMap<>();
        for (String table : raw.rows("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite%'"
                + " AND name <> 'schema_migrations' ORDER BY name")) {
            String name = table.substring(0, table.length() - 1);
            // version 7 adds actor_leases.attached (0 for every row written before it): the columns of version 6
            String columns = name.equals("actor_leases")
                    ? "actor_id, process_identity, token, ttl_ms, acquired_at,"
                            + " renewed_at, expires_at, renewals, renewal_journalled_at, change_seq, presented_token,"
                            + " presented_change"
                    : name.equals("token_counter")
                            ? "id, last_token" // version 17 adds last_used: the counter, used
                            : "*";
            out.put(name, raw.rows("SELECT " + columns + " FROM " + name + " ORDER BY 1"));
        }
        return out;
    }

    @Test
    void aVersionFiveLedgerIsRebuiltWithEveryRowAndItsCountersContinue() throws Exception {
        createVersionFiveFile();
        RawSql raw = new RawSql(temp.file());
        assertThat(raw.scalar("PRAGMA user_version")).isEqualTo(5);
        Map<String, List<String>> before = everyRow(raw);
        assertThat(before.get("fence_events")).hasSize(7);
        assertThat(raw.scalar("SELECT seq FROM sqlite_sequence WHERE name = 'fence_events'"))
                .isEqualTo(7);
        assertThat(raw.text("SELECT sql FROM sqlite_master WHERE name = 'actor_leases'"))
                .doesNotContain("WITHOUT ROWID");

        try (Engine e = temp.open(temp.config(clock).build())) {
            assertThat(raw.scalar("PRAGMA user_version")).isEqualTo(Migrator.LATEST);
            // every row kept, column for column (the engine's open wrote nothing else yet)
            Map<String, List<String>> after = everyRow(raw);
            after.get("processes").removeIf(row -> !row.startsWith(OLD));
            after.put("fence_events", after.get("fence_events").subList(0, 7)); // the open may journal its start
            after.keySet().retainAll(before.keySet()); // tables a later version adds are not this rebuild's concern
            assertThat(after).isEqualTo(before);
            assertThat(raw.rows("SELECT schema_version, sovereign_commit FROM schema_migrations ORDER BY 1"))
                    .hasSize(Migrator.LATEST - 3)
                    .startsWith("4|older|", "5|older|");
            // the new shape
            assertThat(raw.text("SELECT sql FROM sqlite_master WHERE name = 'actor_leases'"))
                    .contains("WITHOUT ROWID");
            assertThat(raw.text("SELECT sql FROM sqlite_master WHERE name = 'fence_events'"))
                    .doesNotContainIgnoringCase("AUTOINCREMENT");
            assertThat(raw.scalar("SELECT count(*) FROM sqlite_sequence WHERE name = 'fence_events'"))
                    .isZero();
            assertThat(raw.rows("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name IN"
                            + " ('actor_leases', 'fence_events') ORDER BY name"))
                    .containsExactly(
                            "actor_leases_by_change|",
                            "actor_leases_by_expiry|",
                            "actor_leases_by_process|",
                            "fence_events_by_actor|",
                            "fence_events_by_resource|",
                            "fence_events_rejections|");
            try (Connection c = raw.connect(false)) {
                assertThat(Migrator.guardProblems(c)).isEmpty();
            }

            // tokens continue after 3, change markers after 4, seqs after 7
            Lease free = e.leases().acquire("free", Duration.ofMinutes(1));
            assertThat(free.token()).isEqualTo(4);
            assertThat(raw.scalar("SELECT change_seq FROM actor_leases WHERE actor_id = 'free'"))
                    .isEqualTo(5);
            List<FenceEvent> tail = e.journal().since(7, 10);
            assertThat(tail).isNotEmpty();
            assertThat(tail.get(0).seq()).isEqualTo(8);
            // a takeover of the old process's expired lease: an UPDATE of the rebuilt table through every guard
            clock.advance(Duration.ofMinutes(2));
            Lease taken = e.leases().acquire("held", Duration.ofMinutes(1));
            assertThat(taken.token()).isEqualTo(5);
            assertThat(e.leases().release("held", taken.token())).isTrue();
            assertThat(raw.scalar("SELECT change_seq FROM lease_tombstones WHERE actor_id = 'held'"))
                    .isEqualTo(8);
            List<FenceEvent> all = e.journal().since(0, 100);
            assertThat(all).extracting(FenceEvent::seq).isSorted().doesNotHaveDuplicates();
            assertThat(all).extracting(FenceEvent::kind).contains(EventKind.LEASE_TAKEN_OVER, EventKind.LEASE_RELEASED);
        }
    }

    @Test
    void theRebuiltTablesStillRefuseEveryHandWrittenAttack() throws Exception {
        createVersionFiveFile();
        temp.open(temp.config(clock).build()).close();
        RawSql raw = new RawSql(temp.file());
        long last = raw.scalar("SELECT max(seq) FROM fence_events");
        for (boolean recursive : new boolean[] {false, true}) {
            // the journal: no delete (so max(seq) + 1 never repeats a seq), no replace, no rewrite, no back-dating
            // (since version 15 a row may be pruned, only by retention's rules; the newest never: decision 0018)
            assertThatThrownBy(() -> raw.run(recursive, "DELETE FROM fence_events WHERE seq = " + last))
                    .hasMessageContaining("fence:");
            assertThatThrownBy(() -> raw.run(
                            recursive,
                            "INSERT OR REPLACE INTO fence_events (seq, at, kind,"
                                    + " resource_type, resource_id) VALUES (" + last
                                    + ", 0, 'LEASE_ACQUIRED', 'actor', 'held')"))
                    .hasMessageContaining("append-only");
            assertThatThrownBy(() -> raw.run(recursive, "UPDATE fence_events SET detail = 'x' WHERE seq = 1"))
                    .hasMessageContaining("append-only");
            assertThatThrownBy(() -> raw.run(
                            recursive,
                            "DELETE FROM fence_events WHERE seq = 3",
                            "INSERT INTO fence_events (seq, at, kind, resource_type, resource_id) VALUES (3, 0, 'LEASE_ACQUIRED',"
                                    + " 'actor', 'held')"))
                    .hasMessageContaining("fence:");
            // the lease row: no bare delete, no replace, no renewal without the token, no takeover of a live lease
            assertThatThrownBy(() -> raw.run(recursive, "DELETE FROM actor_leases WHERE actor_id = 'held'"))
                    .hasMessageContaining("fence: a lease is released only");
            assertThatThrownBy(() -> raw.run(
                            recursive,
                            "REPLACE INTO actor_leases (actor_id, process_identity, token,"
                                    + " ttl_ms, acquired_at, renewed_at, expires_at, renewal_journalled_at, change_seq) VALUES ('held',"
                                    + " 'proc_x', 99, 1, 0, 0, 1, 0, 99)"))
                    .hasMessageMatching(GUARD);
            assertThatThrownBy(
                            () -> raw.run(
                                    recursive,
                                    "UPDATE lease_change_counter SET last_change = last_change + 1",
                                    "UPDATE actor_leases SET expires_at = expires_at + 1000000, renewed_at = renewed_at + 1000000,"
                                            + " change_seq = (SELECT last_change FROM lease_change_counter) WHERE actor_id = 'held'"))
                    .hasMessageContaining("fence: a lease is renewed or taken over only");
            assertThatThrownBy(() -> raw.run(
                            recursive,
                            "UPDATE actor_leases SET expires_at = expires_at + 1" + " WHERE actor_id = 'held'"))
                    .hasMessageMatching(GUARD);
            // guards on other tables still read the rebuilt lease table: no attempt without the current lease
            assertThatThrownBy(() -> raw.run(
                            recursive,
                            "UPDATE token_counter SET last_token = last_token + 1",
                            "INSERT INTO execution_attempts (id, assignment_id, actor_id, process_identity, token, lease_token,"
                                    + " state, ttl_ms, started_at, renewed_at, expires_at) VALUES ('att_x', 'asg_1', 'held', 'proc_x',"
                                    + " (SELECT last_token FROM token_counter), 1, 'ACTIVE', 1, 0, 0, 1)"))
                    .hasMessageContaining("fence: an attempt starts ACTIVE");
        }
        assertThat(raw.scalar("SELECT max(seq) FROM fence_events")).isEqualTo(last);
        assertThat(raw.scalar("SELECT count(*) FROM actor_leases WHERE actor_id = 'held'"))
                .isEqualTo(1);
    }

    /**
     * Without AUTOINCREMENT a hand-inserted row with a huge seq would wind the journal. Since version 14 the insert
     * itself is refused (NextSeqTest); a file wound before it is still named by the open.
     */
    @Test
    void aJournalWoundByAHandInsertedSeqIsRefusedAtOpen() throws Exception {
        temp.open(temp.config(clock).build()).close();
        RawSql raw = new RawSql(temp.file());
        assertThatThrownBy(() -> raw.run(
                        false,
                        "INSERT INTO fence_events (seq, at, kind, resource_type, resource_id) VALUES"
                                + " (9223372036854775807, 0, 'LEASE_ACQUIRED', 'actor', 'x')"))
                .hasMessageContaining("a journal row takes the next seq");

        Path wound = temp.dir().resolve("wound.db");
        OlderSchema.create(
                wound,
                13,
                st -> st.execute("INSERT INTO fence_events (seq, at, kind, resource_type,"
                        + " resource_id) VALUES (9223372036854775807, 0, 'LEASE_ACQUIRED', 'actor', 'x')"));
        assertThatThrownBy(() -> Engine.open(EngineConfig.forDatabase(wound)
                                .clock(clock)
                                .heartbeat(false)
                                .build())
                        .close())
                .isInstanceOfSatisfying(StorageException.class, ex -> {
                    assertThat(ex.problem()).isEqualTo(StorageException.Problem.CORRUPT);
                    assertThat(ex.getMessage()).contains("the key sequence of fence_events was wound");
                });
    }
}
