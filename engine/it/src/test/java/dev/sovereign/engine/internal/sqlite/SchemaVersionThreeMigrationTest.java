package dev.sovereign.engine.internal.sqlite;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.provider.Outcome;
import dev.sovereign.engine.run.Assignment;
import dev.sovereign.engine.run.AssignmentState;
import dev.sovereign.engine.run.Attempt;
import dev.sovereign.engine.testing.Port;
import dev.sovereign.engine.testing.SettableClock;
import dev.sovereign.engine.testing.TempDatabase;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A version-2 ledger with work in every state — a live lease, a RUNNING assignment under it, an ended
 * one with its receipt, a claimed and a finished message — migrates to version 3 keeping every row,
 * is marked "not a sandbox", is guarded from then on, and its work in flight still finishes through
 * the fenced paths.
 */
class SchemaVersionThreeMigrationTest {
    @RegisterExtension
    final TempDatabase temp = new TempDatabase();

    private final SettableClock clock = new SettableClock();

    private Connection plain() throws SQLException {
        return DriverManager.getConnection("jdbc:sqlite:" + temp.file());
    }

    private void createVersionTwoFileWithWorkInFlight() throws Exception {
        long now = clock.millis();
        OlderSchema.create(temp.file(), 2, s -> {
            s.execute("INSERT INTO processes (identity, pid, host, kind, label, started_at, heartbeat_at,"
                    + " heartbeat_interval_ms) VALUES ('proc_old', 1, 'h', 'worker', 'old worker', " + now + ", "
                    + now + ", 1000)");
            s.execute("INSERT INTO actors (id, created_at) VALUES ('operator', " + now + ")");
            s.execute("UPDATE token_counter SET last_token = 4 WHERE id = 1");
            s.execute("UPDATE lease_change_counter SET last_change = 1 WHERE id = 1");
            s.execute("INSERT INTO actor_leases (actor_id, process_identity, token, ttl_ms, acquired_at, renewed_at,"
                    + " expires_at, renewals, renewal_journalled_at, change_seq) VALUES ('operator', 'proc_old', 1,"
                    + " 60000, " + now + ", " + now + ", " + (now + 60_000) + ", 0, " + now + ", 1)");
            // a RUNNING assignment under attempt token 2, and a COMPLETED one ended by attempt token 3
            s.execute("INSERT INTO assignments (id, actor_id, provider_spec, workspace_policy, state, created_at,"
                    + " updated_at) VALUES ('asg_running', 'operator', 'scripted', 'temporary', 'CREATED', " + now
                    + ", " + now + "), ('asg_done', 'operator', 'scripted', 'temporary', 'CREATED', " + now + ", "
                    + now + ")");
            s.execute(
                    "INSERT INTO execution_attempts (id, assignment_id, actor_id, process_identity, token, lease_token,"
                            + " state, ttl_ms, started_at, renewed_at, expires_at) VALUES ('att_running', 'asg_running',"
                            + " 'operator', 'proc_old', 2, 1, 'ACTIVE', 60000, " + now + ", " + now + ", "
                            + (now + 60_000)
                            + "), ('att_done', 'asg_done', 'operator', 'proc_old', 3, 1, 'DONE', 60000, " + now + ", "
                            + now
                            + ", " + (now + 60_000) + ")");
            s.execute(
                    "UPDATE assignments SET state = 'RUNNING', current_attempt = 'att_running' WHERE id = 'asg_running'");
            s.execute("UPDATE assignments SET state = 'COMPLETED' WHERE id = 'asg_done'");
            s.execute("INSERT INTO receipts (assignment_id, attempt_id, attempt_token, process_identity, status,"
                    + " outcome_known, created_at) VALUES ('asg_done', 'att_done', 3, 'proc_old', 'completed', 1, "
                    + now + ")");
            s.execute("INSERT INTO messages (id, sender, recipient, subject, state, claim_actor, claim_process,"
                    + " claim_token, claim_expires_at, created_at, updated_at) VALUES ('msg_claimed', 'x', 'operator',"
                    + " 's', 'CLAIMED', 'operator', 'proc_old', 4, " + (now + 60_000) + ", " + now + ", " + now + ")");
            s.execute("INSERT INTO messages (id, sender, recipient, subject, state, created_at, updated_at)"
                    + " VALUES ('msg_done', 'x', 'operator', 's', 'DONE', " + now + ", " + now + ")");
            s.execute("INSERT INTO fence_events (at, kind, resource_type, resource_id) VALUES (" + now
                    + ", 'LEASE_ACQUIRED', 'actor', 'operator')");
        });
    }

