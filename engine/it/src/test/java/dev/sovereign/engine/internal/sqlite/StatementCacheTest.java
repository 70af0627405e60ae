package dev.sovereign.engine.internal.sqlite;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.base.StorageException;
import dev.sovereign.engine.testing.SettableClock;
import dev.sovereign.engine.testing.Sqlite;
import dev.sovereign.engine.testing.TempDatabase;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.sqlite.SQLiteConnection;

/** The engine's kept prepared statements must behave exactly like freshly prepared ones. */
class StatementCacheTest {
    @RegisterExtension
    final TempDatabase temp = new TempDatabase();

    @Test
    void aStatementUsedInsideItsOwnResultMappingGetsItsOwnCopy() {
        Engine engine = temp.open(new SettableClock());
        engine.actors().add("a");
        engine.actors().add("b");
        String sql = "SELECT id FROM actors WHERE id >= ? ORDER BY id";
        List<String> pairs = Sqlite.database(engine)
                .read(tx -> tx.query(
                        sql,
                        rs -> rs.getString(1) + "->" + tx.query(sql, inner -> inner.getString(1), rs.getString(1)),
                        "a"));
        assertThat(pairs).containsExactly("a->[a, b]", "b->[b]");
        // and the kept statement still works afterwards
        List<String> again = Sqlite.database(engine).read(tx -> tx.query(sql, rs -> rs.getString(1), "b"));
        assertThat(again).containsExactly("b");
    }

    @Test
    void aStatementThatFailedIsNotReusedAndTheSameSqlWorksAgain() {
        Engine engine = temp.open(new SettableClock());
        String insert = "INSERT INTO actors (id, workspace_policy, created_at) VALUES (?, 'temporary', 0)";
        Sqlite.database(engine).write(tx -> tx.update(insert, "dup"));
        assertThatThrownBy(() -> Sqlite.database(engine).write(tx -> tx.update(insert, "dup")))
                .isInstanceOf(StorageException.class);
        int inserted = Sqlite.database(engine).write(tx -> tx.update(insert, "other"));
        assertThat(inserted).isEqualTo(1);
        assertThat(engine.actors().list()).extracting(a -> a.id()).containsExactly("dup", "other");
    }

    @Test
    void aRolledBackTransactionLeavesKeptStatementsUsable() {
        Engine engine = temp.open(new SettableClock());
        engine.actors().add("kept");
        assertThatThrownBy(() -> Sqlite.database(engine).write(tx -> {
                    tx.update("UPDATE actors SET created_at = 1 WHERE id = ?", "kept");
                    throw new IllegalStateException("boom");
                }))
                .hasMessage("boom");
        long createdAt =
                Sqlite.database(engine).read(tx -> tx.scalarLong("SELECT created_at FROM actors WHERE id = ?", "kept"));
        assertThat(createdAt).isNotEqualTo(1L);
        int updated =
                Sqlite.database(engine).write(tx -> tx.update("UPDATE actors SET created_at = 1 WHERE id = ?", "kept"));
        assertThat(updated).isEqualTo(1);
    }

    /**
     * The driver's default runs a hidden {@code SELECT last_insert_rowid()}, compiled anew, after every INSERT for
     * {@code getGeneratedKeys()}, which the engine never calls: off on the engine's own connection and on the readers'
     * (every one made by {@code Database.connect}). About 3 µs per INSERT (bench/analysis.md, 2026-12-05).
     */
    @Test
    void noConnectionOfTheEngineRunsTheDriversHiddenQueryAfterAnInsert() throws Exception {
        Engine engine = temp.open(new SettableClock());
        Database db = Sqlite.database(engine);
        assertThat(generatedKeys(db.connection())).isFalse();
        try (Connection reader = db.openReaderConnection()) {
            assertThat(generatedKeys(reader)).isFalse();
        }
    }

    private static boolean generatedKeys(Connection c) throws SQLException {
        return c.unwrap(SQLiteConnection.class).getConnectionConfig().isGetGeneratedKeys();
    }
}
