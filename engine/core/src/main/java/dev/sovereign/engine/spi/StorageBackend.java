package dev.sovereign.engine.spi;

import dev.sovereign.engine.admin.AdminReader;
import dev.sovereign.engine.base.EngineConfig;
import dev.sovereign.engine.base.LedgerLocation;
import dev.sovereign.engine.spi.tools.LedgerBackups;
import dev.sovereign.engine.spi.tools.LedgerCopyRefusal;
import dev.sovereign.engine.spi.tools.LedgerCopyReport;
import java.nio.file.Path;
import java.time.Clock;
import java.time.ZoneId;
import java.util.Optional;
import java.util.function.Function;

/**
 * A storage backend: an adapter that turns the engine's contract into one kind of database's SQL.
 * Found by {@link java.util.ServiceLoader} (a {@code META-INF/services/dev.sovereign.engine.spi.StorageBackend}
 * entry in the backend's jar) and chosen by what the user named as the database: a file path for the
 * embedded SQLite backend, a {@code jdbc:postgresql:} URL for a server backend. A new backend is a new
 * module that implements this and passes the contract suite; nothing in the core names it.
 *
 * <p>Implementations are stateless and thread-safe.
 */
public interface StorageBackend {
    /** A short name for messages and docs, e.g. {@code sqlite}. */
    String name();

    /**
     * The JDBC driver this backend loads, or empty when it needs none. A backend's jar on the class path without its
     * driver's jar would otherwise fail deep inside its first open with a bare {@code NoClassDefFoundError}; the core
     * looks for this class first and names the missing jar in one sentence ({@link Backends#forDatabase}).
     */
    default Optional<Driver> driver() {
        return Optional.empty();
    }

    /**
     * A JDBC driver as an embedder sees it: {@code className} is the class the core looks for, {@code artifact} the
     * Maven coordinates ({@code group:artifact}) of the jar that carries it.
     */
    record Driver(String className, String artifact) {}

    /**
     * The latest schema version this backend writes and understands: what it migrates a database to,
     * and the newest one it opens (a newer file is refused: schema versions are forward-only).
     */
    int schemaVersion();

    /**
     * Whether this backend serves {@code database} as the user named it: an absolute file path, or a URL
     * verbatim ({@link LedgerLocation#text()}).
     */
    boolean accepts(String database);

    /**
     * Opens (creating and migrating when allowed) the ledger named by {@code config}, registers this
     * process in it and returns it.
     *
     * @throws dev.sovereign.engine.base.StorageException when the database is missing (and may not be
     *     created), not ours, newer than this code, corrupt, changed by hand, or unreachable
     */
    Ledger open(EngineConfig config, Grants grants, boolean createIfMissing);

    /**
     * Opens a read-only view for operators (the console's door): never writes, migrates or creates.
     *
     * @throws dev.sovereign.engine.base.StorageException as {@link dev.sovereign.engine.Ledgers#openReader(java.nio.file.Path, Clock, ZoneId)} says
     */
    AdminReader openReader(LedgerLocation location, Path dataDirectory, Clock clock, ZoneId zone);

    /**
     * Reads every row of the ledger at {@code location} as one consistent snapshot (one read transaction) and
     * hands it to {@code body}; never writes, migrates or creates. A backend that cannot be a copy's source
     * refuses.
     *
     * @throws LedgerCopyRefusal when the ledger cannot be a copy's source (not ours, newer, a sandbox...)
     * @throws dev.sovereign.engine.base.StorageException when it cannot be read
     */
    default <T> T readAll(LedgerLocation location, Function<LedgerRows, T> body) {
        throw new LedgerCopyRefusal(
                "unsupported_source",
                "A " + name() + " ledger (" + location + ") cannot be the source of a copy; copy from a SQLite file.");
    }

    /**
     * Like {@link #readAll}, for a copy that MOVES the ledger (decision 0915): holds the ledger's write lock from
     * before the snapshot is read until after {@code copy} returned (so nothing is written to it that the copy
     * would miss), then retires it in the same step, so that it takes no more writes. The returned report says
     * whether the retirement committed. A backend that cannot be a copy's source refuses.
     *
     * @throws LedgerCopyRefusal when the ledger cannot be a copy's source (not ours, newer, a sandbox, retired...)
     * @throws dev.sovereign.engine.base.StorageException when it cannot be read or locked (nothing was copied)
     */
    default LedgerCopyReport moveFrom(
            LedgerLocation location, LedgerLocation movedTo, Function<LedgerRows, LedgerCopyReport> copy) {
        throw new LedgerCopyRefusal(
                "unsupported_source",
                "A " + name() + " ledger (" + location + ") cannot be the source of a copy; copy from a SQLite file.");
    }

    /**
     * Makes the ledger at {@code target} ready to take a copy, before the source is read or locked (decision 0927):
     * creates its schema when the database has none, or checks the one it has, so that a move holds the source's
     * write lock only while rows are copied. {@link #copyInto} still checks. A backend that cannot be a copy's
     * target refuses.
     *
     * @throws LedgerCopyRefusal when the target cannot take a copy (an older schema, not a target backend)
     * @throws dev.sovereign.engine.base.StorageException when the target cannot be written
     */
    default void prepareCopyTarget(LedgerLocation target) {
        throw unsupportedTarget(target);
    }

    /**
     * Copies every row of {@code source} into the empty ledger at {@code target} (creating its schema when the
     * database has none) in ONE transaction: it commits whole or leaves the target without a copied row. Every token and
     * the whole journal are kept; every counter is raised past the highest copied value.
     *
     * @throws LedgerCopyRefusal when the target is not empty or the source holds what the target would not keep
     * @throws dev.sovereign.engine.base.StorageException when the target cannot be written
     */
    default LedgerCopyReport copyInto(LedgerLocation target, LedgerRows source) {
        throw unsupportedTarget(target);
    }

    private LedgerCopyRefusal unsupportedTarget(LedgerLocation target) {
        return new LedgerCopyRefusal(
                "unsupported_target",
                "A " + name() + " ledger (" + target
                        + ") cannot be the target of a copy; copy to a jdbc:postgresql: URL.");
    }

    /**
     * {@code sovereign backup}: a consistent copy of the ledger at {@code ledger} in the new file {@code copy}, taken
     * while workers may be writing, that records in itself when and at which token it was taken (decision 0604).
     *
     * @throws LedgerCopyRefusal when this backend has no backup of its own, or {@code copy} exists
     */
    default LedgerBackups.Backup backup(LedgerLocation ledger, Path copy, Clock clock) {
        throw new LedgerCopyRefusal(
                "unsupported_backup",
                "A " + name() + " ledger (" + ledger + ") is backed up with"
                        + " its own tools, not 'sovereign backup'.");
    }

    /**
     * {@code sovereign restore}: puts the backup file {@code backup} in place at {@code target} in a new epoch, so
     * that no token is ever issued twice (decision 0604).
     *
     * @throws LedgerCopyRefusal when this backend restores with its own tools, or the target cannot be replaced
     */
    default LedgerBackups.Restore restore(Path backup, LedgerLocation target, long aboveEpoch, Clock clock) {
        throw new LedgerCopyRefusal(
                "unsupported_restore",
                "A " + name() + " ledger (" + target + ") is restored with"
                        + " its own tools, then 'sovereign fence bump'.");
    }
}
