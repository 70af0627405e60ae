package dev.sovereign.engine.internal.sqlite;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.base.Durability;
import dev.sovereign.engine.lease.Lease;
import dev.sovereign.engine.testing.Poll;
import dev.sovereign.engine.testing.SettableClock;
import dev.sovereign.engine.testing.Sqlite;
import dev.sovereign.engine.testing.TempDatabase;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The engine's background checkpoints (decision 0513): they copy committed pages into the file between the callers'
 * commits, they never replace the writers' own automatic checkpoint (without which one thread writing without a pause
 * grows the log without bound), a short-lived engine starts no thread, and closing the engine closes their connection.
 */
class BackgroundCheckpointsTest {
    private static final Duration TTL = Duration.ofSeconds(30);

    @RegisterExtension
    final TempDatabase temp = new TempDatabase();

    private Engine open() {
        Engine engine = temp.open(
                temp.config(new SettableClock()).durability(Durability.NORMAL).build());
        engine.actors().add("cycled");
        return engine;
    }

    private static void cycle(Engine engine) {
        Lease l = engine.leases().acquire("cycled", TTL);
        engine.leases().release("cycled", l.token());
    }

    /** Commits until a multiple of the passes' interval, at least {@code atLeast} write transactions in all. */
    private static void commitTo(Engine engine, long atLeast) {
        Database db = Sqlite.database(engine);
        while (db.batchesCommitted() < atLeast
                || db.batchesCommitted() % BackgroundCheckpoints.COMMITS_PER_CHECKPOINT != 0) {
            if (db.batchesCommitted() % BackgroundCheckpoints.COMMITS_PER_CHECKPOINT
                    == BackgroundCheckpoints.COMMITS_PER_CHECKPOINT - 1) {
                engine.actors().add("one-more-" + db.batchesCommitted()); // one write transaction
            } else {
                cycle(engine);
            }
        }
    }

    @Test
    void aPassCopiesTheCommittedPagesIntoTheFileBeforeTheWritersOwnCheckpointIsDue() throws Exception {
        Engine engine = open();
        Database db = Sqlite.database(engine);
        cycle(engine);
        long fileBefore = Files.size(db.file());
        commitTo(engine, 3L * BackgroundCheckpoints.COMMITS_PER_CHECKPOINT);
        // the file grows only when a checkpoint copies the journal's new pages into it; the writers' own (at 1,000
        // pages) is not due: the log has never started again, so its size is every frame written since the open
        Poll.until(() -> size(db.file()) > fileBefore, Duration.ofSeconds(20), () -> "a pass");
        assertThat(frames(db)).as("frames in the log").isBetween(1L, 999L);
        assertThat(db.backgroundCheckpoints().passes()).isPositive();
        assertThat(db.backgroundCheckpoints().failure()).isNull();
    }

    @Test
    void aPausedEngineAndAShortLivedOneStartNoThread() throws Exception {
        Engine shortLived = open();
        Database db = Sqlite.database(shortLived);
        cycle(shortLived);
        assertThat(db.batchesCommitted()).isLessThan(BackgroundCheckpoints.COMMITS_PER_CHECKPOINT);
        assertThat(db.backgroundCheckpoints().started()).isFalse();

        db.backgroundCheckpoints().pause(true);
        long fileBefore = Files.size(db.file());
        commitTo(shortLived, 3L * BackgroundCheckpoints.COMMITS_PER_CHECKPOINT);
        assertThat(db.backgroundCheckpoints().started()).isFalse();
        assertThat(frames(db)).isBetween(1L, 999L);
        assertThat(Files.size(db.file()))
                .as("no pass ran, and no writer's checkpoint was due")
                .isEqualTo(fileBefore);
    }

