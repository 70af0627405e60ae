package dev.sovereign.engine.spi;

import dev.sovereign.engine.base.LedgerLocation;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * Every row of one ledger as one consistent snapshot, in a form no backend owns: table names, column
 * names and values that are {@code Long}, {@code Double}, {@code String} or {@code null}. A source backend
 * hands it to a target backend's {@link StorageBackend#copyInto}; neither sees the other's SQL. Valid only
 * inside the {@link StorageBackend#readAll} call that made it; not thread-safe.
 */
public interface LedgerRows {
    /** Where the rows come from, for sentences (redacted when it is a URL). */
    LedgerLocation location();

    /** The source's schema version. */
    int schemaVersion();

    /**
     * Every table of the ledger with its columns, in the order the schema created them; the backend's own
     * bookkeeping (SQLite's {@code sqlite_sequence}) is not listed.
     */
    Map<String, List<String>> tables();

    /**
     * Hands each row of {@code table} to {@code row}, values in the order of {@link #tables()}' columns, in
     * the order the rows were written.
     *
     * @throws dev.sovereign.engine.base.StorageException when the source cannot be read
     */
    void forEachRow(String table, Consumer<List<Object>> row);
}
