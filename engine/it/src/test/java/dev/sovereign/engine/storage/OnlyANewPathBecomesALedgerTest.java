package dev.sovereign.engine.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.base.EngineConfig;
import dev.sovereign.engine.base.StorageException;
import dev.sovereign.engine.testing.RawSql;
import dev.sovereign.engine.testing.SettableClock;
import dev.sovereign.engine.testing.TempDatabase;
import dev.sovereign.engine.testing.Together;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * An empty file is not a ledger (issue 26 item 8, contract §16): an open that may create a ledger (init, the API's
 * {@code Engine.open}) and one that may not both refuse an empty (0-byte) file and an SQLite file with no ledger in
 * it, in one sentence, and leave it as it was; only a path where no file exists becomes a ledger, and it appears
 * there whole (built beside it, linked into place), so several processes opening a new path at once all open the
 * same, complete ledger.
 */
class OnlyANewPathBecomesALedgerTest {
    @RegisterExtension
    final TempDatabase temp = new TempDatabase();

    private final SettableClock clock = new SettableClock();

    private EngineConfig config(Path file) {
        return EngineConfig.forDatabase(file).clock(clock).heartbeat(false).build();
    }

    @Test
    void anEmptyFileIsRefusedByEveryOpenAndLeftAsItWas() throws Exception {
        Path empty = temp.dir().resolve("z.db");
        Files.createFile(empty);
        for (boolean create : new boolean[] {true, false}) {
            assertThatThrownBy(() -> (create ? Engine.open(config(empty)) : Engine.openExisting(config(empty))).close())
                    .isInstanceOfSatisfying(
                            StorageException.class,
                            x -> assertThat(x.problem()).isEqualTo(StorageException.Problem.NOT_OURS))
                    .hasMessageContaining("is empty (0 bytes)");
            assertThat(Files.size(empty)).isZero();
        }
        try (Stream<Path> files = Files.list(temp.dir())) {
            assertThat(files.map(p -> p.getFileName().toString())).containsExactly("z.db"); // no -wal, no leftovers
        }
    }

    @Test
    void anSqliteFileWithNoLedgerInItIsNotTurnedIntoOne() throws Exception {
        Path blank = temp.dir().resolve("blank.db");
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + blank);
                Statement s = c.createStatement()) {
            s.execute("PRAGMA user_version = 0");
            s.execute("VACUUM"); // a valid SQLite file with a header and nothing in it
        }
        long size = Files.size(blank);
        assertThat(size).isPositive();
        assertThatThrownBy(() -> Engine.open(config(blank)).close())
                .isInstanceOf(StorageException.class)
                .hasMessageContaining("no Sovereign ledger in it");
        assertThat(Files.size(blank)).isEqualTo(size);
        assertThat(new RawSql(blank).scalar("SELECT count(*) FROM sqlite_master"))
                .isZero();
    }

    @Test
    void processesOpeningANewPathAtOnceAllOpenOneWholeLedger() throws Exception {
        Path fresh = temp.dir().resolve("fresh.db");
        int n = 6;
        List<Supplier<Engine>> openers = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            openers.add(() -> Engine.open(config(fresh)));
        }
        ConcurrentLinkedQueue<Engine> opened = new ConcurrentLinkedQueue<>(Together.run(openers));
        try {
            assertThat(opened).hasSize(n);
            opened.peek().actors().add("a");
            for (Engine e : opened) {
                assertThat(e.actors().list()).hasSize(1); // the same file for everyone
            }
            assertThat(new RawSql(fresh).scalar("SELECT count(*) FROM ledger_mark"))
                    .isEqualTo(1);
        } finally {
            opened.forEach(Engine::close);
        }
        try (Stream<Path> files = Files.list(temp.dir())) {
            assertThat(files.map(p -> p.getFileName().toString())).noneMatch(name -> name.contains(".creating-"));
        }
    }
}
