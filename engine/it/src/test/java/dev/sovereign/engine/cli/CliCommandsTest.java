package dev.sovereign.engine.cli;

import static dev.sovereign.engine.cli.CliHarness.fieldNames;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sovereign.engine.Engine;
import dev.sovereign.engine.Ledgers;
import dev.sovereign.engine.SovereignVersion;
import dev.sovereign.engine.admin.AdminReader;
import dev.sovereign.engine.cli.CliHarness.Result;
import dev.sovereign.engine.internal.sqlite.SqliteBackend;
import dev.sovereign.engine.spi.Backends;
import dev.sovereign.engine.testing.Poll;
import dev.sovereign.engine.testing.SettableClock;
import dev.sovereign.engine.testing.TempDatabase;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Every command through picocli, in-process, on a real database file: output, JSON shape, exit code. */
class CliCommandsTest {
    /** The schema version this build writes to a SQLite file, asked from the backend. */
    private static final int SQLITE_SCHEMA = new SqliteBackend().schemaVersion();

    static final List<String> LEASE_FIELDS =
            List.of("actor", "process", "token", "ttl_ms", "acquired_at", "renewed_at", "expires_at", "expired");
    static final List<String> EVENT_FIELDS = List.of(
            "seq",
            "at",
            "kind",
            "resource_type",
            "resource_id",
            "actor_id",
            "process_identity",
            "token",
            "presented_token",
            "current_token",
            "category",
            "detail");
    static final List<String> REFUSAL_FIELDS = List.of(
            "refused",
            "category",
            "message",
            "presented_token",
            "current_token",
            "resource_type",
            "resource_id",
            "actor",
            "warnings");

    @RegisterExtension
    final TempDatabase temp = new TempDatabase();

    private final SettableClock clock = new SettableClock();
    private CliHarness cli;

    @BeforeEach
    void setUp() {
        cli = new CliHarness(temp.dir(), clock);
    }

    private void initWithOperator() {
        cli.ok("init");
        cli.ok("actor", "add", "operator");
    }

    @Test
    void initCreatesTheDatabaseAndSaysSo() {
        Result r = cli.ok("init");

        assertThat(r.out())
                .isEqualTo(
                        "Created " + temp.file() + " (schema version " + SQLITE_SCHEMA + ")." + System.lineSeparator());
        assertThat(r.err()).isEmpty();
        assertThat(temp.file()).exists();
    }

    @Test
    void versionNamesTheReleaseTheCommitItWasBuiltFromAndTheSchemaItWrites() {
        Result r = cli.ok("--version");

        assertThat(r.outLines()).hasSize(4);
        assertThat(r.outLines().get(0)).matches("sovereign \\d+\\.\\d+\\.\\d+(-SNAPSHOT)?");
        // Built from a Git clone (CI, a developer's tree): the commit is a real one, not "unknown".
        assertThat(r.outLines().get(1))
                .matches(insideAGitTree() ? "commit [0-9a-f]{12}(-modified)?" : "commit unknown");
        // one line per backend on the class path, each with the schema version it writes
        assertThat(r.outLines().subList(2, 4))
                .containsExactlyInAnyOrderElementsOf(Backends.all().stream()
                        .map(b -> "schema " + b.name() + " v" + b.schemaVersion())
                        .toList()); // the numbers come from the migrators: a test never hard-codes them
    }

    private static boolean insideAGitTree() {
        for (Path p = Path.of("").toAbsolutePath(); p != null; p = p.getParent()) {
            if (Files.exists(p.resolve(".git"))) {
                return true;
            }
        }
        return false;
    }

    @Test
    void initOnAnExistingDatabaseIsHarmlessAndReportsItWasNotCreated() {
        cli.ok("init");
        JsonNode again = cli.ok("init", "--json").onlyJson();

        assertThat(fieldNames(again)).containsExactly("database", "created", "schema_version");
        assertThat(again.get("created").asBoolean()).isFalse();
        assertThat(again.get("schema_version").asInt()).isEqualTo(SQLITE_SCHEMA);
        assertThat(again.get("database").asText()).isEqualTo(temp.file().toString());
    }

