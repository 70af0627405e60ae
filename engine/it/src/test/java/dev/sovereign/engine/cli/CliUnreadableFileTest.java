package dev.sovereign.engine.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.sovereign.engine.testing.ChildJvm;
import dev.sovereign.engine.testing.SettableClock;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A database file this user may not even read is not "read-only" (issue 26, "Sentences"): the real CLI, as a
 * child process that lacks the capabilities that let root read any file ({@code setpriv} drops
 * {@code CAP_DAC_OVERRIDE} and {@code CAP_DAC_READ_SEARCH}, so the file's mode applies to it as to any user),
 * says that it cannot read it; a file it may read but not write is still "read-only". Skipped where
 * {@code setpriv} cannot drop them (not root, no util-linux).
 */
class CliUnreadableFileTest {
    private static final List<String> WITHOUT_OVERRIDE = List.of(
            "setpriv", "--bounding-set=-dac_override,-dac_read_search", "--inh-caps=-dac_override,-dac_read_search");

    @TempDir
    Path dir;

    @Test
    void aFileThatCannotBeReadIsSaidSoAndAReadOnlyOneIsReadOnly() throws Exception {
        Path db = dir.resolve("ledger.db");
        new CliHarness(dir, new SettableClock()).ok("--db", db.toString(), "init");

        Files.setPosixFilePermissions(db, PosixFilePermissions.fromString("---------"));
        Finished unreadable = run("--db", db.toString(), "lease", "list");
        assertThat(unreadable.exit()).as("%s", unreadable).isEqualTo(ExitCode.STORAGE);
        assertThat(unreadable.errLines())
                .singleElement()
                .isEqualTo("storage error (io): Cannot open " + db
                        + ": this user may not read it (permission denied); its owner can grant access, or run Sovereign as"
                        + " the user who owns it.");

        Files.setPosixFilePermissions(db, PosixFilePermissions.fromString("r--------"));
        Finished readOnly = run("--db", db.toString(), "lease", "list");
        assertThat(readOnly.exit()).as("%s", readOnly).isEqualTo(ExitCode.STORAGE);
        assertThat(readOnly.errLines())
                .singleElement()
                .isEqualTo("storage error (read_only): Cannot write to " + db + ": the file is read-only.");
    }

    record Finished(int exit, String err) {
        List<String> errLines() {
            return err.lines().filter(l -> !l.isBlank()).toList();
        }
    }

    /** The real CLI ({@code Main}) in a child JVM without the capabilities to read a file its mode forbids. */
    private Finished run(String... args) throws Exception {
        assumeTrue(canDropTheOverride(), "setpriv cannot drop CAP_DAC_OVERRIDE here");
        ProcessBuilder pb = ChildJvm.builder(Main.class, args).directory(dir.toFile());
        List<String> cmd = new ArrayList<>(WITHOUT_OVERRIDE);
        cmd.addAll(pb.command());
        pb.command(cmd);
        pb.environment().remove(CliEnvironment.DB_VARIABLE);
        Path err = dir.resolve("child.err");
        pb.redirectError(err.toFile()).redirectOutput(dir.resolve("child.out").toFile());
        Process p = pb.start();
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("the child ended").isTrue();
        return new Finished(p.exitValue(), Files.readString(err));
    }

    /** Whether a child without the override really is refused a file of mode 000 (root with setpriv). */
    private boolean canDropTheOverride() throws Exception {
        Path probe = dir.resolve("probe");
        Files.writeString(probe, "x");
        Files.setPosixFilePermissions(probe, PosixFilePermissions.fromString("---------"));
        List<String> cmd = new ArrayList<>(WITHOUT_OVERRIDE);
        cmd.addAll(List.of("cat", probe.toString()));
        try {
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
            p.getInputStream().readAllBytes();
            return p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() != 0;
        } catch (IOException noSetpriv) {
            return false;
        }
    }
}
