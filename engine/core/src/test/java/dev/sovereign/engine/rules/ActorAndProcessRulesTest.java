package dev.sovereign.engine.rules;

import static dev.sovereign.engine.base.RefusalCategory.ACTOR_EXISTS;
import static dev.sovereign.engine.base.RefusalCategory.PROCESS_STOPPED;
import static dev.sovereign.engine.base.RefusalCategory.UNKNOWN_ACTOR;
import static dev.sovereign.engine.base.RefusalCategory.UNKNOWN_PROCESS;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sovereign.engine.base.Refusal;
import dev.sovereign.engine.process.ProcessInfo;
import dev.sovereign.engine.testing.SettableClock;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The actor registry's and the process registry's refusals. */
class ActorAndProcessRulesTest {
    final long now = new SettableClock().millis();

    ProcessInfo process(Long stoppedAt) {
        return new ProcessInfo("proc_w1", 4242L, "host-a", "worker", "night shift", now, now, 1_000, stoppedAt);
    }

    @Test
    void an_unknown_actor_that_could_exist_suggests_adding_it() {
        Refusal r = ActorRules.unknown("a7");
        assertThat(r.category()).isEqualTo(UNKNOWN_ACTOR);
        assertThat(r.category().isBadInput()).isTrue();
        assertThat(r.getMessage()).isEqualTo("There is no actor named 'a7'; add it with 'sovereign actor add a7'.");
        assertThat(r.resourceType()).isEqualTo("actor");
        assertThat(r.resourceId()).isEqualTo("a7");
    }

    @Test
    void an_unknown_actor_that_could_never_exist_suggests_no_add_and_shows_the_id_safely() {
        for (String impossible : new String[] {"", "x".repeat(201), "a\nb", null}) {
            Refusal r = ActorRules.unknown(impossible);
            assertThat(r.category()).isEqualTo(UNKNOWN_ACTOR);
            assertThat(r.getMessage())
                    .contains(", and there cannot be: an actor id is 1 to 200 printable characters;"
                            + " list the actors with 'sovereign actor list'.")
                    .doesNotContain("actor add");
        }
        assertThat(ActorRules.unknown("a\nb").getMessage()).startsWith("There is no actor named 'a?b', and there");
        assertThat(ActorRules.unknown(null).getMessage()).startsWith("There is no actor named nothing, and there");
    }

    @Test
    void an_existing_actor_is_not_added_twice() {
        Refusal r = ActorRules.exists("a1");
        assertThat(r.category()).isEqualTo(ACTOR_EXISTS);
        assertThat(r.category().isBadInput()).isFalse();
        assertThat(r.getMessage()).isEqualTo("Actor a1 already exists.");
    }

    @Test
    void a_live_process_may_be_stopped() {
        assertThat(ProcessRules.whyNotStoppable("proc_w1", Optional.of(process(null))))
                .isEmpty();
    }

    @Test
    void an_unknown_process_is_not_stopped() {
        Refusal r = ProcessRules.whyNotStoppable("proc_x", Optional.empty()).orElseThrow();
        assertThat(r.category()).isEqualTo(UNKNOWN_PROCESS);
        assertThat(r.category().isBadInput()).isTrue();
        assertThat(r.getMessage())
                .isEqualTo("There is no process proc_x in the registry; 'sovereign status' lists" + " the processes.");
        assertThat(r.resourceType()).isEqualTo("process");
        assertThat(r.resourceId()).isEqualTo("proc_x");
    }

    @Test
    void a_stopped_process_is_not_stopped_again() {
        Refusal r = ProcessRules.whyNotStoppable("proc_w1", Optional.of(process(now)))
                .orElseThrow();
        assertThat(r.category()).isEqualTo(PROCESS_STOPPED);
        assertThat(r.category().isBadInput()).isFalse();
        assertThat(r.getMessage())
                .isEqualTo("Process proc_w1 (worker 'night shift') is already stopped; nothing was" + " changed.");
    }

    @Test
    void an_operator_stop_says_the_leases_were_not_released() {
        assertThat(ProcessRules.stoppedByOperator(process(null)))
                .isEqualTo("marked stopped by an operator: worker"
                        + " 'night shift' (pid 4242 on host-a); its leases were not released: they expire on their own, and"
                        + " the fence keeps a stale holder out");
    }
}
