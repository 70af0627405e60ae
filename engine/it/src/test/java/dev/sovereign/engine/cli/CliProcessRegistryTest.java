package dev.sovereign.engine.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sovereign.engine.Ledgers;
import dev.sovereign.engine.admin.AdminReader;
import dev.sovereign.engine.admin.ProcessRow;
import dev.sovereign.engine.cli.CliHarness.Result;
import dev.sovereign.engine.testing.SettableClock;
import dev.sovereign.engine.testing.TempDatabase;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Which CLI calls leave a row in the process registry (docs/decisions/0304): a call that only reads leaves
 * none, a refused {@code lease acquire} leaves none, a write registers before it writes; and the operator's
 * {@code process stop ID} (issue 17, item 11).
 */
class CliProcessRegistryTest {
    @RegisterExtension
    final TempDatabase temp = new TempDatabase();

    private final SettableClock clock = new SettableClock();
    private CliHarness cli;

    @BeforeEach
    void setUp() {
        cli = new CliHarness(temp.dir(), clock);
        cli.ok("init");
        cli.ok("actor", "add", "operator");
        cli.ok("send", "--from", "ops", "--to", "operator", "--subject", "s");
        cli.ok("assign", "operator", "--provider", "scripted:ms=10,outcome=completed");
    }

    private List<ProcessRow> processes() {
        try (AdminReader r = Ledgers.openReader(temp.dir().resolve("sovereign.db"))) {
            return r.snapshot().processes();
        }
    }

    private Optional<ProcessRow> process(String identity) {
        return processes().stream()
                .filter(p -> p.process().identity().equals(identity))
                .findFirst();
    }

    @Test
    void everyReadOnlyCommandRegistersNoProcess() {
        cli.ok("--process", "proc_holder", "lease", "acquire", "operator", "--ttl", "1m");
        List<ProcessRow> before = processes();

        for (String[] read : new String[][] {
            {"status"},
            {"status", "--json"},
            {"events"},
            {"events", "--json"},
            {"lease", "list"},
            {"lease", "list", "--json"},
            {"assignments"},
            {"assignments", "--json"},
            {"inbox", "operator"},
            {"messages"},
            {"actor", "list"},
            {"rejections"},
            // acting as an existing identity, and as a new one, reads register nothing either
            {"--process", "proc_holder", "status"},
            {"--process", "proc_new", "lease", "list"},
            {"--help"},
            {"status", "--help"}
        }) {
            cli.ok(read);
            assertThat(processes()).as("after %s", String.join(" ", read)).hasSameSizeAs(before);
        }
        assertThat(processes()).isEqualTo(before);
    }

    @Test
    void aWriteRegistersItsProcessBeforeItWrites() {
        List<ProcessRow> before = processes();

        cli.ok("actor", "add", "second");
        JsonNode lease =
                cli.ok("lease", "acquire", "operator", "--ttl", "1m", "--json").onlyJson();

        List<ProcessRow> added =
                processes().stream().filter(p -> !before.contains(p)).toList();
        assertThat(added).hasSize(2);
        ProcessRow holder = process(lease.get("process").asText()).orElseThrow();
        assertThat(holder.stoppedAt())
                .as("a durable identity outlives its call")
                .isNull();
        assertThat(holder.kind()).isEqualTo("cli");
        assertThat(added)
                .filteredOn(p -> p.process().label().equals("sovereign actor add"))
                .singleElement()
                .satisfies(p -> assertThat(p.stoppedAt())
                        .as("an ephemeral call ends stopped")
                        .isNotNull());
    }

    @Test
    void aRefusedLeaseAcquireLeavesNoIdentityButItsRejectionNamesTheOneItMinted() {
        cli.ok("--process", "proc_holder", "lease", "acquire", "operator", "--ttl", "1m");
        int before = processes().size();

        Result refused = cli.run("lease", "acquire", "operator", "--ttl", "1m");

        assertThat(refused.exit()).as("%s", refused).isEqualTo(1);
        assertThat(refused.errLines()).singleElement().asString().startsWith("refused (actor_lease_held): ");
        assertThat(processes()).hasSize(before);
        JsonNode rejection = cli.ok("rejections", "--json").json().get(0);
        String minted = rejection.get("process_identity").asText();
        assertThat(minted).startsWith("proc_").isNotEqualTo("proc_holder");
        assertThat(process(minted))
                .as("the minted identity is named only by its REJECTED row")
                .isEmpty();
    }