    @Test
    void actorAddThenListShowsTheActorAsATableAndAsJson() {
        cli.ok("init");
        Result added = cli.ok("actor", "add", "reviewer", "--workspace-policy", "persistent");
        assertThat(added.out()).contains("Actor added.").contains("reviewer").contains("persistent");

        cli.ok("actor", "add", "operator");
        Result list = cli.ok("actor", "list");
        assertThat(list.outLines()).hasSize(3);
        assertThat(list.outLines().get(0)).startsWith("ACTOR     WORKSPACE POLICY  CREATED");
        assertThat(list.outLines().get(1)).startsWith("operator  temporary         ");
        assertThat(list.outLines().get(2)).startsWith("reviewer  persistent        ");

        List<JsonNode> json = cli.ok("actor", "list", "--json").json();
        assertThat(json).hasSize(2);
        assertThat(fieldNames(json.get(0))).containsExactly("actor", "workspace_policy", "created_at");
        assertThat(json.get(1).get("actor").asText()).isEqualTo("reviewer");
        assertThat(json.get(1).get("created_at").asLong()).isEqualTo(clock.millis());
    }

    @Test
    void addingAnExistingActorIsRefusedWithExitOne() {
        initWithOperator();
        Result r = cli.run("actor", "add", "operator");

        assertThat(r.exit()).isEqualTo(ExitCode.REFUSED);
        assertThat(r.errLines()).containsExactly("refused (actor_exists): Actor operator already exists.");
    }

    @Test
    void leaseAcquirePrintsHolderTokenAndExpiryInLocalTimeAndRelative() {
        initWithOperator();
        Result r = cli.ok("--process", "proc_a", "lease", "acquire", "operator", "--ttl", "30s");

        assertThat(r.out())
                .contains("Lease acquired.")
                .containsPattern("process +proc_a")
                .containsPattern("token +1\\b")
                .containsPattern("ttl +30s")
                .contains("(in 30s)");
    }

    @Test
    void leaseAcquireAsJsonCarriesActorProcessTokenAndExpiresAt() {
        initWithOperator();
        JsonNode lease = cli.ok("lease", "acquire", "operator", "--ttl", "500ms", "--json")
                .onlyJson();

        assertThat(fieldNames(lease)).containsExactlyElementsOf(LEASE_FIELDS);
        assertThat(lease.get("actor").asText()).isEqualTo("operator");
        assertThat(lease.get("process").asText()).startsWith("proc_");
        assertThat(lease.get("token").asLong()).isEqualTo(1);
        assertThat(lease.get("ttl_ms").asLong()).isEqualTo(500);
        assertThat(lease.get("expires_at").asLong()).isEqualTo(clock.millis() + 500);
        assertThat(lease.get("expired").asBoolean()).isFalse();
    }

    @Test
    void aLeaseAcquiredWithoutProcessOutlivesTheCallUnderAPrintedIdentity() {
        initWithOperator();
        Result acquired = cli.ok("lease", "acquire", "operator", "--ttl", "30s");
        String holder = acquired.out()
                .lines()
                .filter(l -> l.strip().startsWith("process"))
                .map(l -> l.strip().split("\\s+")[1])
                .findFirst()
                .orElseThrow();
        assertThat(acquired.out()).contains("sovereign --process " + holder + " lease renew operator --token 1");

        JsonNode listed = cli.ok("lease", "list", "--json").onlyJson();
        assertThat(listed.get("process").asText()).isEqualTo(holder);

        clock.advance(Duration.ofSeconds(20));
        JsonNode renewed = cli.ok("--process", holder, "lease", "renew", "operator", "--token", "1", "--json")
                .onlyJson();
        assertThat(renewed.get("token").asLong()).isEqualTo(1);
        assertThat(renewed.get("expires_at").asLong()).isEqualTo(clock.millis() + 30_000);
    }

