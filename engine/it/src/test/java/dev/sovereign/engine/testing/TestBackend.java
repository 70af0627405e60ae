package dev.sovereign.engine.testing;

import dev.sovereign.engine.base.LedgerLocation;
import java.nio.file.Path;

/**
 * Supplies the contract suite with fresh, empty ledgers of one backend. Each class of the suite is abstract and
 * asks its subclass for the backend ({@code backend()}): the SQLite one ({@link #sqlite()}) is here, for the
 * {@code ...OnSqliteTest} subclasses beside the contract classes; a server backend's module has its own (a fresh
 * database per call on its test server) and a subclass of each contract class that returns it. See
 * decisions 0009 and 0015.
 */
public interface TestBackend {
    /** The backend's short name ({@code sqlite}, {@code postgres}), for reports and a backend's own settings. */
    String name();

    /** A fresh, empty ledger for one test; {@code dir} is the test's own temporary folder. */
    LedgerLocation freshLedger(Path dir, String name);

    /**
     * Makes the ledger at {@code location} judge time by {@code clock}, for a backend whose expiry decisions
     * read the database server's clock rather than the engine's (PostgreSQL pins its server clock to the
     * test's and follows every move). Called by {@link TempDatabase#config} for every settable clock a
     * test opens an engine with. The default does nothing: SQLite's time is the engine's clock.
     */
    default void clockFor(LedgerLocation location, SettableClock clock) {}

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
    default void dispose(LedgerLocation location) {}

    /** The embedded backend: a real SQLite file in the test's folder. */
    static TestBackend sqlite() {
        return SqliteFiles.INSTANCE;
    }

    /** The embedded backend: a real SQLite file in the test's folder. Holds nothing, so one serves every test. */
    final class SqliteFiles implements TestBackend {
        private static final SqliteFiles INSTANCE = new SqliteFiles();

        private SqliteFiles() {}

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