    /**
     * Refused input changes nothing, not even the registry (issue 26): {@code run} and {@code worker} heartbeat,
     * and used to register when they opened, so {@code run ""} or {@code run asg_nope} left a stopped row.
     */
    @Test
    void refusedInputToRunAndWorkerRegistersNoProcess() {
        String command = cli.ok("assign", "operator", "--provider", "command:true", "--json")
                .onlyJson()
                .get("assignment")
                .asText();
        List<ProcessRow> before = processes();

        for (String[] refused : new String[][] {
            {"run", ""},
            {"run", "asg_nope"},
            {"run", "asg_nope", "--json"},
            {"run", "asg_nope", "--ttl", "8761h"},
            {"run", "asg_nope", "--ttl", "60ms"},
            {"run", command}, // command_not_allowed: journalled, nothing else written
            {"worker", "--actor", "ghost"},
            {"worker", "--actor", ""},
            {"worker", "--actor", "operator", "--ttl", "8761h"},
            {"--busy-timeout", "9000h", "run", command},
            {"lease", "acquire", ""}
        }) {
            Result r = cli.run(refused);
            assertThat(r.exit())
                    .as("%s: %s", String.join(" ", refused), r.err())
                    .isIn(1, 2);
            assertThat(processes()).as("after %s", String.join(" ", refused)).isEqualTo(before);
        }

        // a run that writes still registers (with its first write) and ends stopped
        String scripted = cli.ok("assignments", "--state", "CREATED", "--json").json().stream()
                .filter(a -> a.get("provider").asText().startsWith("scripted"))
                .findFirst()
                .orElseThrow()
                .get("assignment")
                .asText();
        String runner = cli.ok("run", scripted, "--json")
                .onlyJson()
                .get("attempt")
                .get("process")
                .asText();
        assertThat(process(runner)).hasValueSatisfying(p -> {
            assertThat(p.process().label()).isEqualTo("sovereign run");
            assertThat(p.stoppedAt()).isNotNull();
        });
    }

    @Test
    void processStopMarksItStoppedJournalsItAndReleasesNothing() {
        long token = cli.ok("--process", "proc_holder", "lease", "acquire", "operator", "--ttl", "1m", "--json")
                .onlyJson()
                .get("token")
                .asLong();

        Result stop = cli.ok("process", "stop", "proc_holder");

        assertThat(stop.out())
                .contains("Process marked stopped.")
                .contains("proc_holder")
                .contains("Its leases were not released");
        assertThat(process("proc_holder").orElseThrow().stoppedAt()).isNotNull();
        JsonNode event = cli.ok("events", "--json").json().stream()
                .filter(e -> e.get("kind").asText().equals("PROCESS_STOPPED"))
                .reduce((a, b) -> b)
                .orElseThrow();
        assertThat(event.get("resource_type").asText()).isEqualTo("process");
        assertThat(event.get("resource_id").asText()).isEqualTo("proc_holder");
        String by = event.get("process_identity").asText();
        assertThat(by).isNotEqualTo("proc_holder");
        assertThat(process(by))
                .as("the operator's call registered before it wrote, and ended stopped")
                .hasValueSatisfying(p -> assertThat(p.stoppedAt()).isNotNull());
        assertThat(event.get("detail").asText())
                .startsWith("marked stopped by an operator: cli 'sovereign lease acquire'")
                .contains("its leases were not released");
        JsonNode lease = cli.ok("lease", "list", "--json").onlyJson();
        assertThat(lease.get("process").asText()).isEqualTo("proc_holder");
        assertThat(lease.get("token").asLong()).isEqualTo(token);
    }

    @Test
    void processStopRefusesAStoppedOrUnknownProcessAndBadUsage() {
        cli.ok("--process", "proc_holder", "actor", "add", "second");
        cli.ok("process", "stop", "proc_holder");
        int events = cli.ok("events", "--json").json().size();

        Result again = cli.run("process", "stop", "proc_holder");
        assertThat(again.exit()).as("%s", again).isEqualTo(1);
        assertThat(again.errLines())
                .singleElement()
                .isEqualTo("refused (process_stopped): Process proc_holder (cli"
                        + " 'sovereign actor add') is already stopped; nothing was changed.");
        JsonNode json = cli.run("process", "stop", "proc_holder", "--json").onlyJson();
        assertThat(json.get("category").asText()).isEqualTo("process_stopped");

        Result unknown = cli.run("process", "stop", "proc_nobody");
        assertThat(unknown.exit()).as("%s", unknown).isEqualTo(2);
        assertThat(unknown.errLines())
                .singleElement()
                .isEqualTo("bad input (unknown_process): There is no process"
                        + " proc_nobody in the registry; 'sovereign status' lists the processes.");

        Result malformed = cli.run("process", "stop", "1234");
        assertThat(malformed.exit()).as("%s", malformed).isEqualTo(2);
        assertThat(malformed.errLines())
                .singleElement()
                .asString()
                .startsWith("bad usage: ")
                .contains("'1234' is not a process identity");
        Result missing = cli.run("process", "stop");
        assertThat(missing.exit()).as("%s", missing).isEqualTo(2);
        assertThat(missing.errLines()).first().asString().startsWith("bad usage: ");

        assertThat(cli.ok("events", "--json").json())
                .as("a refused stop changes nothing")
                .hasSize(events);
        assertThat(processes())
                .filteredOn(p -> p.process().label().equals("sovereign process stop"))
                .as("only the stop that wrote left a process")
                .hasSize(1);
    }

    @Test
    void processStopHelpSaysItReleasesNothing() {
        assertThat(cli.ok("process", "stop", "--help").out().replaceAll("\\s+", " "))
                .contains("NOT released: they expire on their own, and the fence keeps a stale holder out");
    }
}