    @Test
    void renewOnlyIfLiveRefusesAnExpiredLeaseThatPlainRenewBringsBack() {
        initWithOperator();
        cli.ok("--process", "proc_a", "lease", "acquire", "operator", "--ttl", "30s");
        clock.advance(Duration.ofSeconds(10));
        JsonNode extended = cli.ok(
                        "--process", "proc_a", "lease", "renew", "operator", "--token", "1", "--only-if-live", "--json")
                .onlyJson();
        assertThat(extended.get("expires_at").asLong()).isEqualTo(clock.millis() + 30_000);

        clock.advance(Duration.ofSeconds(30)); // expired now, nobody took it
        Result refused = cli.run("--process", "proc_a", "lease", "renew", "operator", "--token", "1", "--only-if-live");
        assertThat(refused.exit()).isEqualTo(ExitCode.REFUSED);
        assertThat(refused.errLines())
                .singleElement()
                .asString()
                .startsWith(
                        "refused (actor_lease_lost): Cannot extend actor operator with token 1: the lease expired at");
        JsonNode revived = cli.ok("--process", "proc_a", "lease", "renew", "operator", "--token", "1", "--json")
                .onlyJson();
        assertThat(revived.get("expires_at").asLong()).isEqualTo(clock.millis() + 30_000);
    }

    @Test
    void releaseKeepForKeepsTheLeaseUntilThenInOneCallAndSaysUntilWhen() {
        initWithOperator();
        cli.ok("--process", "proc_a", "lease", "acquire", "operator", "--ttl", "5m");
        JsonNode released = cli.ok(
                        "--process",
                        "proc_a",
                        "lease",
                        "release",
                        "operator",
                        "--token",
                        "1",
                        "--keep-for",
                        "20s",
                        "--json")
                .onlyJson();
        assertThat(released.get("released").asBoolean()).isTrue();
        assertThat(released.get("kept_until").asLong()).isEqualTo(clock.millis() + 20_000);
        JsonNode kept = cli.ok("lease", "list", "--json").onlyJson();
        assertThat(kept.get("expires_at").asLong()).isEqualTo(clock.millis() + 20_000);
        assertThat(cli.run("--process", "proc_b", "lease", "acquire", "operator")
                        .exit())
                .isEqualTo(ExitCode.REFUSED);
        clock.advance(Duration.ofSeconds(20));
        assertThat(cli.ok("--process", "proc_b", "lease", "acquire", "operator", "--json")
                        .onlyJson()
                        .get("token")
                        .asLong())
                .isEqualTo(2);
        assertThat(cli.run("--process", "proc_a", "lease", "release", "operator", "--token", "1", "--keep-for", "0s")
                        .exit())
                .isEqualTo(ExitCode.BAD_INPUT);
    }

    @Test
    void aLiveLeaseRefusesASecondIdentityWithExitOneAndTheCategory() {
        initWithOperator();
        cli.ok("--process", "proc_a", "lease", "acquire", "operator", "--ttl", "30s");

        Result r = cli.run("--process", "proc_b", "lease", "acquire", "operator", "--json");

        assertThat(r.exit()).isEqualTo(ExitCode.REFUSED);
        assertThat(r.errLines())
                .singleElement()
                .asString()
                .startsWith("refused (actor_lease_held): Actor operator is hosted by proc_a with token 1");
        JsonNode refusal = r.onlyJson();
        assertThat(fieldNames(refusal)).containsExactlyElementsOf(REFUSAL_FIELDS);
        assertThat(refusal.get("refused").asBoolean()).isTrue();
        assertThat(refusal.get("category").asText()).isEqualTo("actor_lease_held");
        assertThat(refusal.get("presented_token").isNull()).isTrue();
        assertThat(refusal.get("current_token").asLong()).isEqualTo(1);
    }

