package dev.sovereign.engine.internal.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.base.EngineConfig;
import dev.sovereign.engine.base.Refusal;
import dev.sovereign.engine.base.RefusalCategory;
import dev.sovereign.engine.journal.EventKind;
import dev.sovereign.engine.journal.FenceEvent;
import dev.sovereign.engine.process.ProcessInfo;
import dev.sovereign.engine.testing.PgTestServer;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The process registry on PostgreSQL: an engine that registers lazily writes its row only with its first
 * write that commits (docs/decisions/0304), and an operator's {@code stopProcess} (issue 17, item 11).
 */
class PgProcessRegistryTest {
    private static EngineConfig.Builder config(String url) {
        return EngineConfig.forDatabase(url).heartbeat(false);
    }

    @Test
    void aLazyEngineThatOnlyReadsOrIsRefusedRegistersNothingAndAWriteRegistersFirst() {
        String url = PgTestServer.freshDatabase().url();
        try (Engine holder = Engine.open(config(url).processLabel("holder").build())) {
            holder.actors().add("a");
            holder.leases().acquire("a", Duration.ofMinutes(1));
            int before = holder.processes().list().size();

            String reader;
            try (Engine lazy = Engine.open(config(url).registerLazily(true).build())) {
                reader = lazy.processIdentity();
                lazy.actors().list();
                lazy.leases().current("a");
                lazy.journal().since(0, 10);
                lazy.summary();
                assertThatThrownBy(() -> lazy.leases().acquire("a", Duration.ofMinutes(1)))
                        .isInstanceOfSatisfying(
                                Refusal.class,
                                r -> assertThat(r.category()).isEqualTo(RefusalCategory.ACTOR_LEASE_HELD));
            }
            assertThat(holder.processes().list()).hasSize(before);
            assertThat(holder.processes().find(reader)).isEmpty();
            assertThat(holder.journal().since(0, 100))
                    .filteredOn(e -> e.kind() == EventKind.REJECTED)
                    .singleElement()
                    .satisfies(e -> assertThat(e.processIdentity()).isEqualTo(reader));

            String writer;
            try (Engine lazy = Engine.open(
                    config(url).registerLazily(true).processLabel("writer").build())) {
                writer = lazy.processIdentity();
                lazy.actors().add("b");
                assertThat(holder.processes().find(writer)).hasValueSatisfying(p -> {
                    assertThat(p.label()).isEqualTo("writer");
                    assertThat(p.stoppedAt()).isNull();
                });
            }
            assertThat(holder.processes().find(writer))
                    .hasValueSatisfying(p -> assertThat(p.stoppedAt()).isNotNull());
        }
    }

    @Test
    void stopProcessMarksItStoppedJournalsItReleasesNothingAndRefusesTwiceOrUnknown() {
        String url = PgTestServer.freshDatabase().url();
        try (Engine worker = Engine.open(config(url).processLabel("worker 1").build());
                Engine operator =
                        Engine.open(config(url).processLabel("operator").build())) {
            worker.actors().add("a");
            long token = worker.leases().acquire("a", Duration.ofMinutes(1)).token();

            ProcessInfo was = operator.stopProcess(worker.processIdentity());

            assertThat(was.stoppedAt()).isNull();
            assertThat(operator.processes().find(worker.processIdentity()))
                    .hasValueSatisfying(p -> assertThat(p.stoppedAt()).isNotNull());
            assertThat(operator.leases().current("a")).hasValueSatisfying(l -> {
                assertThat(l.process()).isEqualTo(worker.processIdentity());
                assertThat(l.token()).isEqualTo(token);
            });
            List<FenceEvent> stops = operator.journal().since(0, 100).stream()
                    .filter(e -> e.kind() == EventKind.PROCESS_STOPPED)
                    .toList();
            assertThat(stops).singleElement().satisfies(e -> {
                assertThat(e.resourceType()).isEqualTo("process");
                assertThat(e.resourceId()).isEqualTo(worker.processIdentity());
                assertThat(e.processIdentity()).isEqualTo(operator.processIdentity());
                assertThat(e.detail())
                        .startsWith("marked stopped by an operator: engine 'worker 1'")
                        .contains("its leases were not released");
            });

            assertThatThrownBy(() -> operator.stopProcess(worker.processIdentity()))
                    .isInstanceOfSatisfying(
                            Refusal.class, r -> assertThat(r.category()).isEqualTo(RefusalCategory.PROCESS_STOPPED));
            assertThatThrownBy(() -> operator.stopProcess("proc_nobody"))
                    .isInstanceOfSatisfying(
                            Refusal.class, r -> assertThat(r.category()).isEqualTo(RefusalCategory.UNKNOWN_PROCESS));
            assertThat(operator.journal().since(0, 100))
                    .filteredOn(e -> e.kind() == EventKind.PROCESS_STOPPED)
                    .as("a refused stop writes nothing")
                    .hasSize(1);
        }
    }
}
