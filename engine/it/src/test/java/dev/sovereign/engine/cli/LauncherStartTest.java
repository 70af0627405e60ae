package dev.sovereign.engine.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The launcher's start options (docs/decisions/0321), run for real: the repository's {@code sovereign} script in a
 * folder laid out as a checkout with the CLI jar this build made, and a real JVM per call. The archive is made once
 * and mapped after; SQLite's library comes from target/native; an archive that does not fit is ignored without a
 * word on the call's output.
 */
class LauncherStartTest {
    private static final Path BUILT =
            Path.of("..", "cli", "target").toAbsolutePath().normalize();

    @TempDir
    Path root;

    private Path target;
    private Path jar;

    @BeforeEach
    void layOutACheckout() throws IOException {
        Files.copy(Path.of("..", "..", "sovereign"), root.resolve("sovereign"));
        root.resolve("sovereign").toFile().setExecutable(true);
        target = Files.createDirectories(root.resolve("engine/cli/target"));
        Path built;
        try (Stream<Path> s = Files.list(BUILT)) {
            built = s.filter(p -> p.getFileName().toString().matches("sovereign-cli-.*-cli\\.jar"))
                    .findFirst()
                    .orElseThrow(() -> new IllegalStateException("no CLI jar in " + BUILT + ": package engine/cli"));
        }
        jar = target.resolve(built.getFileName());
        Files.copy(built, jar);
        copyTree(BUILT.resolve("native"), target.resolve("native"));
        // the launcher builds when the console's jar is missing; this test never starts the console
        Path console = Files.createDirectories(root.resolve("console-ui/target"));
        Files.writeString(
                console.resolve(jar.getFileName()
                        .toString()
                        .replace("sovereign-cli-", "sovereign-console-")
                        .replace("-cli.jar", "-app.jar")),
                "");
    }

    @Test
    void theFirstCallMakesTheArchiveAndTheNextMapsTheCliFromIt() throws Exception {
        Call first = call(Map.of(), "--version");
        assertThat(first.exit).isZero();
        assertThat(first.out).startsWith("sovereign ");
        assertThat(first.err).isEmpty();
        Path archive = target.resolve("sovereign-cli.jsa");
        assertThat(archive).isNotEmptyFile();
        assertThat(target.toFile().list()).noneMatch(n -> n.endsWith(".partial"));

        Path log = root.resolve("classes.log");
        Call second = call(Map.of("JDK_JAVA_OPTIONS", "-Xlog:class+load:file=" + log), "--version");
        assertThat(second.exit).isZero();
        assertThat(second.out).isEqualTo(first.out);
        assertThat(Files.readString(log))
                .contains("dev.sovereign.engine.cli.SovereignCommand source: shared objects file (top)");
    }

    @Test
    void sqlitesLibraryComesFromTheBuildNotFromATemporaryFile() throws Exception {
        // a temporary "folder" that is a file: sqlite-jdbc cannot extract its library there, root or not
        Path noTmp = Files.writeString(root.resolve("not-a-folder"), "");
        Map<String, String> env = Map.of("JDK_JAVA_OPTIONS", "-Dorg.sqlite.tmpdir=" + noTmp);
        Call init = call(env, "--db", root.resolve("l.db").toString(), "init");
        assertThat(init.exit).as(init.err).isZero();
        assertThat(call(env, "--db", root.resolve("l.db").toString(), "lease", "list").out)
                .contains("No leases.");

        // without target/native the same call has to extract, and cannot: the call above did not
        deleteTree(target.resolve("native"));
        Call without = call(env, "--db", root.resolve("l.db").toString(), "lease", "list");
        assertThat(without.exit).isNotZero();
    }

