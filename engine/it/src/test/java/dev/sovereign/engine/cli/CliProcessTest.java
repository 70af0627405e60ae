package dev.sovereign.engine.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sovereign.engine.Engine;
import dev.sovereign.engine.cli.RealCli.Finished;
import dev.sovereign.engine.cli.RealCli.Running;
import dev.sovereign.engine.testing.ChildJvm;
import dev.sovereign.engine.testing.Poll;
import dev.sovereign.engine.testing.TempDatabase;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Black-box: the CLI as real, separate OS processes on one database file, contending for one lease,
 * presenting stale tokens, following the journal and being signalled.
 */
class CliProcessTest {
    @RegisterExtension
    final TempDatabase temp = new TempDatabase();

    private RealCli cli;
    private final List<Process> children = new ArrayList<>();

    /**
     * The ledger and its actor are made in this JVM, through the engine the CLI embeds, at the CLI's default path in
     * the children's working directory: two JVM starts fewer per test (about 2 s each on a loaded machine); what is
     * under test is what the real processes do to it afterwards.
     */
    @BeforeEach
    void setUp() {
        cli = new RealCli(temp.dir());
        try (Engine e = temp.open(Clock.systemUTC())) {
            e.actors().add("operator");
        }
    }

    @AfterEach
    void stopChildren() {
        children.forEach(ChildJvm::destroy);
    }

    private static Finished ok(Finished f) {
        assertThat(f.exit()).as("%s", f).isZero();
        assertThat(f.err()).as("%s", f).isEmpty();
        return f;
    }

    private static JsonNode json(String line) throws IOException {
        return CliHarness.JSON.readTree(line);
    }

    @Test
    void twoIdentitiesRaceForOneLeaseAndExactlyOneWins() throws IOException {
        Running a = cli.start("--process", "proc_a", "lease", "acquire", "operator", "--ttl", "30s", "--json");
        Running b = cli.start("--process", "proc_b", "lease", "acquire", "operator", "--ttl", "30s", "--json");
        Finished fa = a.await();
        Finished fb = b.await();

        assertThat(List.of(fa.exit(), fb.exit())).as("%s%n%s", fa, fb).containsExactlyInAnyOrder(0, 1);
        Finished winner = fa.exit() == 0 ? fa : fb;
        Finished loser = fa.exit() == 0 ? fb : fa;
        assertThat(winner.err()).isEmpty();
        JsonNode lease = json(winner.out());
        assertThat(lease.get("process").asText()).isEqualTo(winner == fa ? "proc_a" : "proc_b");
        assertThat(loser.errLines())
                .singleElement()
                .asString()
                .startsWith("refused (actor_lease_held): Actor operator" + " is hosted by "
                        + lease.get("process").asText() + " with token "
                        + lease.get("token").asLong());
        JsonNode refusal = json(loser.out());
        assertThat(refusal.get("refused").asBoolean()).isTrue();
        assertThat(refusal.get("category").asText()).isEqualTo("actor_lease_held");
        assertThat(refusal.get("current_token").asLong())
                .isEqualTo(lease.get("token").asLong());
    }

