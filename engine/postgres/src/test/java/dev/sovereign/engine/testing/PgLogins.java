package dev.sovereign.engine.testing;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.base.EngineConfig;
import java.sql.SQLException;

/**
 * A ledger on the embedded server with real logins, for the tests of the guards that bind a row to the login of the
 * process it names (decisions 0912, 0916, 0917): the owner's connection, two worker hosts (members of the ledger's
 * worker role) and an operator (a member of its operator role), each with a connection of its own. One ledger per
 * test class: a fresh database costs about 2 s here.
 */
public final class PgLogins implements AutoCloseable {
    private final PgTestServer.Database db;
    private final RawPg owner;
    private final String hostA;
    private final String hostB;
    private final String ops;
    private final RawPg asA;
    private final RawPg asB;
    private final RawPg asOps;

    private PgLogins() throws SQLException {
        db = PgTestServer.freshDatabase();
        Engine.open(EngineConfig.forDatabase(db.url()).heartbeat(false).build()).close();
        owner = new RawPg(db.connect());
        hostA = PgTestServer.freshRole("host_a");
        hostB = PgTestServer.freshRole("host_b");
        ops = PgTestServer.freshRole("ops");
        owner.exec(
                "GRANT sovereign_" + db.name() + "_worker TO " + hostA + ", " + hostB,
                "GRANT sovereign_" + db.name() + "_operator TO " + ops);
        asA = new RawPg(db.dataSource(hostA, hostA).getConnection());
        asB = new RawPg(db.dataSource(hostB, hostB).getConnection());
        asOps = new RawPg(db.dataSource(ops, ops).getConnection());
    }

    /**
     * One more login in the worker role of {@code db} (a worker host's, as decision 0902 makes them), granted by its
     * {@code owner}, on a connection of its own that the caller closes; {@code prefix} names it.
     */
    public static RawPg worker(PgTestServer.Database db, RawPg owner, String prefix) throws SQLException {
        String login = PgTestServer.freshRole(prefix);
        owner.exec("GRANT sovereign_" + db.name() + "_worker TO " + login);
        return new RawPg(db.dataSource(login, login).getConnection());
    }

    /**
     * A login allowed into the schema and given nothing on the ledger (EXECUTE on its functions was taken from
     * PUBLIC), on a connection of its own that the caller closes.
     */
    public static RawPg stranger(PgTestServer.Database db, RawPg owner) throws SQLException {
        String login = PgTestServer.freshRole("stranger");
        owner.exec("GRANT USAGE ON SCHEMA public TO " + login);
        return new RawPg(db.dataSource(login, login).getConnection());
    }

    /** A new ledger, migrated by its owner, and the three logins. */
    public static PgLogins open() throws SQLException {
        return new PgLogins();
    }

    public PgTestServer.Database db() {
        return db;
    }

    public RawPg owner() {
        return owner;
    }

    public String hostA() {
        return hostA;
    }

    public String hostB() {
        return hostB;
    }

    public String ops() {
        return ops;
    }

    public RawPg asA() {
        return asA;
    }

    public RawPg asB() {
        return asB;
    }

    public RawPg asOps() {
        return asOps;
    }

    /** An engine's settings on this ledger as {@code login} (its password is its name), no background heartbeat. */
    public EngineConfig.Builder configAs(String login) {
        return EngineConfig.forDatabase("jdbc:postgresql://localhost:" + db.port() + "/" + db.name() + "?user=" + login
                        + "&password=" + login)
                .heartbeat(false);
    }

    /** An engine on this ledger (which exists) as {@code login}. */
    public Engine engineAs(String login) {
        return Engine.openExisting(configAs(login).build());
    }

    /** The server's clock, as every guard reads it. */
    public long serverNow() {
        return owner.scalar("SELECT " + RawPg.NOW);
    }

    @Override
    public void close() throws SQLException {
        for (RawPg c : new RawPg[] {owner, asA, asB, asOps}) {
            c.connection().close();
        }
    }
}
