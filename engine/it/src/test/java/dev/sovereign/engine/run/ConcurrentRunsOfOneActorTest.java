package dev.sovereign.engine.run;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.journal.EventKind;
import dev.sovereign.engine.journal.FenceEvent;
import dev.sovereign.engine.testing.SettableClock;
import dev.sovereign.engine.testing.TempDatabase;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CyclicBarrier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Review of decision 0508: runs of ONE engine on the same actor, racing, share the lease the first one
 * took; only the last one to finish releases it, in its terminal write, and no run is refused or warned.
 */
class ConcurrentRunsOfOneActorTest {
    @RegisterExtension
    final TempDatabase temp = new TempDatabase();

    @Test
    void racingRunsOfOneEngineOnOneActorShareTheLeaseAndTheLastOneReleasesIt() throws Exception {
        Engine a = temp.open(new SettableClock());
        a.actors().add("operator");
        for (int round = 0; round < 5; round++) {
            long seq = a.journal().lastSeq();
            int n = 4;
            List<Assignment> xs = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                xs.add(a.runs().assign("operator", "scripted:ms=" + (20 * i) + ",outcome=completed"));
            }
            CyclicBarrier go = new CyclicBarrier(n);
            List<CompletableFuture<RunResult>> runs = new ArrayList<>();
            for (Assignment x : xs) {
                runs.add(CompletableFuture.supplyAsync(() -> {
                    try {
                        go.await();
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                    return a.runs().runAssignment(x.id(), Duration.ofSeconds(30));
                }));
            }
            for (CompletableFuture<RunResult> r : runs) {
                RunResult result = r.get();
                assertThat(result.assignment().state()).isEqualTo(AssignmentState.COMPLETED);
                assertThat(result.warnings()).isEmpty();
            }
            List<EventKind> kinds =
                    a.journal().since(seq, 1000).stream().map(FenceEvent::kind).toList();
            assertThat(kinds).doesNotContain(EventKind.REJECTED);
            assertThat(kinds.get(kinds.size() - 1)).isEqualTo(EventKind.LEASE_RELEASED);
            assertThat(kinds.stream().filter(k -> k == EventKind.LEASE_RELEASED).count())
                    .isEqualTo(kinds.stream()
                            .filter(k -> k == EventKind.LEASE_ACQUIRED)
                            .count());
            assertThat(a.leases().current("operator")).isEmpty();
            assertThat(a.leases().held()).isEmpty();
        }
    }
}
