package dev.sovereign.engine.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.base.CommandAllowList;
import dev.sovereign.engine.base.EngineConfig;
import dev.sovereign.engine.cli.RealCli.Finished;
import dev.sovereign.engine.cli.RealCli.Running;
import dev.sovereign.engine.run.Assignment;
import dev.sovereign.engine.run.AssignmentState;
import dev.sovereign.engine.testing.ChildJvm;
import dev.sovereign.engine.testing.Poll;
import dev.sovereign.engine.testing.TempDatabase;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Issue 13, finding 2, reproduced as it was found: an environment variable an operator may have set
 * (JAVA_TOOL_OPTIONS with the lab's fault switch) reaches the shipped CLI. On an ordinary ledger it
 * must change nothing: a run whose fence an operator stole is refused, with no receipt. Only on a
 * ledger created as a lab sandbox does the switch break the fence — the control, which shows the
 * switch really reached the child and the first half could have failed.
 */
class BrokenFenceSwitchTest {
    private static final Map<String, String> FAULT_IN_THE_ENVIRONMENT =
            Map.of("JAVA_TOOL_OPTIONS", "-Dsovereign.fault.ignoreTerminalFence=true");

    @RegisterExtension
    final TempDatabase temp = new TempDatabase();

    private final List<Process> children = new ArrayList<>();

    @AfterEach
    void stopChildren() {
        children.forEach(ChildJvm::destroy);
    }

    /**
     * Runs, in a real CLI process with the fault switch in its environment, an assignment whose command
     * waits for a file; steals its fence meanwhile; then lets it finish with exit status 1 (FAILED).
     */
    private Finished runWithStolenFence(Path db) throws Exception {
        Path go = temp.dir().resolve("go-" + db.getFileName());
        String id;
        String command = "while [ ! -e '" + go + "' ]; do sleep 0.02; done; exit 1";
        try (Engine setup =
                Engine.open(EngineConfig.forDatabase(db).heartbeat(false).build())) {
            id = setup.runs().assign("operator", "command:" + command).id();
        }
        RealCli cli = new RealCli(temp.dir());
        Running run = cli.start(
                FAULT_IN_THE_ENVIRONMENT,
                "--db",
                db.toString(),
                "run",
                id,
                "--ttl",
                "30s",
                "--allow-command",
                CommandAllowList.exactly(command));
        children.add(run.process());
        Poll.until(
                () -> state(db, id) == AssignmentState.RUNNING,
                Duration.ofSeconds(60),
                () -> "the run to start; stderr: " + run.err());

        Finished steal = cli.run("--db", db.toString(), "steal-fence", id);
        assertThat(steal.exit()).as("%s", steal).isZero();
        Files.createFile(go);
        return run.await();
    }

    private static AssignmentState state(Path db, String id) {
        try (Engine e = Engine.openExisting(
                EngineConfig.forDatabase(db).heartbeat(false).build())) {
            return e.runs().get(id).map(Assignment::state).orElseThrow();
        }
    }

    private static Engine look(Path db) {
        return Engine.openExisting(EngineConfig.forDatabase(db).heartbeat(false).build());
    }

    @Test
    void theFaultSwitchInTheEnvironmentCannotBreakTheFenceOfAnOrdinaryLedger() throws Exception {
        Path db = temp.file();
        try (Engine e =
                Engine.open(EngineConfig.forDatabase(db).heartbeat(false).build())) {
            e.actors().add("operator");
        }

        Finished run = runWithStolenFence(db);

        assertThat(run.err()).as("%s", run).contains("Picked up JAVA_TOOL_OPTIONS"); // the switch did arrive
        assertThat(run.exit()).as("%s", run).isEqualTo(1);
        assertThat(run.err()).contains("execution_attempt_lost");
        try (Engine e = look(db)) {
            Assignment x = e.runs().list().get(0);
            assertThat(x.state()).isEqualTo(AssignmentState.RUNNING);
            assertThat(e.runs().receipt(x.id())).isEmpty();
            assertThat(e.journal().rejections(10))
                    .extracting(ev -> ev.category())
                    .contains("execution_attempt_lost");
        }
    }

    @Test
    void onALabSandboxTheSameSwitchDoesBreakTheFenceWhichIsWhatTheLabShows() throws Exception {
        Path db = temp.dir().resolve("sandbox.db");
        try (Engine e = Engine.open(EngineConfig.forDatabase(db)
                .heartbeat(false)
                .createAsLabSandbox(true)
                .build())) {
            assertThat(e.isLabSandbox()).isTrue();
            e.actors().add("operator");
        }

        Finished run = runWithStolenFence(db);

        try (Engine e = look(db)) {
            Assignment x = e.runs().list().get(0);
            assertThat(x.state()).as("%s", run).isEqualTo(AssignmentState.FAILED);
            assertThat(e.runs().receipt(x.id())).isPresent();
        }
    }
}
