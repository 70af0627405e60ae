package dev.sovereign.engine.internal.sqlite;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.base.Durability;
import dev.sovereign.engine.lease.Lease;
import dev.sovereign.engine.testing.SettableClock;
import dev.sovereign.engine.testing.Sqlite;
import dev.sovereign.engine.testing.TempDatabase;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
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
        commitTo(engine, 2L * BackgroundCheckpoints.COMMITS_PER_CHECKPOINT);
        Path shm = Path.of(db.file() + "-shm");
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        WalIndex index = WalIndex.read(shm);
        // the last pass was asked for by the last commit: once it ran, every committed frame is in the file
        while (index.backfilled() < index.frames() && System.nanoTime() < deadline) {
            java.util.concurrent.locks.LockSupport.parkNanos(1_000_000);
            index = WalIndex.read(shm);
        }
        assertThat(index.frames())
                .as("the writers' own checkpoint (at 1,000 pages) was not due: the log still holds every frame")
                .isBetween(1L, 999L);
        assertThat(index.backfilled()).as("frames copied into the file").isEqualTo(index.frames());
        assertThat(db.backgroundCheckpoints().passes()).isPositive();
        assertThat((Throwable) db.backgroundCheckpoints().failure()).isNull();
    }

    @Test
    void aPausedEngineAndAShortLivedOneStartNoThread() throws Exception {
        Engine shortLived = open();
        Database db = Sqlite.database(shortLived);
        cycle(shortLived);
        assertThat(db.batchesCommitted()).isLessThan(BackgroundCheckpoints.COMMITS_PER_CHECKPOINT);
        assertThat(db.backgroundCheckpoints().started()).isFalse();

        db.backgroundCheckpoints().pause(true);
        commitTo(shortLived, 2L * BackgroundCheckpoints.COMMITS_PER_CHECKPOINT);
        assertThat(db.backgroundCheckpoints().started()).isFalse();
        WalIndex index = WalIndex.read(Path.of(db.file() + "-shm"));
        assertThat(index.frames()).isPositive();
        assertThat(index.backfilled())
                .as("no pass ran, and no writer's checkpoint was due")
                .isZero();
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
        long frames = Files.size(wal) / (pageSize + 24);
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

    /**
     * The two numbers of SQLite's WAL index (the {@code -shm} file, https://sqlite.org/walformat.html) this test
     * reads: the frames in the log ({@code mxFrame}, byte 16 of the header) and how many of them a checkpoint
     * copied into the database file ({@code nBackfill}, byte 96), both in the machine's byte order.
     */
    record WalIndex(long frames, long backfilled) {
        static WalIndex read(Path shm) throws Exception {
            ByteBuffer b = ByteBuffer.allocate(100).order(ByteOrder.nativeOrder());
            try (FileChannel ch = FileChannel.open(shm, StandardOpenOption.READ)) {
                while (b.hasRemaining() && ch.read(b) >= 0) {
                    // read the first 100 bytes
                }
            }
            return new WalIndex(Integer.toUnsignedLong(b.getInt(16)), Integer.toUnsignedLong(b.getInt(96)));
        }
    }
}
