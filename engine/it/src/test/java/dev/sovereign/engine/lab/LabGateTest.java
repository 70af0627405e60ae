package dev.sovereign.engine.lab;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sovereign.engine.testing.TempDatabase;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Decision 0117: a gate holds a scenario before each step the story can wait for, and only there. The gate here
 * holds every step it is asked about for three polls, and checks at each that the step has not begun: the run
 * still reaches the same verdict from the journal.
 */
class LabGateTest {
    @RegisterExtension
    final TempDatabase temp = new TempDatabase();

    @Test
    void theGateHoldsTheLabsOwnNextActionsAndNothingThatMustFollowInRealTime() throws Exception {
        List<LabStep> heard = new CopyOnWriteArrayList<>();
        Map<Integer, Integer> asked = new ConcurrentHashMap<>();
        List<String> begunWhileHeld = new CopyOnWriteArrayList<>();
        LabRun run = Lab.prepare(
                "gc-pause", new LabOptions(Lab.createSandbox(temp.dir().resolve("lab")), false), heard::add);
        run.gate(next -> {
            if (next.status() != LabStep.Status.PENDING
                    || heard.stream()
                            .anyMatch(s -> s.index() == next.index() && s.status() == LabStep.Status.RUNNING)) {
                begunWhileHeld.add(next.title());
            }
            return asked.merge(next.index(), 1, Integer::sum) > 3;
        });
        LabVerdict v = run.run();

        assertThat(v.verdict()).as(v.headline()).isEqualTo(Verdict.HELD);
        // starting A and B, giving the job, B's result and the check: held; freezing A mid-job, the takeover on
        // A's real TTL, the re-run and waking A while B still runs: never held
        assertThat(asked.keySet()).containsExactlyInAnyOrder(0, 1, 2, 7, 8);
        assertThat(asked.values()).allMatch(n -> n == 4);
        assertThat(begunWhileHeld).isEmpty();
        for (int i = 0; i < v.steps().size(); i++) {
            assertThat(run.holdsBefore(i)).isEqualTo(asked.containsKey(i));
            assertThat(Lab.holds(run.info()).get(i)).isEqualTo(asked.containsKey(i));
        }
    }
}