    @Test
    void aStaleRenewIsRefusedWithActorLeaseLostAndListedInRejections() {
        initWithOperator();
        cli.ok("--process", "proc_a", "lease", "acquire", "operator", "--ttl", "5s");
        clock.advance(Duration.ofSeconds(6));
        cli.ok("--process", "proc_b", "lease", "acquire", "operator", "--ttl", "30s");

        Result r = cli.run("--process", "proc_a", "lease", "renew", "operator", "--token", "1", "--json");

        assertThat(r.exit()).isEqualTo(ExitCode.REFUSED);
        assertThat(r.errLines()).singleElement().asString().startsWith("refused (actor_lease_lost): ");
        assertThat(r.onlyJson().get("presented_token").asLong()).isEqualTo(1);
        assertThat(r.onlyJson().get("current_token").asLong()).isEqualTo(2);

        JsonNode rejection = cli.ok("rejections", "--json").onlyJson();
        assertThat(fieldNames(rejection)).containsExactlyElementsOf(EVENT_FIELDS);
        assertThat(rejection.get("kind").asText()).isEqualTo("REJECTED");
        assertThat(rejection.get("category").asText()).isEqualTo("actor_lease_lost");
        assertThat(rejection.get("process_identity").asText()).isEqualTo("proc_a");
        assertThat(rejection.get("presented_token").asLong()).isEqualTo(1);
        assertThat(rejection.get("current_token").asLong()).isEqualTo(2);

        Result human = cli.ok("rejections");
        assertThat(human.outLines().get(0))
                .startsWith("SEQ")
                .contains("CATEGORY")
                .contains("PRESENTED")
                .contains("CURRENT")
                .endsWith("WHY");
        assertThat(human.outLines().get(1)).contains("actor_lease_lost").contains("proc_a");
    }

    @Test
    void aRenewWithoutProcessExplainsThatTheCallIsANewProcess() {
        initWithOperator();
        cli.ok("--process", "proc_a", "lease", "acquire", "operator");

        Result r = cli.run("lease", "renew", "operator", "--token", "1");

        assertThat(r.exit()).isEqualTo(ExitCode.REFUSED);
        assertThat(r.errLines())
                .singleElement()
                .asString()
                .startsWith("refused (actor_lease_lost): ")
                .contains("pass the holder's identity with --process ID");
    }

    @Test
    void theHolderReleasesWithItsTokenAndTheActorIsFree() {
        initWithOperator();
        cli.ok("--process", "proc_a", "lease", "acquire", "operator");

        JsonNode released = cli.ok("--process", "proc_a", "lease", "release", "operator", "--token", "1", "--json")
                .onlyJson();

        assertThat(fieldNames(released)).containsExactly("released", "actor", "process", "token");
        assertThat(released.get("released").asBoolean()).isTrue();
        assertThat(cli.ok("lease", "list").out()).isEqualTo("No leases." + System.lineSeparator());
    }

    @Test
    void aStaleReleaseIsRefusedAndNeverClearsTheNewerHolder() {
        initWithOperator();
        cli.ok("--process", "proc_a", "lease", "acquire", "operator", "--ttl", "5s");
        clock.advance(Duration.ofSeconds(6));
        cli.ok("--process", "proc_b", "lease", "acquire", "operator", "--ttl", "30s");

        Result r = cli.run("--process", "proc_a", "lease", "release", "operator", "--token", "1", "--json");

        assertThat(r.exit()).isEqualTo(ExitCode.REFUSED);
        assertThat(r.errLines())
                .singleElement()
                .asString()
                .isEqualTo("refused (actor_lease_lost): Release of actor operator with token 1 was refused: the lease"
                        + " is held by proc_b with token 2; nothing was released.");
        assertThat(r.onlyJson().get("current_token").asLong()).isEqualTo(2);
        JsonNode lease = cli.ok("lease", "list", "--json").onlyJson();
        assertThat(lease.get("process").asText()).isEqualTo("proc_b");
        assertThat(lease.get("token").asLong()).isEqualTo(2);
        assertThat(cli.ok("rejections", "--json").json())
                .anySatisfy(e -> assertThat(e.get("category").asText()).isEqualTo("actor_lease_lost"));
    }

