package dev.sovereign.engine.spi;

import dev.sovereign.engine.base.LedgerLocation;
import dev.sovereign.engine.base.StorageException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.ServiceLoader;

/**
 * The storage backends on the class path, found once by {@link ServiceLoader}, and the choice among
 * them by the database a user named. Thread-safe.
 */
public final class Backends {
    private static volatile List<StorageBackend> found;

    private Backends() {}

    /** Every backend on the class path, in class-path order. */
    public static List<StorageBackend> all() {
        List<StorageBackend> f = found;
        if (f == null) {
            List<StorageBackend> list = new ArrayList<>();
            ServiceLoader.load(StorageBackend.class, Backends.class.getClassLoader())
                    .forEach(list::add);
            found = f = List.copyOf(list);
        }
        return f;
    }

    /**
     * The backend that serves {@code database}.
     *
     * @throws StorageException (problem {@code IO}) when none does: a sentence that names the database
     *     and the backends there are, so an embedder who forgot the backend's jar knows what to add
     */
    public static StorageBackend forDatabase(Path database) {
        return forDatabase(LedgerLocation.file(database));
    }

    /**
     * The backend that serves {@code location}: a file path or a server URL as the user named it.
     *
     * @throws StorageException (problem {@code IO}) when none does, as {@link #forDatabase(Path)}
     */
    public static StorageBackend forDatabase(LedgerLocation location) {
        for (StorageBackend b : all()) {
            if (b.accepts(location.text())) {
                requireDriver(b, location);
                return b;
            }
        }
        throw new StorageException(
                StorageException.Problem.IO,
                location.file().orElse(null),
                "No storage backend can open " + location
                        + (all().isEmpty()
                                ? ": none is on the class path (add sovereign-engine-sqlite)."
                                : ": the backends on the class path are "
                                        + all().stream()
                                                .map(StorageBackend::name)
                                                .toList() + "."),
                null);
    }

    /**
     * Refuses, in one sentence that names the jar, a backend whose JDBC driver is not on the class path: without this
     * the first open fails with a bare {@code NoClassDefFoundError} from somewhere inside the backend. Loads the
     * class without initialising it, with the backend's own class loader, before anything is opened.
     */
    private static void requireDriver(StorageBackend backend, LedgerLocation location) {
        Optional<StorageBackend.Driver> driver = backend.driver();
        if (driver.isEmpty()) {
            return;
        }
        try {
            Class.forName(driver.get().className(), false, backend.getClass().getClassLoader());
        } catch (ClassNotFoundException | LinkageError e) {
            throw new StorageException(
                    StorageException.Problem.IO,
                    location.file().orElse(null),
                    "Cannot open " + location + ": the " + backend.name()
                            + " backend needs its JDBC driver, the jar of "
                            + driver.get().artifact() + ", on the class path, and it is not there (no class "
                            + driver.get().className() + "); add it next to the backend's jar.",
                    e);
        }
    }
}
