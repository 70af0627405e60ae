package dev.sovereign.engine.testing;

import dev.sovereign.engine.base.LedgerLocation;
import java.nio.file.Path;
import java.util.ServiceLoader;

/**
 * Supplies the contract suite with fresh, empty ledgers of one backend. The backend under test is chosen by
 * the system property {@code sovereign.test.backend} (default {@code sqlite}) among the implementations on
 * the test class path ({@code META-INF/services/dev.sovereign.engine.testing.TestBackend}): the SQLite one is
 * here; a server backend's module adds its own (a fresh database per call on its test server) and runs the
 * classes tagged {@link Contract} with the property set. See docs/decisions/0009.
 */
public interface TestBackend {
    /** The backend's short name, as {@code sovereign.test.backend} names it. */
    String name();

    /** A fresh, empty ledger for one test; {@code dir} is the test's own temporary folder. */
    LedgerLocation freshLedger(Path dir, String name);

    /**
     * Makes the ledger at {@code location} judge time by {@code clock}, for a backend whose expiry decisions
     * read the database server's clock rather than the engine's (PostgreSQL pins its server clock to the
     * test's and follows every move). Called by {@link TempDatabase#config} for every settable clock a
     * test opens an engine with. The default does nothing: SQLite's time is the engine's clock.
     */
    default void clockFor(LedgerLocation location, SettableClock clock) {
    }

    /**
     * The ledger at {@code location} as a worker host named {@code host} reaches it: on a server, a login role of
     * its own that is a member of the ledger's worker role (not the owner, not a superuser); a file has no logins,
     * so the default is the location itself. Each call makes a new login. For tests that play several hosts, one
     * of them hostile (the standing attack suite).
     */
    default LedgerLocation workerLogin(LedgerLocation location, String host) {
        return location;
    }

    /** As {@link #workerLogin}, for a member of the ledger's operator role (the supervisor, retries). */
    default LedgerLocation operatorLogin(LedgerLocation location, String host) {
        return location;
    }

    /**
     * Removes a ledger {@link #freshLedger} made, and the logins made for it, for a test that makes many (one per
     * try); every connection to it must be closed. The default does nothing: a file goes with its folder.
     */
    default void dispose(LedgerLocation location) {
    }

    /** The backend selected for this JVM. */
    static TestBackend selected() {
        String wanted = System.getProperty("sovereign.test.backend", "sqlite");
        for (TestBackend b : ServiceLoader.load(TestBackend.class)) {
            if (b.name().equals(wanted)) {
                return b;
            }
        }
        throw new IllegalStateException("No test backend named '" + wanted + "' is on the test class path.");
    }

    /** The embedded default: a real SQLite file in the test's folder. */
    final class SqliteFiles implements TestBackend {
        @Override
        public String name() {
            return "sqlite";
        }

        @Override
        public LedgerLocation freshLedger(Path dir, String name) {
            return LedgerLocation.file(dir.resolve(name + ".db"));
        }
    }
}