    @Test
    void releasingWhenThereIsNoLeaseIsRefused() {
        initWithOperator();
        Result r = cli.run("--process", "proc_a", "lease", "release", "operator", "--token", "7");

        assertThat(r.exit()).isEqualTo(ExitCode.REFUSED);
        assertThat(r.errLines())
                .singleElement()
                .asString()
                .startsWith("refused (actor_lease_lost): Actor operator has no lease to release with token 7");
    }

    @Test
    void leaseListShowsLiveAndExpiredLeasesOnTheRealTtl() {
        initWithOperator();
        cli.ok("actor", "add", "reviewer");
        cli.ok("--process", "proc_a", "lease", "acquire", "operator", "--ttl", "5s");
        clock.advance(Duration.ofSeconds(3));
        cli.ok("--process", "proc_b", "lease", "acquire", "reviewer", "--ttl", "1m");
        clock.advance(Duration.ofSeconds(3));

        Result r = cli.ok("lease", "list");
        assertThat(r.outLines().get(0))
                .isEqualTo("ACTOR     HOLDER  TOKEN  TTL  ACQUIRED           EXPIRES            STATE");
        assertThat(r.outLines().get(1))
                .startsWith("operator  proc_a  1      5s   ")
                .contains("(6s ago)")
                .contains("(1s ago)")
                .endsWith("expired");
        assertThat(r.outLines().get(2))
                .startsWith("reviewer  proc_b  2      1m   ")
                .contains("(in 57s)")
                .endsWith("live");

        List<JsonNode> json = cli.ok("lease", "list", "--json").json();
        assertThat(json).extracting(j -> j.get("expired").asBoolean()).containsExactly(true, false);
    }

