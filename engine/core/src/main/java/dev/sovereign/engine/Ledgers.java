package dev.sovereign.engine;

import dev.sovereign.engine.admin.AdminReader;
import dev.sovereign.engine.admin.OperatorActions;
import dev.sovereign.engine.internal.run.EngineOperatorActions;
import dev.sovereign.engine.spi.Backends;
import java.nio.file.Path;
import java.time.Clock;
import java.time.ZoneId;

/**
 * Opens a ledger for operators — the read-only view and the actions the console uses — through the
 * backend that serves the database named. The admin API's own factories ({@link AdminReader#open},
 * {@link OperatorActions#open}) delegate here, so no interface names its implementation and the admin
 * API never names the storage port beneath it: the facade package is the one place that wires them.
 * Stateless and thread-safe.
 */
public final class Ledgers {
    private Ledgers() {
    }

    /** A read-only view of {@code database}; see {@link AdminReader#open(Path, Path, Clock, ZoneId)}. */
    public static AdminReader openReader(Path database, Path dataDirectory, Clock clock, ZoneId zone) {
        return openReader(LedgerLocation.file(database), dataDirectory, clock, zone);
    }

    /** A read-only view of the ledger at {@code location} (a file or a server URL). */
    public static AdminReader openReader(LedgerLocation location, Path dataDirectory, Clock clock, ZoneId zone) {
        return Backends.forDatabase(location).openReader(location, dataDirectory, clock, zone);
    }

    /** The operator's actions on an existing {@code database}; see {@link OperatorActions#open(Path, Clock)}. */
    public static OperatorActions openOperatorActions(Path database, Clock clock) {
        return EngineOperatorActions.open(database, clock);
    }
}
