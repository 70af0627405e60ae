package dev.sovereign.engine.admin;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.Ledgers;
import dev.sovereign.engine.lease.Lease;
import dev.sovereign.engine.run.Assignment;
import dev.sovereign.engine.testing.Port;
import dev.sovereign.engine.testing.SettableClock;
import dev.sovereign.engine.testing.TempDatabase;
import java.time.Duration;
import java.time.ZoneOffset;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Issue 31, item 18: one rule for "needs an operator" — a run that ended FAILED or BLOCKED, worker-lost or not,
 * that nobody retried or acknowledged — and the ledger's own count agrees with it row for row, so the console's
 * alerts, its Runs filter and its navigation badge, which all read one or the other, say one number.
 */
class NeedsOperatorTest {
    @RegisterExtension
    final TempDatabase temp = new TempDatabase();

    private final SettableClock clock = new SettableClock();

    @Test
    void theRuleOverEveryStateAndBothAnswers() {
        for (String state : new String[] {"CREATED", "RUNNING", "COMPLETED"}) {
            assertThat(AssignmentRow.needsOperator(state, null, null))
                    .as(state + " needs nobody")
                    .isFalse();
        }
        for (String state : new String[] {"FAILED", "BLOCKED"}) {
            assertThat(AssignmentRow.needsOperator(state, null, null))
                    .as(state + ", neither retried nor acknowledged")
                    .isTrue();
            assertThat(AssignmentRow.needsOperator(state, 1_000L, null))
                    .as(state + ", acknowledged")
                    .isFalse();
            assertThat(AssignmentRow.needsOperator(state, null, "asg_retry"))
                    .as(state + ", retried")
                    .isFalse();
        }
    }

    @Test
    void theLedgersCountIsTheRowsRuleForEveryKindOfRun() {
        Engine e = temp.open(temp.config(clock).build());
        e.actors().add("operator");
        Map<String, String> runs = new java.util.LinkedHashMap<>();
        runs.put("completed", ran(e, "scripted:ms=0,outcome=completed"));
        runs.put("failed", ran(e, "scripted:ms=0,outcome=failed"));
        runs.put("blocked", ran(e, "scripted:ms=0,outcome=blocked"));
        runs.put("failed, acknowledged", ran(e, "scripted:ms=0,outcome=failed"));
        e.runs().acknowledge(runs.get("failed, acknowledged"));
        runs.put("blocked, acknowledged", ran(e, "scripted:ms=0,outcome=blocked"));
        e.runs().acknowledge(runs.get("blocked, acknowledged"));
        runs.put("blocked, retried", ran(e, "scripted:ms=0,outcome=blocked"));
        runs.put(
                "its retry, waiting",
                e.runs().retry(runs.get("blocked, retried")).id());
        runs.put("worker lost", lost(e));
        runs.put("worker lost, retried", lost(e));
        runs.put(
                "its retry too",
                e.runs().retry(runs.get("worker lost, retried")).id());
        runs.put("worker lost, acknowledged", lost(e));
        e.runs().acknowledge(runs.get("worker lost, acknowledged"));

        AdminSnapshot s;
        try (AdminReader reader = Ledgers.openReader(temp.file(), clock, ZoneOffset.UTC)) {
            s = reader.snapshot();
        }

        Set<String> waiting = s.assignments().stream()
                .filter(AssignmentRow::needsOperator)
                .map(AssignmentRow::id)
                .collect(Collectors.toSet());
        assertThat(waiting)
                .as("the runs that need an operator")
                .containsExactlyInAnyOrder(runs.get("failed"), runs.get("blocked"), runs.get("worker lost"));
        assertThat(s.counts().needsOperator())
                .as("the ledger counts the same runs")
                .isEqualTo(waiting.size());
    }

    private String ran(Engine e, String provider) {
        clock.advance(Duration.ofMillis(10));
        Assignment a = e.runs().assign("operator", provider);
        return e.runs()
                .runAssignment(a.id(), Duration.ofSeconds(5))
                .assignment()
                .id();
    }

    /** A run whose worker died: started, never ended, recovered by the supervisor as worker_lost. */
    private String lost(Engine e) {
        Assignment a = e.runs().assign("operator", "scripted:ms=1");
        Lease l = e.leases().acquire("operator", Duration.ofSeconds(5));
        Port.runs(e).startAttempt(a.id(), l.token(), 5_000);
        clock.advance(Duration.ofSeconds(6));
        assertThat(e.supervisor().tick().recovered()).hasSize(1);
        return a.id();
    }
}
