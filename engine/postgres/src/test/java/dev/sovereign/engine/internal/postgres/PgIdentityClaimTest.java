package dev.sovereign.engine.internal.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.base.EngineConfig;
import dev.sovereign.engine.journal.EventKind;
import dev.sovereign.engine.journal.FenceEvent;
import dev.sovereign.engine.testing.PgTestServer;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Acting as an identity another process registered (decision 0802) on PostgreSQL: the claim is journalled
 * once, with the first change the claimant makes, and every event it writes names the claimant; the
 * identity's own registration is left as it was found.
 */
class PgIdentityClaimTest {
    @Test
    void aClaimedIdentityIsJournalledOnceAndNamesTheClaimantOnEveryEvent() {
        String url = PgTestServer.freshDatabase().url();
        try (Engine owner = Engine.open(EngineConfig.forDatabase(url)
                .heartbeat(false)
                .processLabel("owner")
                .build())) {
            owner.actors().add("a");
            try (Engine claimant = Engine.open(EngineConfig.forDatabase(url)
                    .heartbeat(false)
                    .actAs(owner.processIdentity())
                    .processLabel("sovereign lease acquire")
                    .build())) {
                assertThat(claimant.processIdentity()).isEqualTo(owner.processIdentity());
                claimant.leases().acquire("a", Duration.ofSeconds(30));
                claimant.leases()
                        .renew("a", claimant.leases().current("a").orElseThrow().token());
            }
            List<FenceEvent> events = owner.journal().since(0, 100);
            assertThat(events.stream().filter(e -> "identity_claimed".equals(e.category())))
                    .singleElement()
                    .satisfies(e -> {
                        assertThat(e.kind()).isEqualTo(EventKind.PROCESS_STARTED);
                        assertThat(e.detail())
                                .contains("acted as " + owner.processIdentity())
                                .contains("the identity of engine 'owner'")
                                .doesNotContain("by --process");
                    });
            assertThat(events.stream()
                            .filter(e -> e.kind() == EventKind.LEASE_ACQUIRED || e.kind() == EventKind.LEASE_RENEWED))
                    .hasSize(2)
                    .allSatisfy(e -> assertThat(e.detail()).contains("by --process: OS user"));
            assertThat(owner.processes().find(owner.processIdentity()))
                    .hasValueSatisfying(p -> assertThat(p.label()).isEqualTo("owner"));
        }
    }
}
