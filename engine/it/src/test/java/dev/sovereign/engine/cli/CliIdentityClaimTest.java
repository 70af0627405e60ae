package dev.sovereign.engine.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sovereign.engine.Engine;
import dev.sovereign.engine.Ledgers;
import dev.sovereign.engine.admin.AdminReader;
import dev.sovereign.engine.admin.ProcessRow;
import dev.sovereign.engine.testing.SettableClock;
import dev.sovereign.engine.testing.TempDatabase;
import java.time.Duration;
import java.time.ZoneOffset;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Identity claims (issue 19, decision 0802): {@code --process ID} lets a CLI call act as a live worker's
 * fencing identity. It still may, but the journal records who did — the OS user, the host, the pid and
 * the command — and the console's process list shows it.
 */
class CliIdentityClaimTest {
    @RegisterExtension
    final TempDatabase temp = new TempDatabase();

    private final SettableClock clock = new SettableClock();
    private CliHarness cli;

    @BeforeEach
    void setUp() {
        cli = new CliHarness(temp.dir(), clock);
        cli.ok("init");
        cli.ok("actor", "add", "operator");
    }

    private List<JsonNode> claims() {
        return cli.ok("events", "--json").json().stream()
                .filter(e -> "identity_claimed".equals(e.path("category").asText(null)))
                .toList();
    }

    @Test
    void actingAsALiveWorkersIdentityIsJournalledWithTheOsUserAndHost() {
        String user = System.getProperty("user.name");
        try (Engine w = temp.open(temp.config(clock)
                .processKind("worker")
                .processLabel("operator worker")
                .build())) {
            String worker = w.processIdentity();
            w.leases().acquire("operator", Duration.ofMinutes(1));

            cli.ok("--process", worker, "lease", "list"); // reads only: nothing to journal
            assertThat(claims()).isEmpty();
            cli.ok("--process", worker, "lease", "renew", "operator", "--token", "1");

            List<JsonNode> events = cli.ok("events", "--json").json();
            assertThat(claims()).singleElement().satisfies(e -> {
                assertThat(e.get("kind").asText()).isEqualTo("PROCESS_STARTED");
                assertThat(e.get("resource_type").asText()).isEqualTo("process");
                assertThat(e.get("resource_id").asText()).isEqualTo(worker);
                assertThat(e.get("process_identity").asText()).isEqualTo(worker);
                assertThat(e.get("detail").asText())
                        .startsWith("OS user " + user + " on host ")
                        .contains("pid " + ProcessHandle.current().pid())
                        .contains("lease renew")
                        .contains("the identity of worker 'operator worker'")
                        .contains("not authentication");
            });
            JsonNode renewed = events.stream()
                    .filter(e -> e.get("kind").asText().equals("LEASE_RENEWED"))
                    .reduce((a, b) -> b)
                    .orElseThrow();
            assertThat(renewed.get("process_identity").asText()).isEqualTo(worker);
            assertThat(renewed.get("detail").asText()).contains("by --process: OS user " + user + " on host ");

            try (AdminReader reader = Ledgers.openReader(temp.file(), clock, ZoneOffset.UTC)) {
                ProcessRow row = reader.snapshot().processes().stream()
                        .filter(p -> p.process().identity().equals(worker))
                        .findFirst()
                        .orElseThrow();
                assertThat(row.lastClaimedBy())
                        .startsWith("OS user " + user + " on host ")
                        .contains("lease renew")
                        .doesNotContain("acted as");
            }
        }
    }

    @Test
    void aRefusedClaimingCallIsAttributedOnItsRejectionAndAddsNoOtherEvent() {
        try (Engine w = temp.open(temp.config(clock).processKind("worker").build())) {
            w.leases().acquire("operator", Duration.ofMinutes(1));

            CliHarness.Result stale =
                    cli.run("--process", w.processIdentity(), "lease", "renew", "operator", "--token", "7");

            assertThat(stale.exit()).isEqualTo(ExitCode.REFUSED);
            assertThat(claims()).isEmpty();
            JsonNode rejected = cli.ok("rejections", "--json").onlyJson();
            assertThat(rejected.get("detail").asText()).contains("by --process: OS user ");
        }
    }

    @Test
    void aCallWithoutProcessOrWithANewIdentityClaimsNothing() {
        cli.ok("lease", "list");
        cli.ok("assign", "operator", "--provider", "scripted:ms=0");
        cli.ok("--process", "proc_fresh", "lease", "acquire", "operator"); // registers proc_fresh: nobody else's

        assertThat(claims()).isEmpty();
        assertThat(cli.ok("events", "--json").json())
                .allSatisfy(e -> assertThat(e.path("detail").asText("")).doesNotContain("by --process"));
        try (AdminReader reader = Ledgers.openReader(temp.file(), clock, ZoneOffset.UTC)) {
            assertThat(reader.snapshot().processes())
                    .allSatisfy(p -> assertThat(p.lastClaimedBy()).isEmpty());
        }
    }
}
