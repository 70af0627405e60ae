package dev.sovereign.console.shell;

import dev.sovereign.engine.admin.AdminReader;
import dev.sovereign.engine.base.LedgerLocation;
import dev.sovereign.engine.base.StorageException;
import java.nio.file.Path;
import java.time.ZoneId;

/**
 * Opens a reader on a ledger for {@link LedgerAttachment}; the app uses {@code Ledgers.openReader}, tests may count
 * calls. {@link LedgerOpener} is the name the app and the tests know it by.
 */
@FunctionalInterface
public interface LedgerOpener {
    AdminReader open(Path database);

    /** Opens a reader whose sentences write times in {@code zone}; by default the same as {@link #open(Path)}. */
    default AdminReader open(Path database, ZoneId zone) {
        return open(database);
    }

    /**
     * Opens a reader on a file or a server; by default a file through {@link #open(Path, ZoneId)} and a server
     * refused (the app's opener reads servers through {@code Ledgers.openReader(LedgerLocation, …)}).
     */
    default AdminReader open(LedgerLocation location, ZoneId zone) {
        return open(
                location.file()
                        .orElseThrow(() -> new StorageException(
                                StorageException.Problem.IO,
                                null,
                                "This console cannot read a server (" + location + ").",
                                null)),
                zone);
    }
}