    @Test
    void aLedgerMovedAwayIsNeitherFollowedNorCreatedAgainAtItsPath() throws Exception {
        Engine engine = open();
        Database db = Sqlite.database(engine);
        cycle(engine);
        Path aside = db.file().resolveSibling("moved-away.db");
        Files.move(db.file(), aside);
        commitTo(engine, 2L * BackgroundCheckpoints.COMMITS_PER_CHECKPOINT); // the engine writes on: it holds the file

        assertThat(db.file())
                .as("an empty file at the ledger's path (contract §16)")
                .doesNotExist();
        Poll.until(() -> db.backgroundCheckpoints().failure() != null, Duration.ofSeconds(20), () -> "the refusal");
        assertThat(db.backgroundCheckpoints().failure()).hasMessageContaining("is gone");
        assertThat(db.backgroundCheckpoints().passes()).isZero();
        assertThat(db.file()).doesNotExist();
    }

    @Test
    void aLedgerReplacedAtItsPathIsNotTheOneCheckpointed() throws Exception {
        Engine engine = open();
        Database db = Sqlite.database(engine);
        cycle(engine);
        Path aside = db.file().resolveSibling("moved-away.db");
        Files.move(db.file(), aside);
        Files.copy(aside, db.file()); // another file (another inode) under the ledger's name
        long replacement = Files.size(db.file());
        commitTo(engine, 2L * BackgroundCheckpoints.COMMITS_PER_CHECKPOINT);

        Poll.until(() -> db.backgroundCheckpoints().failure() != null, Duration.ofSeconds(20), () -> "the refusal");
        assertThat(db.backgroundCheckpoints().failure()).hasMessageContaining("no longer the file the engine opened");
        assertThat(db.backgroundCheckpoints().passes()).isZero();
        assertThat(Files.size(db.file())).as("the replacement untouched").isEqualTo(replacement);
    }

    @Test
    void theLogStaysBoundedWhileOneThreadWritesWithoutAPause() throws Exception {
        Engine engine = open();
        Database db = Sqlite.database(engine);
        Path wal = Path.of(db.file() + "-wal");
        long pageSize = db.read(tx -> tx.scalarLong("PRAGMA page_size"));
        // about 50,000 pages: 50 times the writers' automatic checkpoint. The log may pass 1,000 pages by what the
        // writer commits while a pass runs (the writer's own checkpoint then finds it busy and tries again at the
        // next commit); without the writer's own checkpoint it holds every frame
        int cycles = 6_000;
        for (int i = 0; i < cycles; i++) {
            cycle(engine);
        }
        assertThat(db.backgroundCheckpoints().passes()).isPositive();
        // the file keeps the largest size the log ever reached; each frame is a page and a 24-byte header
        long frames = frames(db);
        assertThat(frames)
                .as("the log's largest size in frames, after %d acquire + release cycles", cycles)
                .isLessThan(16_000);
        System.out.printf(
                "the log's largest size: %d frames after %d cycles, %d passes%n",
                frames, cycles, db.backgroundCheckpoints().passes());
    }

    @Test
    void closingTheEngineClosesTheirConnectionSoTheLastCloseRemovesTheLog() throws Exception {
        Engine engine = open();
        Database db = Sqlite.database(engine);
        commitTo(engine, 2L * BackgroundCheckpoints.COMMITS_PER_CHECKPOINT);
        assertThat(db.backgroundCheckpoints().started()).isTrue();
        Path wal = Path.of(db.file() + "-wal");
        assertThat(wal).exists();
        engine.close();
        assertThat(Thread.getAllStackTraces().keySet())
                .noneMatch(t -> t.getName().startsWith("sovereign-checkpoints ") && t.isAlive());
        // SQLite removes the log when the file's last connection in any process closes
        assertThat(wal).doesNotExist();
    }

    /** Frames the log holds: its file's size, while nothing has started it again, is every frame written. */
    private static long frames(Database db) throws Exception {
        long pageSize = db.read(tx -> tx.scalarLong("PRAGMA page_size"));
        return Files.size(Path.of(db.file() + "-wal")) / (pageSize + 24);
    }

    private static long size(Path file) {
        try {
            return Files.size(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
