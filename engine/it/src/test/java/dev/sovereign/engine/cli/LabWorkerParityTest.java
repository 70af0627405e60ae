package dev.sovereign.engine.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sovereign.engine.lab.WorkerMain;
import dev.sovereign.engine.testing.ChildJvm;
import dev.sovereign.engine.testing.TempDatabase;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The lab starts its workers with its own entry point ({@code lab.WorkerMain}) instead of the CLI
 * (decision 0007); where they can fail before they work, both must fail alike — same exit code, same one
 * sentence on standard error, nothing on standard output — so the console shows the same thing.
 */
class LabWorkerParityTest {
    @RegisterExtension
    final TempDatabase temp = new TempDatabase();

    private record Ended(int exit, String out, String err) {}

    private static Ended labWorker(String... args) throws IOException, InterruptedException {
        Process p = ChildJvm.builder(WorkerMain.class, args).start();
        p.getOutputStream().close(); // no control lines
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        return new Ended(
                p.exitValue(), out, err.lines().filter(l -> !l.isBlank()).reduce("", (a, b) -> a + b));
    }

    private Ended cliWorker(String... args) {
        RealCli.Finished f = new RealCli(temp.dir()).run(args);
        return new Ended(f.exit(), f.out(), String.join("", f.errLines()));
    }

    @Test
    void anActorThatDoesNotExistIsTheSameBadInputFromBoth() throws Exception {
        new RealCli(temp.dir()).run("init");
        Ended lab = labWorker(temp.file().toString(), "nobody", "2000", "0", "");
        Ended cli = cliWorker(
                "--db", temp.file().toString(), "worker", "--actor", "nobody", "--ttl", "2s", "--control-stdin");

        assertThat(lab.exit()).isEqualTo(cli.exit()).isEqualTo(2);
        assertThat(lab.err())
                .isEqualTo(cli.err())
                .isEqualTo("bad input (unknown_actor): There is no actor named 'nobody'; add it with"
                        + " 'sovereign actor add nobody'.");
        assertThat(lab.out()).isEqualTo(cli.out()).isEmpty();
    }

    @Test
    void aMissingDatabaseIsTheSameStorageErrorFromBoth() throws Exception {
        String missing = temp.dir().resolve("nope.db").toString();
        Ended lab = labWorker(missing, "operator", "2000", "0", "");
        Ended cli = cliWorker("--db", missing, "worker", "--actor", "operator", "--control-stdin");

        assertThat(lab.exit()).isEqualTo(cli.exit()).isEqualTo(3);
        assertThat(lab.err()).isEqualTo(cli.err()).startsWith("storage error (");
        assertThat(lab.out()).isEmpty();
    }
}
