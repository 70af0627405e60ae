package dev.sovereign.engine.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.Ledgers;
import dev.sovereign.engine.admin.AdminReader;
import dev.sovereign.engine.admin.ExportProgress;
import dev.sovereign.engine.base.CommandAllowList;
import dev.sovereign.engine.base.EngineConfig;
import dev.sovereign.engine.lab.Demo;
import dev.sovereign.engine.lab.Lab;
import dev.sovereign.engine.run.RunResult;
import dev.sovereign.engine.testing.ChildOutput;
import dev.sovereign.engine.testing.SettableClock;
import dev.sovereign.engine.testing.TempDatabase;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.ZoneOffset;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Files on the workstation (issue 19, decision 0801): what Sovereign creates is its owner's only — the
 * database and its {@code -wal}/{@code -shm} {@code 0600}, the data folder and every folder of a run
 * {@code 0700}, receipt files, captured output and journal exports {@code 0600}, the demo's and the lab's
 * folders {@code 0700} — whatever the umask (this JVM's is typically 022, under which SQLite alone would
 * make a world-readable {@code 0644} file). What already exists keeps its mode. Real files, real
 * permissions, read with java.nio.
 */
class OwnerOnlyFilesTest {
    private static final String FILE = "rw-------";
    private static final String FOLDER = "rwx------";

    @RegisterExtension
    final TempDatabase temp = new TempDatabase();

    private final SettableClock clock = new SettableClock();

    @BeforeEach
    void posixOnly() {
        assumeTrue(
                temp.dir().getFileSystem().supportedFileAttributeViews().contains("posix"),
                "permissions are POSIX file modes");
    }

    private static String mode(Path p) throws IOException {
        return PosixFilePermissions.toString(Files.getPosixFilePermissions(p, LinkOption.NOFOLLOW_LINKS));
    }

    @Test
    void aNewDatabaseAndItsWalAndShmAreTheOwnersOnly() throws Exception {
        Path db = temp.dir().resolve("fresh.db");
        try (Engine e = Engine.open(
                EngineConfig.forDatabase(db).clock(clock).heartbeat(false).build())) {
            e.actors().add("operator");
            assertThat(mode(db)).isEqualTo(FILE);
            assertThat(mode(temp.dir().resolve("fresh.db-wal"))).isEqualTo(FILE);
            assertThat(mode(temp.dir().resolve("fresh.db-shm"))).isEqualTo(FILE);
        }
    }

    @Test
    void anExistingDatabaseKeepsTheModeItsOwnerGaveIt() throws Exception {
        Path db = temp.dir().resolve("shared.db");
        try (Engine e = Engine.open(
                EngineConfig.forDatabase(db).clock(clock).heartbeat(false).build())) {
            e.actors().add("operator");
        }
        Files.setPosixFilePermissions(db, PosixFilePermissions.fromString("rw-rw----")); // a team's choice

        try (Engine e = Engine.open(
                EngineConfig.forDatabase(db).clock(clock).heartbeat(false).build())) {
            e.actors().add("reviewer");
            assertThat(mode(db)).isEqualTo("rw-rw----");
            assertThat(mode(temp.dir().resolve("shared.db-wal")))
                    .as("SQLite gives the WAL the database's mode")
                    .isEqualTo("rw-rw----");
        }
    }

    @Test
    void theDataFolderEveryRunFolderTheReceiptAndTheCapturedOutputAreTheOwnersOnly() throws Exception {
        Engine e = temp.open(
                temp.config(clock).allowCommands(CommandAllowList.of("echo *")).build());
        e.actors().add("operator");
        RunResult r = e.runs()
                .runAssignment(e.runs()
                        .assign("operator", "command:echo secret output", "persistent")
                        .id());

        Path data = EngineConfig.defaultDataDirectory(temp.file());
        Path attempt = r.workspace().resolve(r.attempt().id());
        for (Path folder : new Path[] {data, data.resolve("runs"), r.workspace(), attempt, r.outputDirectory()}) {
            assertThat(mode(folder)).as("%s", folder).isEqualTo(FOLDER);
        }
        assertThat(mode(r.receiptFile())).isEqualTo(FILE);
        assertThat(Files.readString(r.outputDirectory().resolve("stdout.txt"))).isEqualTo("secret output\n");
        assertThat(mode(r.outputDirectory().resolve("stdout.txt"))).isEqualTo(FILE);
        assertThat(mode(r.outputDirectory().resolve("stderr.txt"))).isEqualTo(FILE);
    }

    @Test
    void aJournalExportIsTheOwnersOnlyAlsoWhenItReplacesAReadableFile() throws Exception {
        Engine e = temp.open(clock);
        e.actors().add("operator");
        e.runs().assign("operator", "scripted:ms=0"); // a journal row to export
        Path csv = temp.dir().resolve("journal.csv");
        Files.writeString(csv, "old");
        Files.setPosixFilePermissions(csv, PosixFilePermissions.fromString("rw-r--r--"));

        try (AdminReader reader = Ledgers.openReader(temp.file(), clock, ZoneOffset.UTC)) {
            assertThat(reader.exportJournalCsv(csv, ExportProgress.NONE)).isPositive();
        }

        assertThat(mode(csv)).isEqualTo(FILE);
        assertThat(Files.readString(csv)).startsWith("seq,");
    }

    @Test
    void aLabSandboxFolderAndItsDatabaseAreTheOwnersOnly() throws Exception {
        Path folder = temp.dir().resolve("lab").resolve("sandboxes");

        Path sandbox = Lab.createSandbox(folder);

        assertThat(mode(folder)).isEqualTo(FOLDER);
        assertThat(mode(folder.getParent())).isEqualTo(FOLDER);
        assertThat(mode(sandbox)).isEqualTo(FILE);
    }

    @Test
    void theDemosFolderAndDataFolderAreTheUsersOnly() throws Exception {
        Path folder = temp.dir().resolve("demos");
        Path db = folder.resolve("demo.db");
        Path data = EngineConfig.defaultDataDirectory(db);
        try (Demo demo = Demo.start(Demo.Settings.defaults(db).withoutChaos())) {
            ChildOutput.await(
                    "a demo worker ran something",
                    Duration.ofSeconds(60),
                    () -> Files.isDirectory(data.resolve("runs")));
            assertThat(mode(folder)).isEqualTo(FOLDER);
            assertThat(mode(db)).isEqualTo(FILE);
            assertThat(mode(data)).isEqualTo(FOLDER);
            try (Stream<Path> runs = Files.list(data.resolve("runs"))) {
                assertThat(runs.toList()).allSatisfy(p -> assertThat(mode(p)).isEqualTo(FOLDER));
            }
        }
    }
}
