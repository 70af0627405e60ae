package dev.sovereign.engine.internal.postgres;

import dev.sovereign.engine.admin.ConnectionSecurity;
import dev.sovereign.engine.admin.ConnectionSecurity.Kind;
import dev.sovereign.engine.admin.ConnectionSecurity.Verification;
import dev.sovereign.engine.base.LedgerLocation;
import dev.sovereign.engine.internal.jdbc.JdbcTx;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Locale;
import java.util.Properties;
import org.postgresql.Driver;
import org.postgresql.PGProperty;
import org.postgresql.jdbc.SslMode;
import org.postgresql.util.PSQLException;

/**
 * How an engine's connection to its server is protected (decision 0906): whether it is encrypted is asked of the
 * server, for this very session ({@code pg_stat_ssl} of {@code pg_backend_pid()}), so a URL that merely asks for
 * TLS never passes for an encrypted connection; what the client verified follows from the {@code sslmode} the
 * driver applied to the URL ({@code prefer} when none is given; {@code ssl=true} alone means {@code verify-full}).
 * Stateless and thread-safe.
 */
public final class PgConnectionSecurity {
    /** The driver's own factory, which verifies as {@code sslmode} says; anything else decides for itself. */
    private static final String DRIVER_FACTORY = "org.postgresql.ssl.LibPQFactory";

    private PgConnectionSecurity() {}

    static ConnectionSecurity of(JdbcTx tx, LedgerLocation location) throws SQLException {
        return of(((PgTx) tx).connection(), location);
    }

    /** For any reader of a ledger (a console's, too): what protects the session of {@code c}, opened from {@code location}. */
    public static ConnectionSecurity of(Connection c, LedgerLocation location) throws SQLException {
        String mode = sslmode(location);
        try (Statement s = c.createStatement();
                ResultSet rs =
                        s.executeQuery("SELECT ssl, version, cipher FROM pg_stat_ssl WHERE pid = pg_backend_pid()")) {
            if (!rs.next() || !rs.getBoolean(1)) {
                return new ConnectionSecurity(Kind.NOT_ENCRYPTED, null, null, mode, Verification.NONE);
            }
            return new ConnectionSecurity(
                    Kind.TLS, rs.getString(2), rs.getString(3), mode, verification(location, mode));
        }
    }

    /** The sslmode the driver applies to this URL, e.g. {@code verify-full}; {@code prefer} by default. */
    static String sslmode(LedgerLocation location) {
        Properties props = properties(location);
        try {
            return props == null ? "prefer" : SslMode.of(props).value;
        } catch (PSQLException e) {
            return "invalid"; // the driver refuses such a URL before it connects; never reached for an open ledger
        }
    }

    private static Verification verification(LedgerLocation location, String mode) {
        Properties props = properties(location);
        String factory = props == null ? null : PGProperty.SSL_FACTORY.getOrDefault(props);
        if (factory != null && !factory.isBlank() && !factory.equals(DRIVER_FACTORY)) {
            return Verification.CUSTOM_FACTORY;
        }
        return switch (mode.toLowerCase(Locale.ROOT)) {
            case "verify-full" -> Verification.CERTIFICATE_AND_HOST;
            case "verify-ca" -> Verification.CERTIFICATE;
            default -> Verification.NONE; // allow, prefer, require: the driver accepts any certificate
        };
    }

    private static Properties properties(LedgerLocation location) {
        return Driver.parseURL(location.text(), new Properties());
    }
}