    @Test
    void aStaleRenewExitsOneWithActorLeaseLostAndAppearsInRejections() throws IOException {
        long first = json(ok(cli.run("--process", "proc_a", "lease", "acquire", "operator", "--ttl", "500ms", "--json"))
                        .out())
                .get("token")
                .asLong();
        // proc_b takes over as soon as proc_a's short lease has expired (real time, real processes).
        List<Finished> attempts = new ArrayList<>();
        Poll.until(
                () -> {
                    Finished f =
                            cli.run("--process", "proc_b", "lease", "acquire", "operator", "--ttl", "1m", "--json");
                    attempts.add(f);
                    return f.exit() == 0;
                },
                Duration.ofSeconds(30),
                () -> "proc_b to take over; last: " + attempts.get(attempts.size() - 1));
        long second = json(attempts.get(attempts.size() - 1).out()).get("token").asLong();
        assertThat(second).isGreaterThan(first);

        Finished renew = cli.run("--process", "proc_a", "lease", "renew", "operator", "--token", Long.toString(first));

        assertThat(renew.exit()).as("%s", renew).isEqualTo(1);
        assertThat(renew.out()).isEmpty();
        assertThat(renew.errLines())
                .singleElement()
                .asString()
                .startsWith("refused (actor_lease_lost): Cannot renew actor operator with token " + first);

        Finished release =
                cli.run("--process", "proc_a", "lease", "release", "operator", "--token", Long.toString(first));
        assertThat(release.exit()).as("%s", release).isEqualTo(1);
        assertThat(release.errLines()).singleElement().asString().startsWith("refused (actor_lease_lost): ");

        List<JsonNode> rejections = new ArrayList<>();
        for (String line : ok(cli.run("rejections", "--json")).out().lines().toList()) {
            rejections.add(json(line));
        }
        assertThat(rejections)
                .filteredOn(r -> r.get("category").asText().equals("actor_lease_lost"))
                .hasSize(2)
                .allSatisfy(r -> {
                    assertThat(r.get("process_identity").asText()).isEqualTo("proc_a");
                    assertThat(r.get("presented_token").asLong()).isEqualTo(first);
                    assertThat(r.get("current_token").asLong()).isEqualTo(second);
                });
        JsonNode lease = json(ok(cli.run("lease", "list", "--json")).out());
        assertThat(lease.get("process").asText()).isEqualTo("proc_b");
        assertThat(lease.get("token").asLong()).isEqualTo(second);
    }

    @ParameterizedTest
    @ValueSource(strings = {"TERM", "INT"})
    void eventsFollowPrintsNewEventsAndExitsZeroOnSignal(String signal) throws Exception {
        assumeFalse(
                ignoredByThisJvm(signal), "SIG" + signal + " is ignored in this environment, so children inherit that");
        Running follower = cli.start("events", "--follow", "--poll-interval", "50ms");
        children.add(follower.process());
        Poll.until(
                () -> follower.out().contains("SEQ") || !follower.process().isAlive(),
                Duration.ofSeconds(30),
                () -> "the follower to print its header; stderr: " + follower.err());

        ok(cli.run("--process", "proc_a", "lease", "acquire", "operator", "--ttl", "30s"));
        Poll.until(
                () -> follower.out().contains("LEASE_ACQUIRED"),
                Duration.ofSeconds(30),
                () -> "the follower to print the new event; stdout: " + follower.out());
        ChildJvm.signal(follower.process(), signal);
        Finished f = follower.await();

        assertThat(f.exit()).as("%s", f).isZero();
        assertThat(f.err()).isEmpty();
        assertThat(f.out()).contains("proc_a");
    }

