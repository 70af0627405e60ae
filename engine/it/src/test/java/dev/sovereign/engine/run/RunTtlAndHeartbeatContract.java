package dev.sovereign.engine.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.base.Refusal;
import dev.sovereign.engine.base.RefusalCategory;
import dev.sovereign.engine.testing.Contract;
import dev.sovereign.engine.testing.SettableClock;
import dev.sovereign.engine.testing.TempDatabase;
import dev.sovereign.engine.testing.TestBackend;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A run's TTL and the heartbeat that renews it (issue 32, item 9; decision 0114): only the beat renews a run's
 * attempt, so a TTL under two of the engine's heartbeat intervals would let a healthy run expire between beats,
 * be recovered as {@code worker_lost} and have its commit refused. It is refused before anything is written, in
 * the rule book's words; an engine without a background heartbeat (its caller beats) takes any TTL the rule book
 * allows, and a TTL beyond 365 days is refused with the same limit as a lease's.
 */
@Contract
abstract class RunTtlAndHeartbeatContract {
    /** The backend this class's ledgers are on: each backend's module has its subclass (decision 0015). */
    protected abstract TestBackend backend();

    @RegisterExtension
    final TempDatabase temp = new TempDatabase(this::backend);

    private final SettableClock clock = new SettableClock();

    private Engine beatingEvery(Duration interval) {
        return temp.open(
                temp.config(clock).heartbeat(true).heartbeatInterval(interval).build());
    }

    @Test
    void aRunTtlShorterThanTwoHeartbeatsIsRefusedBeforeAnythingIsWritten() {
        Engine engine = beatingEvery(Duration.ofSeconds(1));
        engine.actors().add("operator");
        Assignment x = engine.runs().assign("operator", "scripted:ms=0");
        long events = engine.journal().lastSeq();

        assertThatThrownBy(() -> engine.runs().runAssignment(x.id(), Duration.ofMillis(1_500)))
                .isInstanceOfSatisfying(Refusal.class, r -> {
                    assertThat(r.category()).isEqualTo(RefusalCategory.INVALID_ARGUMENT);
                    assertThat(r.getMessage())
                            .isEqualTo(
                                    "A run TTL must be at least 2 heartbeat intervals (this"
                                            + " engine beats every 1s), got 1500ms: the attempt would expire between two beats and a"
                                            + " healthy run would be recovered as worker_lost; give a longer TTL or beat more often.");
                });

        assertThat(engine.journal().lastSeq()).as("nothing journalled").isEqualTo(events);
        assertThat(engine.leases().current("operator")).as("no lease taken").isEmpty();
        assertThat(engine.runs().get(x.id()))
                .get()
                .extracting(Assignment::state)
                .isEqualTo(AssignmentState.CREATED);
        assertThat(engine.runs().attempts(x.id())).isEmpty();
    }

    @Test
    void aRunTtlOfTwoHeartbeatsRuns() {
        Engine engine = beatingEvery(Duration.ofSeconds(1));
        engine.actors().add("operator");
        Assignment x = engine.runs().assign("operator", "scripted:ms=0");

        RunResult r = engine.runs().runAssignment(x.id(), Duration.ofSeconds(2));

        assertThat(r.assignment().state()).isEqualTo(AssignmentState.COMPLETED);
    }

    @Test
    void anEngineWithoutABackgroundHeartbeatTakesAShortTtlAndEveryEngineRefusesOneBeyondAYear() {
        Engine engine = temp.open(clock); // heartbeat off: its caller beats by hand
        engine.actors().add("operator");
        Assignment x = engine.runs().assign("operator", "scripted:ms=0");

        assertThatThrownBy(() -> engine.runs().runAssignment(x.id(), Duration.ofHours(8761)))
                .isInstanceOfSatisfying(
                        Refusal.class,
                        r -> assertThat(r.getMessage()).isEqualTo("A run TTL must be at most 365 days, got 8761h."));
        assertThat(engine.runs()
                        .runAssignment(x.id(), Duration.ofMillis(5))
                        .assignment()
                        .state())
                .isEqualTo(AssignmentState.COMPLETED);
    }
}
