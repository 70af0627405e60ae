package dev.sovereign.console.feature;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sovereign.console.feature.rejections.RefusalIncident;
import dev.sovereign.console.feature.rejections.RejectionsViewModel;
import dev.sovereign.console.shell.ShellViewModel;
import dev.sovereign.console.testing.ConsoleFixture;
import dev.sovereign.engine.Engine;
import dev.sovereign.engine.admin.JournalEntry;
import dev.sovereign.engine.base.Refusal;
import dev.sovereign.engine.lease.Lease;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Issue 31, item 12 (decision 0320): a late write is refused three times — its lease renewal, its attempt's
 * heartbeat, its terminal write — and the Rejections page shows that as ONE incident with its three parts, while
 * the refusals are still counted as three. Two different late writes stay two incidents, and the same stale holder
 * refused again later opens another.
 */
class OneIncidentPerLateWriteTest {
    @RegisterExtension
    final ConsoleFixture fx = new ConsoleFixture();

    /** {@code holder} runs a gated run on {@code actor}, pauses past its TTL, {@code taker} takes over, it wakes. */
    private Lease lateWrite(Engine holder, Engine taker, String actor, String gate) {
        holder.actors().add(actor);
        Lease lease = holder.leases().acquire(actor, Duration.ofSeconds(10));
        fx.gatedRun(holder, actor, Duration.ofSeconds(10), gate);
        fx.clock.advance(Duration.ofSeconds(12)); // the holder is paused: no beat
        taker.leases().acquire(actor, Duration.ofSeconds(10));
        holder.heartbeatNow(); // wakes: its lease renewal and its attempt's heartbeat are refused
        fx.openGate(gate); // its provider returns: the terminal write is refused
        return lease;
    }

    @Test
    void threeRefusalsOfOneLateWriteAreOneIncidentAndTwoLateWritesStayTwo() {
        Engine a = fx.engine("worker A");
        Engine b = fx.engine("worker B");
        Engine c = fx.engine("worker C");
        Engine d = fx.engine("worker D");
        Lease first = lateWrite(a, b, "operator", "first");
        lateWrite(c, d, "reviewer", "second");
        // worker A presents its stale token once more, later: another refused write, another incident
        try {
            a.leases().renew("operator", first.token());
        } catch (Refusal expected) {
            // journalled
        }

        ShellViewModel shell = fx.attachedShell();
        RejectionsViewModel vm = shell.rejections();
        assertThat(vm.totalProperty().get()).as("every refusal still counted").isEqualTo(7);
        List<JournalEntry> rows = vm.rows();
        assertThat(rows).hasSize(3);
        assertThat(vm.incidentCountProperty().get()).isEqualTo(3);
        assertThat(vm.summaryProperty().get()).isEqualTo("3 incidents, 7 refused writes");

        RefusalIncident again = vm.incident(rows.get(0));
        RefusalIncident second = vm.incident(rows.get(1));
        RefusalIncident firstIncident = vm.incident(rows.get(2));
        assertThat(again.size()).isEqualTo(1);
        assertThat(again.lead().process().label()).isEqualTo("worker A");
        for (RefusalIncident i : List.of(firstIncident, second)) {
            assertThat(i.size()).isEqualTo(3);
            assertThat(i.partWords()).isEqualTo("lease renewal, attempt heartbeat, terminal write");
            assertThat(i.parts().stream().map(JournalEntry::process).distinct()).hasSize(1);
        }
        assertThat(firstIncident.lead().actor()).isEqualTo("operator");
        assertThat(second.lead().actor()).isEqualTo("reviewer");

        assertThat(vm.rowText(rows.get(1)))
                .startsWith(vm.sentence(second.lead()))
                .endsWith("1 incident, 3 refusals: lease renewal, attempt heartbeat, terminal write.");
        vm.selectedProperty().set(rows.get(2));
        assertThat(vm.detailProperty().get())
                .contains("One late write of run "
                        + firstIncident.parts().get(2).resourceId() + ", 3 refusals (1 incident)")
                .contains("1. Lease renewal, journal seq "
                        + firstIncident.parts().get(0).seq())
                .contains("2. Attempt heartbeat, journal seq "
                        + firstIncident.parts().get(1).seq())
                .contains("3. Terminal write, journal seq "
                        + firstIncident.parts().get(2).seq())
                .contains("The terminal write of assignment");
        // the navigation counts refusals, as the database does: unchanged by the grouping
        assertThat(shell.search().searchSummaryProperty().get()).isEmpty();
    }
}
