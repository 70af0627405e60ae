package dev.sovereign.engine.attack;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.lease.Lease;
import dev.sovereign.engine.run.Assignment;
import dev.sovereign.engine.run.AssignmentState;
import dev.sovereign.engine.testing.Port;
import dev.sovereign.engine.testing.RawSql;
import dev.sovereign.engine.testing.SettableClock;
import dev.sovereign.engine.testing.TempDatabase;
import java.sql.SQLException;
import java.time.Duration;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Issue 32 item 5 on SQLite: retry and acknowledge are safe by the guards, not by who may write (decision 0902 says
 * so of PostgreSQL's roles; on a file every writer may write). Until then a plain connection could insert a "retry"
 * of a COMPLETED or RUNNING assignment, replace the one retry an assignment may have ({@code INSERT OR REPLACE} on
 * the unique {@code retry_of} deletes the earlier retry when no DELETE trigger fires), and stamp
 * {@code acknowledged_at} on a RUNNING, CREATED or COMPLETED assignment, or before its failure. Now a retry is of a
 * FAILED or BLOCKED assignment, with its actor, provider and workspace policy, at most once; an acknowledgement is of
 * a FAILED or BLOCKED one, once, an integer time not before it ended. The engine journals both
 * ({@code ASSIGNMENT_RETRIED}, {@code ASSIGNMENT_ACKNOWLEDGED}, OperatorActionsContract); one made by hand within these
 * rules is visible in the assignments, not in the journal (docs/security.md).
 */
class RetryAndAcknowledgeGuardsTest {
    @RegisterExtension
    final TempDatabase temp = new TempDatabase();

    private final SettableClock clock = new SettableClock();
    private RawSql raw;
    private Engine a;
    private Assignment failed;
    private Assignment completed;
    private Assignment created;
    private Assignment running;

    @BeforeEach
    void open() {
        raw = new RawSql(temp.file());
        a = temp.open(clock);
        a.actors().add("operator");
        failed = a.runs().assign("operator", "scripted:outcome=failed");
        a.runs().runAssignment(failed.id());
        completed = a.runs().assign("operator", "scripted");
        a.runs().runAssignment(completed.id());
        created = a.runs().assign("operator", "scripted");
        running = a.runs().assign("operator", "scripted");
        Lease lease = a.leases().acquire("operator", Duration.ofMinutes(5));
        Port.runs(a).startAttempt(running.id(), lease.token(), 60_000);
        clock.advance(Duration.ofSeconds(10));
    }

    private void refused(boolean recursive, String... statements) {
        assertThatThrownBy(() -> raw.run(recursive, statements))
                .as(String.join("; ", statements))
                .isInstanceOf(SQLException.class)
                .hasMessageContaining("fence: ");
    }

    private String retryOf(String verb, String id, Assignment of, String provider) {
        return verb + " assignments (id, actor_id, provider_spec, workspace_policy, state, retry_of, created_at,"
                + " updated_at) VALUES ('" + id + "', 'operator', '" + provider + "', '" + of.workspacePolicy()
                + "', 'CREATED', '" + of.id() + "', " + clock.millis() + ", " + clock.millis() + ")";
    }

    private long assignments() throws SQLException {
        return raw.scalar("SELECT count(*) FROM assignments");
    }

    @Test
    void aRetryIsOnlyOfAFailedOrBlockedAssignmentWithItsOwnJob() throws Exception {
        long before = assignments();
        for (Assignment x : new Assignment[] {completed, created, running}) {
            refused(false, retryOf("INSERT INTO", "asg_forged", x, x.providerSpec()));
        }
        refused(false, retryOf("INSERT INTO", "asg_forged", failed, "command:rm -rf /"));
        refused(
                false,
                "INSERT INTO assignments (id, actor_id, provider_spec, workspace_policy, state, retry_of,"
                        + " created_at, updated_at) VALUES ('asg_forged', 'operator', '" + failed.providerSpec()
                        + "', '"
                        + failed.workspacePolicy() + "', 'CREATED', 'asg_nothere', 0, 0)");
        assertThat(assignments()).isEqualTo(before);
    }

    @Test
    void anAssignmentIsRetriedOnceAndItsRetryIsNeverReplaced() throws Exception {
        Assignment retry = a.runs().retry(failed.id());
        for (boolean recursive : new boolean[] {false, true}) {
            for (String verb : new String[] {"INSERT INTO", "INSERT OR REPLACE INTO", "REPLACE INTO"}) {
                refused(recursive, retryOf(verb, "asg_second", failed, failed.providerSpec()));
            }
        }
        assertThat(raw.rows("SELECT id FROM assignments WHERE retry_of = '" + failed.id() + "'"))
                .containsExactly(retry.id() + "|");
    }

    @Test
    void onlyAFailedOrBlockedAssignmentIsAcknowledgedOnceAndNotBeforeItEnded() throws Exception {
        for (Assignment x : new Assignment[] {completed, created, running}) {
            refused(
                    false,
                    "UPDATE assignments SET acknowledged_at = " + clock.millis() + " WHERE id = '" + x.id() + "'");
        }
        String failedOne = " WHERE id = '" + failed.id() + "'";
        long ended = raw.scalar("SELECT updated_at FROM assignments" + failedOne);
        for (String when : new String[] {Long.toString(ended - 1), "'abc'", ended + ".5"}) {
            refused(true, "UPDATE assignments SET acknowledged_at = " + when + failedOne);
        }
        refused(
                false,
                "INSERT INTO assignments (id, actor_id, provider_spec, workspace_policy, state, acknowledged_at,"
                        + " created_at, updated_at) VALUES ('asg_acked', 'operator', 'scripted', 'temporary', 'CREATED', 1, 0, 0)");
        // a recovery that ends the assignment cannot carry an acknowledgement either (nobody acknowledged a failure
        // yet)
        assertThat(raw.scalar("SELECT count(*) FROM assignments WHERE acknowledged_at IS NOT NULL"))
                .isZero();

        raw.run(false, "UPDATE assignments SET acknowledged_at = " + ended + failedOne);
        refused(false, "UPDATE assignments SET acknowledged_at = " + (ended + 1) + failedOne);
        refused(false, "UPDATE assignments SET acknowledged_at = NULL" + failedOne);
        assertThat(a.runs().acknowledge(failed.id()).acknowledgedAt()).isEqualTo(ended);
    }

    /** The engine's acknowledgement after a clock step back is stamped when the assignment ended, not refused. */
    @Test
    void anAcknowledgementAfterAClockStepBackIsStampedAtTheEnd() throws Exception {
        long ended = raw.scalar("SELECT updated_at FROM assignments WHERE id = '" + failed.id() + "'");
        clock.advance(Duration.ofMinutes(-5));

        Assignment acked = a.runs().acknowledge(failed.id());

        assertThat(acked.acknowledgedAt()).isEqualTo(ended);
        assertThat(acked.state()).isEqualTo(AssignmentState.FAILED);
    }
}
