package dev.sovereign.engine.testing;

import dev.sovereign.engine.base.LedgerLocation;
import dev.sovereign.engine.internal.postgres.PgMigrator;
import dev.sovereign.engine.internal.postgres.PgServerClock;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The contract suite's ledgers on PostgreSQL (the {@code ...OnPostgresTest} subclasses, decision 0015): a fresh
 * database per ledger on this JVM's one {@link PgTestServer}, migrated at once as its owner (the superuser), so
 * that the test's clock can be followed before the first engine opens it. The server's clock is pinned to the
 * test's {@link SettableClock} and moved with it (docs/decisions/0901); this JVM is therefore allowed to
 * open ledgers with a pinned clock ({@link PgServerClock#ALLOW_PINNED}). Thread-safe.
 */
public final class PgTestBackend implements TestBackend {
    static {
        System.setProperty(PgServerClock.ALLOW_PINNED, "true");
    }

    private static final PgMigrator MIGRATOR = new PgMigrator(false, "test", "test", 10_000);
    /** The one of this JVM: every subclass of the suite returns it, so a ledger it made is known to it everywhere. */
    public static final PgTestBackend INSTANCE = new PgTestBackend();
    /** Which clocks already drive which ledger: a test may build several configs with one clock. */
    private final Map<LedgerLocation, Set<SettableClock>> followed = new ConcurrentHashMap<>();

    private final Map<LedgerLocation, PgTestServer.Database> databases = new ConcurrentHashMap<>();
    /** The login roles made for each ledger ({@link #workerLogin}, {@link #operatorLogin}), dropped with it. */
    private final Map<LedgerLocation, Set<String>> logins = new ConcurrentHashMap<>();

    private PgTestBackend() {}

    @Override
    public String name() {
        return "postgres";
    }

    @Override
    public LedgerLocation freshLedger(Path dir, String name) {
        PgTestServer.Database db = PgTestServer.freshDatabase();
        try (Connection c = db.connect()) {
            MIGRATOR.migrate(c);
        } catch (SQLException e) {
            throw new IllegalStateException("cannot migrate the test ledger " + db.name(), e);
        }
        LedgerLocation location = LedgerLocation.parse(db.url());
        databases.put(location, db);
        return location;
    }

    @Override
    public void clockFor(LedgerLocation location, SettableClock clock) {
        PgTestServer.Database db = database(location);
        Set<SettableClock> clocks = followed.computeIfAbsent(
                location, l -> Collections.synchronizedSet(Collections.newSetFromMap(new IdentityHashMap<>())));
        if (clocks.add(clock)) {
            pin(db, clock.millis());
            clock.onMove(now -> pin(db, now));
        }
    }

    @Override
    public LedgerLocation workerLogin(LedgerLocation location, String host) {
        return login(location, host, "worker");
    }

    @Override
    public LedgerLocation operatorLogin(LedgerLocation location, String host) {
        return login(location, host, "operator");
    }

    /** A new login role that is a member of the ledger's {@code sovereign_<db>_<group>} role (decision 0902). */
    private LedgerLocation login(LedgerLocation location, String host, String group) {
        PgTestServer.Database db = database(location);
        String role = PgTestServer.freshRole(host);
        logins.computeIfAbsent(location, l -> ConcurrentHashMap.newKeySet()).add(role);
        try (Connection c = db.connect();
                Statement s = c.createStatement()) {
            s.execute("GRANT sovereign_" + db.name() + "_" + group + " TO " + role);
        } catch (SQLException e) {
            throw new IllegalStateException("cannot make " + role + " a " + group + " of " + db.name(), e);
        }
        return LedgerLocation.parse(
                "jdbc:postgresql://localhost:" + db.port() + "/" + db.name() + "?user=" + role + "&password=" + role);
    }

    @Override
    public void dispose(LedgerLocation location) {
        PgTestServer.Database db = databases.remove(location);
        followed.remove(location);
        Set<String> roles = logins.remove(location);
        if (db == null) {
            return;
        }
        try (Connection c = PgTestServer.maintenance().getConnection();
                Statement s = c.createStatement()) {
            s.execute("DROP DATABASE IF EXISTS " + db.name() + " WITH (FORCE)");
            for (String role : roles == null ? Set.<String>of() : roles) {
                s.execute("DROP ROLE IF EXISTS " + role);
            }
            s.execute("DROP ROLE IF EXISTS sovereign_" + db.name() + "_operator");
            s.execute("DROP ROLE IF EXISTS sovereign_" + db.name() + "_worker");
        } catch (SQLException e) {
            throw new IllegalStateException("cannot drop the test ledger " + db.name(), e);
        }
    }

    private PgTestServer.Database database(LedgerLocation location) {
        PgTestServer.Database db = databases.get(location);
        if (db == null) {
            throw new IllegalStateException("not a ledger of this test backend: " + location);
        }
        return db;
    }

    private static void pin(PgTestServer.Database db, long millis) {
        PgTestServer.pinClock(db, millis);
    }
}
