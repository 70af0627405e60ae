package dev.sovereign.engine.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assumptions.assumeThat;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.base.Durability;
import dev.sovereign.engine.base.EngineConfig;
import dev.sovereign.engine.base.StorageException;
import dev.sovereign.engine.base.StorageException.Problem;
import dev.sovereign.engine.internal.sqlite.SqliteBackend;
import dev.sovereign.engine.testing.ChildJvm;
import dev.sovereign.engine.testing.SettableClock;
import dev.sovereign.engine.testing.TempDatabase;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Files that are not ours, too new, corrupt, missing, read-only or locked: each its own clear error. */
class StorageRefusalTest {
    @RegisterExtension
    final TempDatabase temp = new TempDatabase();

    private final SettableClock clock = new SettableClock();

    private void expect(Problem problem, String sentencePart) {
        assertThatThrownBy(() -> temp.open(clock)).isInstanceOfSatisfying(StorageException.class, e -> {
            assertThat(e.problem()).isEqualTo(problem);
            assertThat(e.getMessage())
                    .contains(temp.file().toString())
                    .contains(sentencePart)
                    .doesNotContain("\n");
        });
    }

    @Test
    void aFreshFileIsMarkedAsOursAndStampedWithItsSchemaVersion() throws Exception {
        temp.open(clock).close();
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + temp.file());
                Statement s = c.createStatement()) {
            assertThat(s.executeQuery("PRAGMA application_id").getInt(1)).isEqualTo(0x534F5652);
            assertThat(s.executeQuery("PRAGMA user_version").getInt(1)).isEqualTo(new SqliteBackend().schemaVersion());
            assertThat(s.executeQuery("PRAGMA journal_mode").getString(1)).isEqualTo("wal");
        }
    }

    @Test
    void theDefaultDurabilityIsSynchronousFull() {
        assertThat(EngineConfig.forDatabase(temp.file()).build().durability()).isEqualTo(Durability.FULL);
    }

    @Test
    void aTextFileIsRefusedAsNotOurs() throws Exception {
        Files.writeString(temp.file(), "these are somebody's notes, not a database\n".repeat(100));
        expect(Problem.NOT_OURS, "not a Sovereign database");
        assertThat(Files.readString(temp.file())).startsWith("these are somebody's notes");
    }

    @Test
    void anotherApplicationsSqliteFileIsRefusedAndLeftUntouched() throws Exception {
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + temp.file());
                Statement s = c.createStatement()) {
            s.execute("CREATE TABLE invoices (id INTEGER PRIMARY KEY)");
        }
        long before = Files.size(temp.file());
        expect(Problem.NOT_OURS, "did not create");
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + temp.file());
                Statement s = c.createStatement()) {
            assertThat(s.executeQuery("PRAGMA user_version").getInt(1)).isZero();
            assertThat(s.executeQuery("SELECT count(*) FROM sqlite_master").getInt(1))
                    .isEqualTo(1);
        }
        assertThat(Files.size(temp.file())).isEqualTo(before);
    }

    @Test
    void aFileWithAnotherApplicationIdIsRefused() throws Exception {
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + temp.file());
                Statement s = c.createStatement()) {
            s.execute("PRAGMA application_id = 42");
        }
        expect(Problem.NOT_OURS, "another application");
    }

    @Test
    void aSchemaNewerThanTheCodeIsRefusedNotDowngraded() throws Exception {
        temp.open(clock).close();
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + temp.file());
                Statement s = c.createStatement()) {
            s.execute("PRAGMA user_version = 99");
        }
        expect(Problem.SCHEMA_TOO_NEW, "schema version 99");
    }

    @Test
    void aCorruptFileIsACorruptionError() throws Exception {
        temp.open(clock).close();
        // Keep the SQLite header, destroy the pages after it.
        byte[] bytes = Files.readAllBytes(temp.file());
        for (int i = 100; i < bytes.length; i++) {
            bytes[i] = (byte) 0xA5;
        }
        Files.write(temp.file(), bytes);
        Files.deleteIfExists(Path.of(temp.file() + "-wal"));
        Files.deleteIfExists(Path.of(temp.file() + "-shm"));
        assertThatThrownBy(() -> temp.open(clock)).isInstanceOfSatisfying(StorageException.class, e -> {
            assertThat(e.problem()).isIn(Problem.CORRUPT, Problem.NOT_OURS);
            assertThat(e.getMessage()).contains(temp.file().toString());
        });
    }

    @Test
    void aMissingDirectoryIsNamed() {
        Path missing = temp.dir().resolve("no-such-dir").resolve("x.db");
        assertThatThrownBy(() -> Engine.open(
                        EngineConfig.forDatabase(missing).heartbeat(false).build()))
                .isInstanceOfSatisfying(StorageException.class, e -> {
                    assertThat(e.problem()).isEqualTo(Problem.MISSING_DIRECTORY);
                    assertThat(e.getMessage()).contains("no-such-dir").contains("does not exist");
                });
        assertThat(missing.getParent()).doesNotExist();
    }

    @Test
    void openingAnExistingDatabaseDoesNotCreateAMissingOne() {
        assertThatThrownBy(() -> Engine.openExisting(temp.config(clock).build()))
                .isInstanceOfSatisfying(
                        StorageException.class, e -> assertThat(e.problem()).isEqualTo(Problem.MISSING_FILE));
        assertThat(temp.file()).doesNotExist();
    }

    @Test
    void aReadOnlyFileIsRefusedForWriting() throws Exception {
        temp.open(clock).close();
        Path f = temp.file();
        assertThat(f.toFile().setWritable(false, false)).isTrue();
        boolean immutable = false;
        try {
            if (Files.isWritable(f)) {
                // root ignores permission bits; make the file immutable instead where we can
                Process p = new ProcessBuilder("chattr", "+i", f.toString()).start();
                immutable = p.waitFor(10, TimeUnit.SECONDS) && p.exitValue() == 0;
            }
            assumeThat(Files.isWritable(f))
                    .as("the file could be made read-only for this user")
                    .isFalse();
            expect(Problem.READ_ONLY, "read-only");
        } finally {
            if (immutable) {
                new ProcessBuilder("chattr", "-i", f.toString()).start().waitFor(10, TimeUnit.SECONDS);
            }
            f.toFile().setWritable(true, false);
        }
    }

    @Test
    void aDatabaseLockedByAnotherProcessPastTheBoundIsABusyErrorNamingTheFile() throws Exception {
        Engine engine =
                temp.open(temp.config(clock).busyBound(Duration.ofMillis(300)).build());
        Path stop = temp.dir().resolve("stop");
        Path log = temp.dir().resolve("locker.log");
        Process locker = ChildJvm.start(LockHolder.class, log, temp.file().toString(), stop.toString());
        try {
            ChildJvm.awaitLine(log, "LOCKED", Duration.ofSeconds(60));
            long start = System.nanoTime();
            assertThatThrownBy(() -> engine.actors().add("operator"))
                    .isInstanceOfSatisfying(StorageException.class, e -> {
                        assertThat(e.problem()).isEqualTo(Problem.BUSY);
                        assertThat(e.getMessage())
                                .contains(temp.file().toString())
                                .contains("locked");
                    });
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
        } finally {
            Files.createFile(stop);
            assertThat(locker.waitFor(30, TimeUnit.SECONDS)).isTrue();
            ChildJvm.destroy(locker);
        }
        // once the lock is gone, the same engine works again
        assertThat(engine.actors().add("operator").id()).isEqualTo("operator");
    }
}
