package dev.sovereign.engine.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sovereign.engine.Engine;
import dev.sovereign.engine.base.CommandAllowList;
import dev.sovereign.engine.run.AssignmentState;
import dev.sovereign.engine.testing.Poll;
import dev.sovereign.engine.testing.SettableClock;
import dev.sovereign.engine.testing.TempDatabase;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A committed run is never reported as a failure (decision 0109), proven with a real SQLite write lock
 * taken by another connection at the exact moment after the terminal write committed (with which, since
 * decision 0508, a run that took the lease also released it). The moment is made
 * deterministic by the run itself: its provider (in its attempt folder) leaves a FIFO one level up, where the receipt file's temporary copy
 * goes, so after the commit the run blocks writing the receipt file until this test reads the FIFO —
 * and the test takes the lock before it does.
 */
class RunResultAfterCommitTest {
    private static final Duration DEADLINE = Duration.ofSeconds(30);

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

    @Test
    void aLockTakenAfterTheCommitCannotFailTheRunWhoseLeaseWasReleasedWithTheOutcome() throws Exception {
        String id = cli.ok(
                        "assign",
                        "operator",
                        "--provider",
                        "command:mkfifo \"../.$SOVEREIGN_ATTEMPT.receipt.json.tmp\"",
                        "--json")
                .onlyJson()
                .get("assignment")
                .asText();
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int[] exit = {-1};
        Thread runner = new Thread(() -> exit[0] = Cli.execute(
                cli.environment(),
                new PrintWriter(out, true),
                new PrintWriter(err, true),
                "--busy-timeout",
                "300ms",
                "run",
                id,
                "--json",
                "--allow-command",
                CommandAllowList.exactly("mkfifo \"../.$SOVEREIGN_ATTEMPT.receipt.json.tmp\"")));
        runner.start();

        Path fifo;
        try (Engine observer = temp.open(clock)) {
            Poll.until(
                    () -> observer.runs()
                            .get(id)
                            .map(a -> a.state() == AssignmentState.COMPLETED)
                            .orElse(false),
                    DEADLINE,
                    () -> "the terminal write to commit; stderr: " + err);
            fifo = findFifo(observer.runs().workspace(id));
        }
        // the run is now held after its commit (writing the receipt into the FIFO); take the lock, then let it
        // go on. Its lease was released in the terminal write's own transaction (decision 0508), so nothing
        // after the commit needs the lock any more: before 0508 the release waited here, gave up after
        // 300 ms, and became the warning of decision 0109.
        try (Connection rogue = DriverManager.getConnection("jdbc:sqlite:" + temp.file());
                Statement s = rogue.createStatement()) {
            s.execute("BEGIN IMMEDIATE");
            try (InputStream in = Files.newInputStream(fifo)) {
                in.readAllBytes();
            }
            runner.join(DEADLINE.toMillis());
            s.execute("ROLLBACK");
        }

        assertThat(runner.isAlive()).isFalse();
        assertThat(exit[0]).as("stderr: " + err).isEqualTo(ExitCode.OK);
        JsonNode r = CliHarness.JSON.readTree(out.toString());
        assertThat(r.get("state").asText()).isEqualTo("COMPLETED");
        assertThat(r.get("receipt").get("status").asText()).isEqualTo("completed");
        assertThat(r.get("warnings")).isEmpty();
        assertThat(err.toString()).isEmpty();
        try (Engine observer = temp.open(clock)) {
            assertThat(observer.leases().current("operator")).isEmpty();
        }
    }

    @Test
    void aReceiptFileThatCannotBeWrittenIsAWarningAndTheRunExitsZero() throws Exception {
        String id = cli.ok(
                        "assign",
                        "operator",
                        "--provider",
                        "command:mkdir \"../.$SOVEREIGN_ATTEMPT.receipt.json.tmp\"",
                        "--json")
                .onlyJson()
                .get("assignment")
                .asText();

        CliHarness.Result r =
                cli.run("run", id, "--json", "--allow-command", "mkdir \"../.$SOVEREIGN_ATTEMPT.receipt.json.tmp\"");

        assertThat(r.exit()).as(r.err()).isEqualTo(ExitCode.OK);
        assertThat(r.onlyJson().get("state").asText()).isEqualTo("COMPLETED");
        assertThat(r.onlyJson().get("receipt_file").isNull()).isTrue();
        assertThat(r.onlyJson().get("warnings"))
                .singleElement()
                .extracting(JsonNode::asText)
                .asString()
                .contains("could not write the receipt file");
        assertThat(r.errLines()).singleElement().asString().startsWith("warning: ");
    }

    private static Path findFifo(Path workspace) throws Exception {
        Path[] found = {null};
        Poll.until(
                () -> {
                    try (Stream<Path> files = Files.list(workspace)) {
                        found[0] = files.filter(p -> p.getFileName().toString().endsWith(".receipt.json.tmp"))
                                .findFirst()
                                .orElse(null);
                        return found[0] != null;
                    } catch (IOException e) {
                        return false;
                    }
                },
                DEADLINE,
                () -> "the provider's FIFO in " + workspace);
        return found[0];
    }
}