    private List<String> everyRow() throws SQLException {
        List<String> out = new ArrayList<>();
        for (String table : List.of(
                "processes",
                "actors",
                "actor_leases",
                "assignments",
                "execution_attempts",
                "receipts",
                "messages",
                "fence_events",
                "token_counter")) {
            try (Connection c = plain();
                    Statement s = c.createStatement();
                    ResultSet rs = s.executeQuery("SELECT * FROM " + table + " ORDER BY 1")) {
                int n = rs.getMetaData().getColumnCount();
                while (rs.next()) {
                    StringBuilder row = new StringBuilder(table).append(':');
                    for (int i = 1; i <= n; i++) {
                        String name = rs.getMetaData().getColumnName(i);
                        if (List.of(
                                        "presented_token",
                                        "presented_change",
                                        "ended_by_attempt",
                                        "ended_via",
                                        "finished_with",
                                        "attached",
                                        "released_at",
                                        "released_note",
                                        "last_used")
                                .contains(name)) {
                            continue; // the columns later versions add
                        }
                        row.append(rs.getString(i)).append('|');
                    }
                    out.add(row.toString());
                }
            }
        }
        return out;
    }

    private long scalar(String sql) throws SQLException {
        try (Connection c = plain();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(sql)) {
            return rs.getLong(1);
        }
    }

    @Test
    void aVersionTwoLedgerMigratesKeepingEveryRowAndIsGuardedFromThenOn() throws Exception {
        createVersionTwoFileWithWorkInFlight();
        List<String> before = everyRow();

        Engine oldWorker = temp.open(temp.config(clock).actAs("proc_old").build());

        assertThat(scalar("PRAGMA user_version")).isEqualTo(Migrator.LATEST);
        assertThat(everyRow())
                .containsAll(
                        before.stream().filter(r -> !r.startsWith("processes:")).toList());
        assertThat(scalar("SELECT lab_sandbox FROM ledger_mark")).isZero();
        assertThat(oldWorker.isLabSandbox()).isFalse();
        try (Connection c = plain()) {
            assertThat(Migrator.missingGuards(c)).isEmpty();
        }

        // guarded from now on: what version 2 let through is refused
        try (Connection c = plain();
                Statement s = c.createStatement()) {
            assertThatThrownBy(() -> s.execute("REPLACE INTO token_counter (id, last_token) VALUES (1, 0)"))
                    .hasMessageContaining("fence:");
            assertThatThrownBy(() -> s.execute("UPDATE assignments SET state = 'FAILED' WHERE id = 'asg_done'"))
                    .hasMessageContaining("fence:");
            assertThatThrownBy(() -> s.execute("REPLACE INTO messages (id, sender, recipient, subject, state,"
                            + " created_at, updated_at) VALUES ('msg_done', 'x', 'operator', 's', 'NEW', 0, 0)"))
                    .hasMessageContaining("fence:");
            assertThatThrownBy(() -> s.execute("UPDATE assignments SET state = 'COMPLETED', current_attempt = NULL"
                            + " WHERE id = 'asg_running'"))
                    .hasMessageContaining("fence:");
        }

        // the work in flight still finishes, through the fenced paths, by the process that holds it
        Attempt running = oldWorker.runs().attempts("asg_running").get(0);
        Port.runs(oldWorker).finish(running, Outcome.COMPLETED, null, true, "after upgrade");
        assertThat(oldWorker.runs().get("asg_running"))
                .get()
                .extracting(Assignment::state)
                .isEqualTo(AssignmentState.COMPLETED);
        assertThat(oldWorker.runs().receipt("asg_running")).isPresent();
        oldWorker.mailbox().complete("msg_claimed", 4);
        assertThat(oldWorker.mailbox().find("msg_claimed").orElseThrow().state().name())
                .isEqualTo("DONE");
        assertThat(oldWorker.leases().renew("operator", 1).token()).isEqualTo(1); // a version-2 row renews
    }
}