    @Test
    void anArchiveThatDoesNotFitTheJarIsIgnoredWithoutAWord() throws Exception {
        Call first = call(Map.of(), "--version");
        Path archive = target.resolve("sovereign-cli.jsa");
        // the jar rebuilt (another modification time): the archive no longer fits it, and is made again
        FileTime made = Files.getLastModifiedTime(archive);
        Files.setLastModifiedTime(jar, FileTime.from(Instant.now().plusSeconds(5)));
        Call rebuilt = call(Map.of(), "--version");
        assertThat(rebuilt.out).isEqualTo(first.out);
        assertThat(rebuilt.err).isEmpty();
        assertThat(Files.getLastModifiedTime(archive)).isGreaterThan(made);

        // cut short (a full disk, a copy): mapped, it would crash the JVM (SIGBUS); its stamp says so, and it is made
        // again
        byte[] whole = Files.readAllBytes(archive);
        Files.write(archive, java.util.Arrays.copyOf(whole, whole.length / 2));
        Files.setLastModifiedTime(archive, FileTime.from(Instant.now().plusSeconds(60)));
        Call truncated = call(Map.of(), "--version");
        assertThat(truncated.exit).isZero();
        assertThat(truncated.out).isEqualTo(first.out);
        assertThat(truncated.err).isEmpty();
        assertThat(Files.size(archive)).isEqualTo(whole.length);

        // an archive newer than the jar but not made from it: the jar put back from a backup (an older time)
        Files.setLastModifiedTime(jar, FileTime.from(Instant.now().minusSeconds(3600)));
        Call restored = call(Map.of(), "--version");
        assertThat(restored.exit).isZero();
        assertThat(restored.out).isEqualTo(first.out);
        assertThat(restored.err).isEmpty();

        // or not an archive at all
        Files.write(archive, "not an archive".getBytes(StandardCharsets.UTF_8));
        Files.setLastModifiedTime(archive, FileTime.from(Instant.now().plusSeconds(60)));
        Call garbage = call(Map.of(), "--version");
        assertThat(garbage.exit).isZero();
        assertThat(garbage.out).isEqualTo(first.out);
        assertThat(garbage.err).isEmpty();
    }

    @Test
    void aCollectorChosenInTheEnvironmentStillStartsTheCli() throws Exception {
        for (String variable : List.of("JAVA_TOOL_OPTIONS", "JDK_JAVA_OPTIONS")) {
            Call call = call(Map.of(variable, "-XX:+UseParallelGC"), "--version");
            assertThat(call.exit).as("%s: %s", variable, call.err).isZero();
            assertThat(call.out).startsWith("sovereign ");
        }
    }

    @Test
    void aTrainingThatFailsIsNotTriedAgainForTheSameJarAndJava() throws Exception {
        // no temporary folder: the training cannot make its throw-away ledger; --version needs none
        Map<String, String> noTmp = Map.of("JAVA_TOOL_OPTIONS", "-Djava.io.tmpdir=" + root.resolve("missing"));
        Call first = call(noTmp, "--version");
        assertThat(first.exit).isZero();
        Path failed = target.resolve("sovereign-cli.jsa.failed");
        assertThat(failed).isRegularFile();
        assertThat(target.resolve("sovereign-cli.jsa")).doesNotExist();
        FileTime marked = Files.getLastModifiedTime(failed);
        Thread.sleep(1100); // a marker written again would carry a later time
        assertThat(call(noTmp, "--version").exit).isZero();
        assertThat(Files.getLastModifiedTime(failed)).isEqualTo(marked);
        assertThat(target.resolve("sovereign-cli.jsa")).doesNotExist();
        try (Stream<Path> s = Files.list(target)) {
            assertThat(s.map(p -> p.getFileName().toString())).noneMatch(n -> n.endsWith(".partial"));
        }

        // a new jar is worth a new try, and with a temporary folder it makes the archive
        Files.setLastModifiedTime(jar, FileTime.from(Instant.now().plusSeconds(5)));
        assertThat(call(Map.of(), "--version").exit).isZero();
        assertThat(target.resolve("sovereign-cli.jsa")).isNotEmptyFile();
        assertThat(failed).doesNotExist();
    }

    private record Call(int exit, String out, String err) {}

    private Call call(Map<String, String> env, String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of(root.resolve("sovereign").toString()));
        command.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(command).directory(root.toFile());
        pb.environment().remove("SOVEREIGN_DB");
        pb.environment().remove("JDK_JAVA_OPTIONS");
        pb.environment().remove("_JAVA_OPTIONS");
        pb.environment().remove("JAVA_TOOL_OPTIONS");
        pb.environment().putAll(env);
        Path out = root.resolve("out.txt");
        Path err = root.resolve("err.txt");
        Process p = pb.redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("the launcher ended").isTrue();
        String errText = Files.readString(err)
                .lines()
                .filter(l -> !l.startsWith("NOTE: Picked up JDK_JAVA_OPTIONS")
                        && !l.startsWith("Picked up JAVA_TOOL_OPTIONS"))
                .reduce("", (a, b) -> a + b + "\n");
        return new Call(p.exitValue(), Files.readString(out), errText);
    }

    private static void copyTree(Path from, Path to) throws IOException {
        try (Stream<Path> s = Files.walk(from)) {
            for (Path p : s.toList()) {
                Files.copy(p, to.resolve(from.relativize(p).toString()));
            }
        }
    }

    private static void deleteTree(Path dir) throws IOException {
        try (Stream<Path> s = Files.walk(dir)) {
            for (Path p : s.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }
}