    @Test
    void statusShowsDatabaseSchemaProcessesLeasesCountsAndLastToken() {
        initWithOperator();
        cli.ok("--process", "proc_a", "lease", "acquire", "operator", "--ttl", "1m");
        cli.run("--process", "proc_b", "lease", "acquire", "operator");
        clock.advance(Duration.ofSeconds(10));

        Result human = cli.ok("status");
        assertThat(human.out())
                .contains("database     " + temp.file() + " (schema version " + SQLITE_SCHEMA + ")")
                .contains("last token   1")
                .contains("epoch        0 (never restored or bumped)")
                .contains("journal      2 events, 1 rejection, last seq 2")
                .contains("actors       1")
                .contains("leases       1 live, 0 expired")
                .contains("assignments  none")
                .contains("messages     none");
        // proc_b's acquire was refused, so it registered nothing (decision 0304); proc_a, a CLI identity that never
        // beat, is not stale but "without heartbeat" (issue 31: one definition, Staleness)
        assertThat(human.out()).containsPattern("processes +0 live, 0 stale, 1 CLI without heartbeat, \\d+ stopped");

        JsonNode json = cli.ok("status", "--json").onlyJson();
        assertThat(fieldNames(json))
                .containsExactly(
                        "database",
                        "schema_version",
                        "last_migrated_by",
                        "lab_sandbox",
                        "moved_to",
                        "now",
                        "last_token",
                        "last_seq",
                        "events",
                        "rejections",
                        "actors",
                        "processes",
                        "leases",
                        "active_attempts",
                        "assignments",
                        "messages",
                        "connection",
                        "epoch",
                        "last_epoch_start",
                        "went_backwards",
                        "alarm",
                        "size_bytes",
                        "rows",
                        "oldest_event_at",
                        "events_last_day",
                        "journal_kept_ms",
                        "pruned_rows",
                        "runs_kept_ms",
                        "messages_kept_ms",
                        "processes_kept_ms",
                        "pruned_runs",
                        "pruned_messages",
                        "pruned_processes",
                        "last_backup_at",
                        "last_pruned_at");
        assertThat(fieldNames(json.get("connection")))
                .containsExactly("kind", "encrypted", "protocol", "cipher", "sslmode", "verification", "text");
        assertThat(json.get("connection").get("text").asText()).isEqualTo("local file");
        assertThat(human.out()).contains("connection   local file");
        assertThat(json.get("last_token").asLong()).isEqualTo(1);
        JsonNode migrated = json.get("last_migrated_by");
        assertThat(fieldNames(migrated)).containsExactly("version", "commit", "schema_version", "at");
        assertThat(migrated.get("version").asText())
                .isEqualTo(SovereignVersion.current().version())
                .isNotEqualTo("unknown");
        assertThat(migrated.get("commit").asText())
                .isEqualTo(SovereignVersion.current().commit());
        assertThat(migrated.get("schema_version").asInt()).isEqualTo(SQLITE_SCHEMA);
        assertThat(human.out())
                .contains("migrated by  sovereign " + SovereignVersion.current().version() + " (commit "
                        + SovereignVersion.current().commit() + "), to schema version " + SQLITE_SCHEMA + ", ");
        assertThat(json.get("lab_sandbox").asBoolean()).isFalse();
        assertThat(json.get("moved_to").isNull())
                .as("a live ledger was moved nowhere (decision 0915)")
                .isTrue();
        assertThat(json.get("rejections").asLong()).isEqualTo(1);
        assertThat(fieldNames(json.get("processes"))).containsExactly("live", "stale", "stopped", "no_heartbeat");
        assertThat(json.get("processes").get("stale").asLong()).isZero();
        assertThat(json.get("processes").get("no_heartbeat").asLong()).isEqualTo(1);
        assertThat(fieldNames(json.get("assignments")))
                .containsExactly("created", "running", "completed", "blocked", "failed");
        assertThat(fieldNames(json.get("messages"))).containsExactly("new", "claimed", "done", "dead");
    }

    @Test
    void aCallActingAsAnIdentityNeitherStopsItNorReleasesItsLeases() {
        initWithOperator();
        cli.ok("--process", "proc_a", "lease", "acquire", "operator", "--ttl", "1m");
        cli.ok("--process", "proc_a", "status");

        JsonNode status = cli.ok("status", "--json").onlyJson();
        // proc_a is not stopped: a CLI identity that never beat counts as "no heartbeat", neither live nor stale
        assertThat(status.get("processes").get("no_heartbeat").asLong()).isEqualTo(1);
        assertThat(status.get("leases").get("live").asLong()).isEqualTo(1);
    }

