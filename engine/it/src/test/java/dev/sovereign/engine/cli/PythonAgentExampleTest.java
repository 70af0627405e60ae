package dev.sovereign.engine.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.base.EngineConfig;
import dev.sovereign.engine.testing.ChildJvm;
import dev.sovereign.engine.testing.TempDatabase;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The Python example of docs/agents.md, docs/examples/agent.py, run as it is checked in, by the machine's
 * {@code python3}, against a fresh ledger: it starts {@code serve --stdio} (this build's CLI, on the test class
 * path), hosts an actor, runs an assignment through it and prints the receipt's status.
 */
class PythonAgentExampleTest {
    @RegisterExtension
    final TempDatabase temp = new TempDatabase();

    /** engine/it is the module's folder while Maven runs it; the script lives in the repository's docs. */
    private static final Path SCRIPT = Path.of(System.getProperty("basedir", "."))
            .toAbsolutePath()
            .resolve("../../docs/examples/agent.py")
            .normalize();

    @Test
    void theDocumentedPythonAgentRunsAnAssignmentThroughServe() throws Exception {
        assumeTrue(python3Works(), "python3 is not installed on this machine, so the Python example cannot run here");
        assertThat(SCRIPT).isRegularFile();
        Path db = temp.dir().resolve("agent.db");
        Engine.open(EngineConfig.forDatabase(db).heartbeat(false).build()).close(); // sovereign init

        List<String> command = new ArrayList<>(List.of("python3", SCRIPT.toString(), "--db", db.toString(), "--"));
        command.addAll(ChildJvm.builder(Main.class).command());
        Process p = new ProcessBuilder(command)
                .directory(temp.dir().toFile())
                .redirectError(temp.dir().resolve("agent.err").toFile())
                .start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(120, TimeUnit.SECONDS)).isTrue();
        String err = Files.readString(temp.dir().resolve("agent.err"));

        assertThat(p.exitValue()).as("stdout: %s%nstderr: %s", out, err).isZero();
        List<String> lines = out.lines().toList();
        assertThat(lines).hasSize(5);
        assertThat(lines.get(0)).matches("process proc_[0-9a-f-]+");
        assertThat(lines.get(1)).matches("lease agent token \\d+");
        assertThat(lines.get(2)).matches("run asg_\\w+ COMPLETED attempt token \\d+");
        assertThat(lines.get(3)).isEqualTo("receipt completed");
        assertThat(lines.get(4)).isEqualTo("serve exited 0");
        assertThat(err).isEmpty();
    }

    private static boolean python3Works() {
        try {
            Process p = new ProcessBuilder("python3", "-c", "import json, subprocess, argparse")
                    .redirectErrorStream(true)
                    .start();
            p.getInputStream().readAllBytes();
            return p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
