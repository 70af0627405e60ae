package dev.sovereign.engine.lab;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.testing.TempDatabase;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A lab worker started from the product's jar (the CLI's: no logging provider on its class path, unlike this test's)
 * prints its own lines only: SLF4J's "no providers" warning was its first line, the one the Lab's worker table
 * showed as the worker's last output until it hosted.
 */
class WorkerSaysNothingOfLoggingTest {
    @RegisterExtension
    final TempDatabase temp = new TempDatabase();

    @Test
    void aWorkerFromTheCliJarPrintsNoLoggingWarning() throws Exception {
        Engine ops = temp.open(Clock.systemUTC());
        ops.actors().add("operator");
        Path cliJar;
        try (Stream<Path> s = Files.list(Path.of("..", "cli", "target"))) {
            cliJar = s.filter(p -> p.getFileName().toString().matches("sovereign-cli-.*-cli\\.jar"))
                    .findFirst()
                    .orElseThrow();
        }
        Process worker = new ProcessBuilder(
                        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                        "-cp",
                        cliJar.toString(),
                        WorkerMain.class.getName(),
                        temp.file().toString(),
                        "operator",
                        "2000",
                        "0",
                        "worker Q")
                .redirectErrorStream(true)
                .start();
        List<String> lines = new ArrayList<>();
        try (BufferedReader r =
                new BufferedReader(new InputStreamReader(worker.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = r.readLine()) != null) {
                lines.add(line);
                if (line.startsWith("hosting")) {
                    break;
                }
            }
        } finally {
            worker.destroy();
            worker.waitFor(30, TimeUnit.SECONDS);
        }
        assertThat(lines).anyMatch(l -> l.startsWith("hosting"));
        assertThat(lines).noneMatch(l -> l.contains("SLF4J"));
    }
}