    @Test
    void eventsShowTheJournalWithSinceAndLimitAsTableAndJson() {
        initWithOperator();
        cli.ok("--process", "proc_a", "lease", "acquire", "operator", "--ttl", "5s");
        cli.run("--process", "proc_b", "lease", "acquire", "operator");
        cli.ok("--process", "proc_a", "lease", "release", "operator", "--token", "1");

        Result human = cli.ok("events");
        assertThat(human.outLines()).hasSize(5);
        assertThat(human.outLines().get(0)).matches("\\s+SEQ  TIME\\s+KIND\\s+RESOURCE\\s+PROCESS\\s+TOKEN\\s+DETAIL");
        assertThat(human.outLines().get(1))
                .contains("LEASE_ACQUIRED")
                .contains("actor operator")
                .contains("proc_a");
        assertThat(human.outLines().get(2))
                .contains("REJECTED")
                .contains("- vs 1")
                .contains("actor_lease_held: ");
        // the third call acts as proc_a, which the first one registered: the journal says who (decision 0802)
        assertThat(human.outLines().get(3)).contains("PROCESS_STARTED").contains("identity_claimed: OS user ");
        assertThat(human.outLines().get(4)).contains("LEASE_RELEASED").contains("by --process: OS user ");

        List<JsonNode> all = cli.ok("events", "--json").json();
        assertThat(all)
                .extracting(e -> e.get("kind").asText())
                .containsExactly("LEASE_ACQUIRED", "REJECTED", "PROCESS_STARTED", "LEASE_RELEASED");
        assertThat(fieldNames(all.get(0))).containsExactlyElementsOf(EVENT_FIELDS);
        assertThat(all.get(0).get("token").asLong()).isEqualTo(1);

        assertThat(cli.ok("events", "--since", "1", "--json").json())
                .extracting(e -> e.get("seq").asLong())
                .containsExactly(2L, 3L, 4L);
        assertThat(cli.ok("events", "--limit", "1", "--json").json())
                .extracting(e -> e.get("seq").asLong())
                .containsExactly(4L);
        assertThat(cli.ok("events", "--since", "1", "--limit", "1", "--json").json())
                .extracting(e -> e.get("seq").asLong())
                .containsExactly(2L);
        assertThat(cli.ok("events", "--since", "4").out()).isEqualTo("No events after seq 4." + System.lineSeparator());
    }

    @Test
    void eventsFollowPrintsNewEventsAndExitsZeroWhenAskedToStop() throws Exception {
        initWithOperator();
        StopSignals.Stop stop = new StopSignals.Stop();
        cli.with(b -> b.stopSignals(StopSignals.manual(stop)));
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int[] exit = {-1};
        Thread follower = new Thread(() -> exit[0] = Cli.execute(
                cli.environment(),
                new PrintWriter(out, true),
                new PrintWriter(err, true),
                "events",
                "--follow",
                "--json",
                "--poll-interval",
                "20ms"));
        follower.start();

        try (Engine other = temp.open(clock)) {
            other.leases().acquire("operator", Duration.ofSeconds(30));
            awaitContains(out, "LEASE_ACQUIRED");
            // stop before closing: the close releases the lease, and a follower still polling would
            // rightly print that LEASE_RELEASED too
            stop.request();
            follower.join(10_000);
        }

        assertThat(follower.isAlive()).isFalse();
        assertThat(exit[0]).isZero();
        assertThat(err.toString()).isEmpty();
        assertThat(out.toString()
                        .lines()
                        .map(l -> l.contains("\"kind\":\"LEASE_ACQUIRED\""))
                        .toList())
                .containsExactly(true);
    }

    private static void awaitContains(StringWriter out, String text) {
        Poll.until(() -> out.toString().contains(text), Duration.ofSeconds(10), () -> "'" + text + "' in: " + out);
    }

    @Test
    void rejectionsSaysSoWhenThereAreNone() {
        cli.ok("init");
        assertThat(cli.ok("rejections").out())
                .isEqualTo("No rejections: no write has been refused." + System.lineSeparator());
        assertThat(cli.ok("rejections", "--json").out()).isEmpty();
    }

    @Test
    void globalOptionsWorkBeforeAndAfterTheCommand() {
        initWithOperator();
        Result before = cli.ok("--json", "--process", "proc_a", "lease", "acquire", "operator", "--ttl", "5s");
        clock.advance(Duration.ofSeconds(6));
        Result after = cli.ok("lease", "acquire", "operator", "--ttl", "5s", "--process", "proc_b", "--json");

        assertThat(before.onlyJson().get("process").asText()).isEqualTo("proc_a");
        assertThat(after.onlyJson().get("process").asText()).isEqualTo("proc_b");
    }

