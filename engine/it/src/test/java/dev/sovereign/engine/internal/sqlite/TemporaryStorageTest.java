package dev.sovereign.engine.internal.sqlite;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.run.AssignmentState;
import dev.sovereign.engine.testing.SettableClock;
import dev.sovereign.engine.testing.Sqlite;
import dev.sovereign.engine.testing.TempDatabase;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardWatchEventKinds;
import java.nio.file.WatchEvent;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A run's write transactions make no temporary file (decision 0510): each write is a {@code SAVEPOINT} inside
 * the group commit's transaction, and SQLite's statement journal of a write that changes more than 64 KiB
 * of pages spilled into a file of its temporary directory, created and unlinked in every such transaction.
 */
class TemporaryStorageTest {
    @RegisterExtension
    final TempDatabase temp = new TempDatabase();

    @Test
    void theEnginesConnectionKeepsTemporaryStorageInMemoryAlsoOnAnExistingFile() {
        Engine first = temp.open(new SettableClock());
        assertThat(tempStore(first)).isEqualTo(2L); // 2 = MEMORY
        first.close();
        Engine again = temp.open(new SettableClock());
        assertThat(tempStore(again)).isEqualTo(2L);
    }

    /**
     * Watches a directory made SQLite's temporary directory for this test (inotify sees a file even when it
     * is unlinked right after its creation, as SQLite does) while runs write their transactions.
     */
    @Test
    void runsCreateNoTemporaryFile() throws Exception {
        Engine engine = temp.open(new SettableClock());
        engine.actors().add("runner");
        Path tmp = Files.createDirectory(temp.dir().resolve("sqlite-tmp"));
        // process-wide in SQLite (sqlite3_temp_directory): set for this test only, cleared in finally
        Sqlite.database(engine).read(tx -> tx.update("PRAGMA temp_store_directory = '" + tmp + "'"));
        try (WatchService watch = FileSystems.getDefault().newWatchService()) {
            WatchKey key = tmp.register(watch, StandardWatchEventKinds.ENTRY_CREATE);
            for (int i = 0; i < 5; i++) {
                String id = engine.runs()
                        .assign("runner", "scripted:ms=0,outcome=completed")
                        .id();
                assertThat(engine.runs().runAssignment(id).assignment().state()).isEqualTo(AssignmentState.COMPLETED);
            }
            // a marker file of our own: once its event arrived, every earlier create has been delivered too
            Files.createFile(tmp.resolve("marker"));
            List<String> created = new ArrayList<>();
            boolean markerSeen = false;
            while (!markerSeen) {
                WatchKey k = watch.poll(10, TimeUnit.SECONDS);
                assertThat(k)
                        .as("the watch service delivered the marker's event")
                        .isNotNull();
                for (WatchEvent<?> e : k.pollEvents()) {
                    String name = String.valueOf(e.context());
                    markerSeen |= name.equals("marker");
                    if (!name.equals("marker")) {
                        created.add(name);
                    }
                }
                k.reset();
            }
            assertThat(created)
                    .as("temporary files SQLite created during the runs")
                    .isEmpty();
            key.cancel();
        } finally {
            Sqlite.database(engine).read(tx -> tx.update("PRAGMA temp_store_directory = ''"));
        }
    }

    private static long tempStore(Engine engine) {
        return Sqlite.database(engine).read(tx -> tx.scalarLong("PRAGMA temp_store"));
    }
}
