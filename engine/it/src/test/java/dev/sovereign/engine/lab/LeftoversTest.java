package dev.sovereign.engine.lab;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserPrincipal;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 29 item 5 on real files: each new demo or lab sandbox removes the older ones beyond the newest few, whole (the
 * file, SQLite's side files, the {@code .data} folder), never one written to in the last minutes, never anything not
 * named like one, and never through a symbolic link; a shared lab folder someone else could have made is refused.
 */
class LeftoversTest {
    @TempDir
    Path dir;

    @TempDir
    Path outside;

    private final Clock clock = Clock.systemUTC();

    /** A ledger named {@code name} with its side files and a run folder, last written {@code age} ago. */
    private Path ledger(String name, Duration age) throws IOException {
        Path db = Files.writeString(dir.resolve(name), "not opened");
        Path data = dir.resolve(name.substring(0, name.length() - 3) + ".data");
        Files.createDirectories(data.resolve("runs/asg_1"));
        Files.writeString(data.resolve("runs/asg_1/output.txt"), "out");
        FileTime then = FileTime.from(clock.instant().minus(age));
        for (String suffix : List.of("-wal", "-shm")) {
            Files.setLastModifiedTime(Files.writeString(dir.resolve(name + suffix), "x"), then);
        }
        Files.setLastModifiedTime(db, then);
        return db;
    }

    private List<String> names() throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    @Test
    void theNewestFewStayAndTheOlderGoWholeAndNothingElseIsTouched() throws IOException {
        for (int day = 1; day <= 6; day++) {
            ledger("demo-2026110" + day + "-120000.db", Duration.ofDays(10 - day));
        }
        Files.writeString(dir.resolve("notes.txt"), "mine");
        ledger("demo-by-hand.db", Duration.ofDays(30)); // not a name the demo makes
        ledger("sandbox-20261101-120000-000.db", Duration.ofDays(30)); // another kind's

        List<Path> deleted = Leftovers.keepNewest(dir, Demo::isDemoDatabase, 2, clock);

        assertThat(deleted)
                .extracting(p -> p.getFileName().toString())
                .containsExactly(
                        "demo-20261101-120000.db",
                        "demo-20261102-120000.db",
                        "demo-20261103-120000.db",
                        "demo-20261104-120000.db");
        assertThat(names())
                .containsExactly(
                        "demo-20261105-120000.data",
                        "demo-20261105-120000.db",
                        "demo-20261105-120000.db-shm",
                        "demo-20261105-120000.db-wal",
                        "demo-20261106-120000.data",
                        "demo-20261106-120000.db",
                        "demo-20261106-120000.db-shm",
                        "demo-20261106-120000.db-wal",
                        "demo-by-hand.data",
                        "demo-by-hand.db",
                        "demo-by-hand.db-shm",
                        "demo-by-hand.db-wal",
                        "notes.txt",
                        "sandbox-20261101-120000-000.data",
                        "sandbox-20261101-120000-000.db",
                        "sandbox-20261101-120000-000.db-shm",
                        "sandbox-20261101-120000-000.db-wal");
    }

    @Test
    void aLedgerWrittenToInTheLastMinutesStaysHoweverOldItsName() throws IOException {
        ledger("demo-20260101-120000.db", Duration.ofDays(300));
        Path inUse = ledger("demo-20260102-120000.db", Duration.ofDays(300));
        Files.setLastModifiedTime(dir.resolve(inUse.getFileName() + "-wal"), FileTime.from(Instant.now()));
        ledger("demo-20260103-120000.db", Duration.ofDays(1));

        assertThat(Leftovers.keepNewest(dir, Demo::isDemoDatabase, 1, clock))
                .extracting(p -> p.getFileName().toString())
                .containsExactly("demo-20260101-120000.db");
        assertThat(dir.resolve("demo-20260102-120000.db")).exists();
        // the boundary: written just inside the window stays, just outside goes
        Path edge = ledger("demo-20250101-120000.db", Leftovers.IN_USE.minusSeconds(5));
        Path past = ledger("demo-20250102-120000.db", Leftovers.IN_USE.plusSeconds(5));
        Leftovers.keepNewest(dir, Demo::isDemoDatabase, 1, clock);
        assertThat(edge).exists();
        assertThat(past).doesNotExist();
    }

    @Test
    void aSymbolicLinkIsRemovedItselfAndWhatItPointsToStays() throws IOException {
        Path precious = Files.writeString(outside.resolve("precious.txt"), "keep me");
        Path victim = ledger("demo-20260101-120000.db", Duration.ofDays(3));
        Path data = dir.resolve("demo-20260101-120000.data");
        // its run folder replaced by a link to someone's folder, and a link inside pointing at a file
        Leftovers.deleteLedger(dir.resolve("nothing-here.db")); // a missing ledger is nothing to do
        try (Stream<Path> s = Files.walk(data)) {
            for (Path p : s.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
        Files.createSymbolicLink(data, outside);
        // a link named like a demo ledger, to a file elsewhere: not a ledger here, left alone
        Path linkedDb = Files.createSymbolicLink(dir.resolve("demo-20251231-120000.db"), precious);
        ledger("demo-20260105-120000.db", Duration.ofDays(1));

        Leftovers.keepNewest(dir, Demo::isDemoDatabase, 1, clock);

        assertThat(victim).doesNotExist();
        assertThat(data).doesNotExist(); // the link went
        assertThat(precious).hasContent("keep me"); // what it pointed to did not
        assertThat(outside.resolve("precious.txt")).exists();
        assertThat(linkedDb).isSymbolicLink();

        Path inner = ledger("demo-20260106-120000.db", Duration.ofDays(1));
        Files.createSymbolicLink(dir.resolve("demo-20260106-120000.data/runs/link"), outside);
        Leftovers.deleteLedger(inner);
        assertThat(precious).hasContent("keep me");
    }

    @Test
    void aSharedLabFolderMustBeTheUsersAlone() throws IOException {
        Path mine = Files.createDirectory(
                dir.resolve("mine"),
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        Leftovers.requireOwnFolder(mine); // fine

        Path open = Files.createDirectory(dir.resolve("open"));
        Files.setPosixFilePermissions(open, PosixFilePermissions.fromString("rwxrwxrwx"));
        assertThatThrownBy(() -> Leftovers.requireOwnFolder(open))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("may be written by others");
        assertThatThrownBy(() -> Lab.createSandbox(open)).hasMessageContaining("may be written by others");
        assertThat(names()).containsExactly("mine", "open"); // no sandbox was made in it

        Path link = Files.createSymbolicLink(dir.resolve("link"), mine);
        assertThatThrownBy(() -> Leftovers.requireOwnFolder(link)).hasMessageContaining("symbolic link");

        Path theirs = Files.createDirectory(dir.resolve("theirs"));
        UserPrincipal nobody;
        try {
            nobody = dir.getFileSystem().getUserPrincipalLookupService().lookupPrincipalByName("nobody");
            Files.setOwner(theirs, nobody);
        } catch (IOException notRootOrNoNobody) {
            Assumptions.abort("changing a folder's owner needs root and a user 'nobody'");
            return;
        }
        assertThatThrownBy(() -> Leftovers.requireOwnFolder(theirs)).hasMessageContaining("belongs to nobody");
    }

    @Test
    void aNewSandboxKeepsTheNewestFiveInItsFolder() throws IOException {
        Path lab = Files.createDirectory(
                dir.resolve("lab"), PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        for (int i = 1; i <= 7; i++) {
            Path old = Files.writeString(lab.resolve("sandbox-2026110" + i + "-120000-000.db"), "old");
            Files.setLastModifiedTime(old, FileTime.from(clock.instant().minus(Duration.ofDays(1))));
        }
        Path fresh = Lab.createSandbox(lab);
        try (Stream<Path> s = Files.list(lab)) {
            assertThat(s.filter(Lab::isSandbox)
                            .map(p -> p.getFileName().toString())
                            .sorted())
                    .hasSize(Lab.SANDBOXES_KEPT)
                    .contains(fresh.getFileName().toString())
                    .doesNotContain("sandbox-20261101-120000-000.db", "sandbox-20261103-120000-000.db");
        }
    }
}
