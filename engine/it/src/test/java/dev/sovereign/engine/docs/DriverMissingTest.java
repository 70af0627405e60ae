package dev.sovereign.engine.docs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sovereign.engine.testing.ChildJvm;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An embedder who puts a backend's jar on the class path without its JDBC driver is told which jar is missing, in
 * one sentence, before anything is opened or created (docs/embedding.md), not with a bare
 * {@code NoClassDefFoundError} from deep inside the backend. Each case runs a real child JVM whose class path is this
 * test's less the driver's jar, and the same program with the jar as the control.
 */
class DriverMissingTest {
    @TempDir
    Path dir;

    @Test
    void aSqliteFileWithoutSqliteJdbcIsOneSentenceAndNoFile() throws Exception {
        Path file = dir.resolve("ledger.db");

        String withoutDriver = run(withoutJar("sqlite-jdbc-"), file.toString());

        assertThat(withoutDriver).isEqualTo("refused: " + sqliteSentence(file.toString()));
        assertThat(file).doesNotExist();
        // the control: the same program with the driver opens the file
        assertThat(run(ChildJvm.classpath(), file.toString())).isEqualTo("opened");
        assertThat(file).exists();
    }

    @Test
    void aPostgresqlUrlWithoutTheDriverIsOneSentence() throws Exception {
        // Nothing listens on port 1 of the loopback: with the driver the open fails to connect, which is another
        // sentence; without it the engine must not even try.
        String url = "jdbc:postgresql://127.0.0.1:1/ledger?connectTimeout=2";

        String withoutDriver = run(withoutJar("postgresql-"), url);

        assertThat(withoutDriver)
                .isEqualTo("refused: Cannot open " + url + ": the postgres backend needs its JDBC driver, the jar of"
                        + " org.postgresql:postgresql, on the class path, and it is not there (no class"
                        + " org.postgresql.Driver); add it next to the backend's jar.");
        assertThat(run(ChildJvm.classpath(), url)).startsWith("refused: ").doesNotContain("JDBC driver");
    }

    /** What the engine says when sqlite-jdbc is missing; docs/embedding.md quotes it (EmbeddingDocTest). */
    static String sqliteSentence(String file) {
        return "Cannot open " + file + ": the sqlite backend needs its JDBC driver, the jar of"
                + " org.xerial:sqlite-jdbc, on the class path, and it is not there (no class org.sqlite.JDBC);"
                + " add it next to the backend's jar.";
    }

    /** This test's class path without the one jar whose file name starts with {@code prefix}. */
    private static String withoutJar(String prefix) {
        List<String> entries = Arrays.asList(ChildJvm.classpath().split(File.pathSeparator));
        List<String> kept = entries.stream()
                .filter(e -> !Path.of(e).getFileName().toString().startsWith(prefix))
                .collect(Collectors.toList());
        assertThat(entries.size() - kept.size())
                .as("jars named %s* on the class path", prefix)
                .isEqualTo(1);
        return String.join(File.pathSeparator, kept);
    }

    /** The child's one line of output; it must exit 0 (an escaped error would be a stack trace and exit 1). */
    private String run(String classpath, String database) throws Exception {
        Path log = Files.createTempFile(dir, "child", ".log");
        ProcessBuilder pb = new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-XX:TieredStopAtLevel=1",
                "-cp",
                classpath,
                OpenOnce.class.getName(),
                database);
        pb.directory(dir.toFile());
        pb.redirectErrorStream(true);
        pb.redirectOutput(log.toFile());
        Process p = pb.start();
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("the child ended").isTrue();
        String out = Files.readString(log, StandardCharsets.UTF_8).strip();
        assertThat(p.exitValue()).as("exit status; output:%n%s", out).isZero();
        return out;
    }
}
