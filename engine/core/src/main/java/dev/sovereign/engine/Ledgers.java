package dev.sovereign.engine;

import dev.sovereign.engine.admin.AdminReader;
import dev.sovereign.engine.admin.OperatorActions;
import dev.sovereign.engine.base.EngineConfig;
import dev.sovereign.engine.base.LedgerLocation;
import dev.sovereign.engine.base.StorageException;
import dev.sovereign.engine.spi.Backends;
import java.nio.file.Path;
import java.time.Clock;
import java.time.ZoneId;

/**
 * Opens a ledger for operators — the read-only view and the actions the console uses — through the
 * backend that serves the database named. The admin API's interfaces name no implementation and no
 * factory: the facade package is the one place that wires them to the storage port (so the packages form
 * no circle).
 * Stateless and thread-safe.
 */
public final class Ledgers {
    private Ledgers() {}

    /** A read-only view of {@code database} with the system clock and time zone. */
    public static AdminReader openReader(Path database) {
        return openReader(database, Clock.systemUTC(), ZoneId.systemDefault());
    }

    /**
     * A read-only view of {@code database}; {@code clock} stamps snapshots, {@code zone} formats times in
     * sentences. Never writes, migrates or creates.
     *
     * @throws StorageException when the file is missing, not a Sovereign database, newer than this code,
     *                          corrupt or unreadable
     */
    public static AdminReader openReader(Path database, Clock clock, ZoneId zone) {
        Path file = database.toAbsolutePath().normalize();
        return openReader(file, EngineConfig.defaultDataDirectory(file), clock, zone);
    }

    /**
     * {@link #openReader(Path, Clock, ZoneId)} for an engine configured with its own data directory
     * ({@code EngineConfig.Builder.dataDirectory}): the receipts' output folders are derived from it.
     */
    public static AdminReader openReader(Path database, Path dataDirectory, Clock clock, ZoneId zone) {
        return openReader(LedgerLocation.file(database), dataDirectory, clock, zone);
    }

    /**
     * A read-only view of the ledger at {@code location} (a file or a server URL) whose receipts' folders are
     * the default data directory of that ledger on this host.
     */
    public static AdminReader openReader(LedgerLocation location, Clock clock, ZoneId zone) {
        return openReader(location, EngineConfig.defaultDataDirectory(location), clock, zone);
    }

    /** A read-only view of the ledger at {@code location} (a file or a server URL). */
    public static AdminReader openReader(LedgerLocation location, Path dataDirectory, Clock clock, ZoneId zone) {
        return Backends.forDatabase(location).openReader(location, dataDirectory, clock, zone);
    }

    /**
     * The operator's actions on an existing Sovereign database with the system clock. Never creates a file;
     * refuses a missing, foreign or newer one as {@link #openReader(Path)} does.
     *
     * @throws StorageException when the file cannot be used
     */
    public static OperatorActions openOperatorActions(Path database) {
        return openOperatorActions(database, Clock.systemUTC());
    }

    /** As {@link #openOperatorActions(Path)}, with the clock that stamps the writes (tests pass a settable one). */
    public static OperatorActions openOperatorActions(Path database, Clock clock) {
        return openOperatorActions(LedgerLocation.file(database), clock);
    }

    /**
     * The operator's actions on the existing ledger at {@code location} (a file or a server URL), through an
     * engine of kind {@code console}. On a server the engine stamps with the server's clock.
     */
    public static OperatorActions openOperatorActions(LedgerLocation location) {
        return openOperatorActions(location, Clock.systemUTC());
    }

    /** As {@link #openOperatorActions(LedgerLocation)}, with the clock that stamps a file's writes. */
    public static OperatorActions openOperatorActions(LedgerLocation location, Clock clock) {
        return EngineOperatorActions.open(location, clock);
    }
}
