package dev.sovereign.engine.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sovereign.engine.cli.CliHarness.Result;
import dev.sovereign.engine.testing.ChildJvm;
import dev.sovereign.engine.testing.Poll;
import dev.sovereign.engine.testing.SettableClock;
import dev.sovereign.engine.testing.TempDatabase;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@code sovereign console}: starts the console jar as a real child process, or says why it cannot. */
class ConsoleCommandTest {
    @RegisterExtension
    final TempDatabase temp = new TempDatabase();

    private CliHarness cli;

    private Path fakeJar;

    @BeforeEach
    void setUp() throws IOException {
        cli = new CliHarness(temp.dir(), new SettableClock());
        fakeJar = fakeConsoleJar();
    }

    @Test
    void aMissingConsoleJarIsExitThreeWithOneSentence() {
        Path missing = temp.dir().resolve("no-such-console.jar");
        cli.with(b -> b.consoleJar(missing));

        Result r = cli.run("console");

        assertThat(r.exit()).isEqualTo(ExitCode.STORAGE);
        assertThat(r.errLines())
                .containsExactly("unavailable: The desktop console is not built (" + missing
                        + " does not exist); build it with 'mvn -B -ntp -DskipTests package' in the repository, which"
                        + " ./sovereign does on first use.");
    }

    @Test
    void withoutTheLauncherTheConsoleIsUnavailable() {
        Result r = cli.run("console");

        assertThat(r.exit()).isEqualTo(ExitCode.STORAGE);
        assertThat(r.errLines())
                .singleElement()
                .asString()
                .startsWith("unavailable: This sovereign was not started" + " by its launcher");
    }

    @Test
    void theConsoleRunsAsAChildWithTheSameDbAndItsExitCodeIsReturned() throws IOException {
        cli.with(b -> b.consoleJar(fakeJar));
        Path db = temp.dir().resolve("elsewhere.db");

        Result r = cli.run("console", "--db", db.toString());

        assertThat(r.exit()).isEqualTo(FakeConsole.EXIT);
        assertThat(Files.readString(temp.dir().resolve(FakeConsole.RECORD))).isEqualTo("--db\n" + db);
    }

    /** Decision 0427: the console's JVM compiles with C1 only (its idle and live CPU). */
    @Test
    void theConsoleJvmCompilesWithC1Only() throws IOException {
        cli.with(b -> b.consoleJar(fakeJar));

        Result r = cli.run("console", "--db", temp.dir().resolve("c1.db").toString());

        assertThat(r.exit()).isEqualTo(FakeConsole.EXIT);
        assertThat(Files.readAllLines(temp.dir().resolve(FakeConsole.JVM_RECORD)))
                .contains("-XX:TieredStopAtLevel=1");
    }

    @Test
    void theConsoleGetsTheDatabaseNamedBySovereignDb() throws IOException {
        Path db = temp.dir().resolve("from-env.db");
        cli.with(b -> b.consoleJar(fakeJar).variables(Map.of("SOVEREIGN_DB", db.toString())));

        cli.run("console");

        assertThat(Files.readString(temp.dir().resolve(FakeConsole.RECORD))).isEqualTo("--db\n" + db);
    }

    @Test
    void aServersUrlGoesToTheConsoleByItsEnvironmentNeverOnItsCommandLine() throws IOException {
        cli.with(b -> b.consoleJar(fakeJar));
        String url = "jdbc:postgresql://db.example/ledger?user=ops&password=planted-Secret-42";

        Result r = cli.run("console", "--db", url);

        assertThat(r.exit()).isEqualTo(FakeConsole.EXIT);
        assertThat(Files.readString(temp.dir().resolve(FakeConsole.RECORD))).isEmpty(); // nothing for `ps` to show
        assertThat(Files.readString(temp.dir().resolve(FakeConsole.ENV_RECORD))).isEqualTo(url);
        assertThat(r.out() + r.err()).doesNotContain("planted-Secret-42");
    }

    /** Issue 31, item 22: docs/console.md documents {@code ./sovereign console --no-demo}; it is accepted and passed on. */
    @Test
    void noDemoIsAcceptedAndPassedToTheConsole() throws IOException {
        cli.with(b -> b.consoleJar(fakeJar));

        Result r = cli.run("console", "--no-demo");

        assertThat(r.exit()).as(r.err()).isEqualTo(FakeConsole.EXIT);
        assertThat(Files.readString(temp.dir().resolve(FakeConsole.RECORD))).isEqualTo("--no-demo");
    }

    @Test
    void withNoDatabaseNamedOrPresentTheConsoleGetsNoneAndOpensItsDemo() throws IOException {
        cli.with(b -> b.consoleJar(fakeJar));

        cli.run("console");

        assertThat(Files.readString(temp.dir().resolve(FakeConsole.RECORD))).isEmpty();
    }

    @Test
    void aSignalToTheCliAlsoEndsTheConsoleItStarted() throws Exception {
        Path pidFile = temp.dir().resolve(FakeConsole.LINGER);
        Files.writeString(pidFile, "");
        Process cliProcess = ChildJvm.builder(
                        List.of("-D" + CliEnvironment.CONSOLE_JAR_PROPERTY + "=" + fakeJar), Main.class, "console")
                .directory(temp.dir().toFile())
                .redirectErrorStream(true)
                .redirectOutput(temp.dir().resolve("cli.log").toFile())
                .start();
        try {
            Poll.until(
                    () -> {
                        try {
                            return !Files.readString(pidFile).isBlank();
                        } catch (IOException e) {
                            return false;
                        }
                    },
                    Duration.ofSeconds(30),
                    () -> "the fake console never started");
            long consolePid = Long.parseLong(Files.readString(pidFile).strip());
            assertThat(ProcessHandle.of(consolePid))
                    .get()
                    .satisfies(h -> assertThat(h.isAlive()).isTrue());

            cliProcess.destroy(); // SIGTERM to the CLI, as a terminal or a parent would send it
            assertThat(cliProcess.waitFor(30, TimeUnit.SECONDS)).isTrue();

            Poll.until(
                    () -> ProcessHandle.of(consolePid).map(h -> !h.isAlive()).orElse(true),
                    Duration.ofSeconds(15),
                    () -> "the console " + consolePid + " outlived the CLI");
        } finally {
            cliProcess.destroyForcibly();
            if (!Files.readString(pidFile).isBlank()) {
                ProcessHandle.of(Long.parseLong(Files.readString(pidFile).strip()))
                        .ifPresent(ProcessHandle::destroyForcibly);
            }
        }
    }

    /** A real jar whose Main-Class is {@link FakeConsole}, copied from the test classes. */
    private Path fakeConsoleJar() throws IOException {
        Path jar = temp.dir().resolve("fake-console.jar");
        Manifest manifest = new Manifest();
        manifest.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
        manifest.getMainAttributes().put(Attributes.Name.MAIN_CLASS, FakeConsole.class.getName());
        String entry = FakeConsole.class.getName().replace('.', '/') + ".class";
        try (OutputStream file = Files.newOutputStream(jar);
                JarOutputStream out = new JarOutputStream(file, manifest);
                InputStream in = FakeConsole.class.getClassLoader().getResourceAsStream(entry)) {
            out.putNextEntry(new JarEntry(entry));
            in.transferTo(out);
            out.closeEntry();
        }
        return jar;
    }
}