    @Test
    void aScriptOfTwoProcessIdentitiesCannotCompleteWithTheStaleClaimToken() throws IOException {
        String message = json(ok(cli.run(
                                "send", "--from", "ops", "--to", "operator", "--subject", "rotate keys", "--json"))
                        .out())
                .get("message")
                .asText();
        // A lease long enough for any JVM start on a loaded machine (the claim needs it): the test does not wait
        // for it to expire, proc_a gives it up below.
        long leaseA = json(ok(cli.run("--process", "proc_a", "lease", "acquire", "operator", "--ttl", "1m", "--json"))
                        .out())
                .get("token")
                .asLong();
        long claimA = json(ok(cli.run(
                                "--process",
                                "proc_a",
                                "claim",
                                message,
                                "--actor",
                                "operator",
                                "--ttl",
                                "500ms",
                                "--json"))
                        .out())
                .get("token")
                .asLong();
        assertThat(claimA).isGreaterThan(leaseA);
        ok(cli.run("--process", "proc_a", "lease", "release", "operator", "--token", Long.toString(leaseA)));

        // proc_a's claim expires (real time, real processes); proc_b takes the actor and the message over.
        Finished leaseB = retryUntilOk("--process", "proc_b", "lease", "acquire", "operator", "--ttl", "1m", "--json");
        Finished claimedB =
                retryUntilOk("--process", "proc_b", "claim", message, "--actor", "operator", "--ttl", "1m", "--json");
        long claimB = json(claimedB.out()).get("token").asLong();
        assertThat(claimB)
                .isGreaterThan(json(leaseB.out()).get("token").asLong())
                .isGreaterThan(claimA);

        Finished stale =
                cli.run("--process", "proc_a", "complete", message, "--token", Long.toString(claimA), "--json");

        assertThat(stale.exit()).as("%s", stale).isEqualTo(1);
        assertThat(stale.errLines()).singleElement().asString().startsWith("refused (fencing_token_stale): ");
        JsonNode refusal = json(stale.out());
        assertThat(refusal.get("category").asText()).isEqualTo("fencing_token_stale");
        assertThat(refusal.get("presented_token").asLong()).isEqualTo(claimA);
        assertThat(refusal.get("current_token").asLong()).isEqualTo(claimB);
        List<JsonNode> rejections = new ArrayList<>();
        for (String line : ok(cli.run("rejections", "--json")).out().lines().toList()) {
            rejections.add(json(line));
        }
        assertThat(rejections)
                .filteredOn(r -> r.get("category").asText().equals("fencing_token_stale"))
                .singleElement()
                .satisfies(r -> {
                    assertThat(r.get("resource_id").asText()).isEqualTo(message);
                    assertThat(r.get("process_identity").asText()).isEqualTo("proc_a");
                    assertThat(r.get("presented_token").asLong()).isEqualTo(claimA);
                    assertThat(r.get("current_token").asLong()).isEqualTo(claimB);
                });

        ok(cli.run("--process", "proc_b", "complete", message, "--token", Long.toString(claimB)));
        assertThat(json(ok(cli.run("messages", "--json")).out()).get("state").asText())
                .isEqualTo("DONE");
    }

    /** Runs the command until it exits 0 (it is refused while what it waits for has not expired yet). */
    private Finished retryUntilOk(String... args) {
        List<Finished> attempts = new ArrayList<>();
        Poll.until(
                () -> {
                    Finished f = cli.run(args);
                    attempts.add(f);
                    return f.exit() == 0;
                },
                Duration.ofSeconds(30),
                () -> "success; last: " + attempts.get(attempts.size() - 1));
        return attempts.get(attempts.size() - 1);
    }

    @ParameterizedTest
    @ValueSource(strings = {"TERM", "INT"})
    void aSupervisorLoopSweepsAnExpiredClaimAndExitsZeroOnSignal(String signal) throws Exception {
        assumeFalse(
                ignoredByThisJvm(signal), "SIG" + signal + " is ignored in this environment, so children inherit that");
        Running supervisor = cli.start("supervisor", "--interval", "100ms");
        children.add(supervisor.process());
        Poll.until(
                () -> supervisor.out().startsWith("supervising ")
                        || !supervisor.process().isAlive(),
                Duration.ofSeconds(30),
                () -> "the supervisor to start; stderr: " + supervisor.err());

        String message = json(ok(cli.run("send", "--from", "ops", "--to", "operator", "--subject", "s", "--json"))
                        .out())
                .get("message")
                .asText();
        ok(cli.run("--process", "proc_a", "lease", "acquire", "operator", "--ttl", "1m"));
        ok(cli.run("--process", "proc_a", "claim", message, "--actor", "operator", "--ttl", "500ms"));
        Poll.until(
                () -> supervisor.out().contains("swept 1 expired claim: " + message),
                Duration.ofSeconds(30),
                () -> "the sweep; stdout: " + supervisor.out() + "; stderr: " + supervisor.err());
        ChildJvm.signal(supervisor.process(), signal);
        Finished f = supervisor.await();

        assertThat(f.exit()).as("%s", f).isZero();
        assertThat(f.err()).as("%s", f).isEmpty();
        assertThat(f.out()).doesNotContain("Exception").endsWith("stopped" + System.lineSeparator());
        assertThat(json(ok(cli.run("messages", "--json")).out()).get("state").asText())
                .isEqualTo("NEW");
    }