    @Test
    void theDatabaseComesFromDbElseSovereignDbElseTheWorkingDirectory() throws Exception {
        cli.ok("init");
        Path other = temp.dir().resolve("other.db");
        cli.with(b -> b.variables(Map.of("SOVEREIGN_DB", other.toString())));

        assertThat(cli.ok("init").out()).contains("Created " + other);
        assertThat(cli.ok("status", "--json").onlyJson().get("database").asText())
                .isEqualTo(other.toString());
        assertThat(cli.ok("--db", "sovereign.db", "status", "--json")
                        .onlyJson()
                        .get("database")
                        .asText())
                .isEqualTo(temp.file().toString());
        assertThat(Files.exists(other)).isTrue();
    }

    @Test
    void helpListsEveryCommandWithOneLineEach() {
        Result r = cli.ok("--help");

        List<String> commandLines = r.out()
                .lines()
                .dropWhile(l -> !l.equals("Commands:"))
                .skip(1)
                .takeWhile(l -> !l.isBlank())
                .toList();
        assertThat(commandLines)
                .extracting(l -> l.strip().split("\\s+")[0])
                .containsExactly(
                        "init",
                        "actor",
                        "lease",
                        "send",
                        "inbox",
                        "messages",
                        "claim",
                        "complete",
                        "dead-letter",
                        "assign",
                        "run",
                        "retry",
                        "acknowledge",
                        "steal-fence",
                        "assignments",
                        "worker",
                        "supervisor",
                        "status",
                        "process",
                        "copy",
                        "backup",
                        "restore",
                        "fence",
                        "events",
                        "rejections",
                        "metrics",
                        "retention",
                        "prune",
                        "serve",
                        "lab",
                        "console",
                        "help");
        assertThat(commandLines).as("one line each").allMatch(l -> l.matches("  \\S+ +\\S.*"));
        assertThat(r.out())
                .contains("--db=DB")
                .contains("--json")
                .contains("--process=ID")
                .contains("--debug")
                .doesNotContain("--busy-timeout");
        assertThat(r.out()).contains("Exit codes:").contains("130");
        assertThat(cli.ok("lease", "--help").out())
                .contains("acquire")
                .contains("renew")
                .contains("release")
                .contains("list");
    }

    @Test
    void debugShowsTheStackTraceThatIsOtherwiseHidden() {
        Result plain = cli.run("status");
        Result debug = cli.run("status", "--debug");

        assertThat(plain.errLines()).hasSize(1);
        assertThat(debug.exit()).isEqualTo(ExitCode.STORAGE);
        assertThat(debug.errLines().size()).isGreaterThan(1);
        assertThat(debug.err()).contains("StorageException").contains("at dev.sovereign.engine");
    }

    @Test
    void aStorageErrorInJsonModeIsAlsoOneObjectOnStdout() {
        Result r = cli.run("status", "--json");

        assertThat(r.exit()).isEqualTo(ExitCode.STORAGE);
        JsonNode error = r.onlyJson();
        assertThat(fieldNames(error)).containsExactly("error", "message", "problem", "file");
        assertThat(error.get("problem").asText()).isEqualTo("missing_file");
        assertThat(error.get("file").asText()).isEqualTo(temp.file().toString());
    }

    @Test
    void aUsageErrorInJsonModeIsAlsoOneObjectOnStdout() {
        Result r = cli.run("lease", "acquire", "--json");

        assertThat(r.exit()).isEqualTo(ExitCode.BAD_INPUT);
        assertThat(r.onlyJson().get("error").asText()).isEqualTo("bad_usage");
    }

    @Test
    void helpRegistersNoProcess() {
        initWithOperator();
        int before = processCount();

        for (String[] help : new String[][] {
            {"--help"},
            {"status", "--help"},
            {"events", "--help"},
            {"lease", "list", "--help"},
            {"lease", "acquire", "--help"}
        }) {
            cli.ok(help);
        }

        assertThat(processCount())
                .as("--help only prints: no process is registered")
                .isEqualTo(before);
    }

    private int processCount() {
        try (AdminReader r = Ledgers.openReader(temp.dir().resolve("sovereign.db"))) {
            return r.snapshot().processes().size();
        }
    }
}