    @Test
    void ctrlCDuringABusyWaitExits130() throws Exception {
        assumeFalse(ignoredByThisJvm("INT"), "SIGINT is ignored in this environment, so children inherit that");
        Path log = temp.dir().resolve("lock-holder.log");
        Process holder = ChildJvm.start(LockHolder.class, log, temp.file().toString());
        children.add(holder);
        Poll.until(
                () -> RealCli.read(log).contains(LockHolder.READY),
                Duration.ofSeconds(30),
                () -> "the lock holder; log: " + RealCli.read(log));
        // a write waits for the lock; a call that only reads does not (it registers no process, decision 0304)
        Running waiting = cli.start("--busy-timeout", "1h", "actor", "add", "waiting");
        children.add(waiting.process());
        // Interrupt it only once it is inside the engine, waiting for the lock: it has the file open.
        Poll.until(
                () -> hasOpen(waiting.process(), temp.file())
                        || !waiting.process().isAlive(),
                Duration.ofSeconds(30),
                () -> "the waiting call to open the database");
        assertThat(waiting.process().isAlive())
                .as("still waiting; stderr: %s", waiting.err())
                .isTrue();
        ChildJvm.signal(waiting.process(), "INT");
        Finished f = waiting.await();

        assertThat(f.exit()).as("%s", f).isEqualTo(130);
    }

    @Test
    void theRealProcessPrintsOnlyItsOneSentenceOnStderr() {
        Finished unknown = cli.run("lease", "acquire", "ghost");
        assertThat(unknown.exit()).isEqualTo(2);
        assertThat(unknown.err())
                .isEqualTo("bad input (unknown_actor): There is no actor named 'ghost'; add it with"
                        + " 'sovereign actor add ghost'." + System.lineSeparator());
        assertThat(unknown.out()).isEmpty();

        Finished missing = cli.run("--db", "absent.db", "status");
        assertThat(missing.exit()).isEqualTo(3);
        assertThat(missing.errLines()).singleElement().asString().startsWith("storage error (missing_file): ");
    }

    @Test
    void helpFromTheRealProcessListsEveryCommand() {
        Finished help = ok(cli.run("--help"));
        for (String command : List.of(
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
                "events",
                "rejections",
                "console")) {
            assertThat(help.out()).containsPattern("(?m)^  " + command + " +\\S");
        }
    }

    /** Whether {@code p} has {@code file} open (Linux: /proc/PID/fd); elsewhere, whether it has run a while. */
    private static boolean hasOpen(Process p, Path file) {
        Path fds = Path.of("/proc", Long.toString(p.pid()), "fd");
        if (!Files.isDirectory(Path.of("/proc/self/fd"))) {
            return p.info().totalCpuDuration().map(d -> d.toMillis() > 1_000).orElse(true);
        }
        try (var links = Files.list(fds)) {
            return links.anyMatch(l -> {
                try {
                    return Files.readSymbolicLink(l).equals(file);
                } catch (IOException e) {
                    return false;
                }
            });
        } catch (IOException e) {
            return false;
        }
    }

    /** Whether this JVM ignores {@code signal} (Linux: the SigIgn mask in /proc/self/status). */
    private static boolean ignoredByThisJvm(String signal) throws IOException {
        Path status = Path.of("/proc/self/status");
        if (!Files.exists(status)) {
            return false;
        }
        Matcher m = Pattern.compile("(?m)^SigIgn:\\s*([0-9a-fA-F]+)").matcher(Files.readString(status));
        if (!m.find()) {
            return false;
        }
        long mask = Long.parseUnsignedLong(m.group(1), 16);
        int number = signal.equals("INT") ? 2 : 15;
        return (mask & (1L << (number - 1))) != 0;
    }
}
