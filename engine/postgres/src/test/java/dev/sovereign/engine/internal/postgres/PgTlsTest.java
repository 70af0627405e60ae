package dev.sovereign.engine.internal.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.admin.ConnectionSecurity;
import dev.sovereign.engine.admin.ConnectionSecurity.Kind;
import dev.sovereign.engine.admin.ConnectionSecurity.Verification;
import dev.sovereign.engine.base.EngineConfig;
import dev.sovereign.engine.base.StorageException;
import dev.sovereign.engine.testing.PgTlsServer;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * TLS to the server (issue 19), against a real PostgreSQL server that accepts TCP logins only over TLS
 * ({@link PgTlsServer}): {@code sslmode=verify-full} with the CA that signed the server's certificate opens the
 * ledger, the server itself says the engine's session is encrypted ({@code pg_stat_ssl}), and the summary says
 * so; a CA that did not sign it, a host the certificate does not name, and a URL without TLS are each refused
 * in one sentence without the password. {@code sslmode=require} with the wrong CA connects — the driver checks
 * nothing then — and the summary says the certificate was not verified: the test tells the two apart.
 */
class PgTlsTest {
    private static final String PASSWORD = "tls-pw-" + UUID.randomUUID();
    private static String database;
    private static String owner;

    @BeforeAll
    static void ledger() {
        database = PgTlsServer.freshDatabase();
        owner = PgTlsServer.freshRole("tls_owner", PASSWORD);
        PgTlsServer.superuserIn(
                "postgres", "ALTER DATABASE " + database + " OWNER TO " + owner, "ALTER ROLE " + owner + " CREATEROLE");
        try (Engine created = Engine.open(
                config(url("localhost", "verify-full", PgTlsServer.caPem().toString())))) {
            created.actors().add("operator");
        }
    }

    private static String url(String host, String sslmode, String rootCert) {
        return "jdbc:postgresql://" + host + ":" + PgTlsServer.port() + "/" + database + "?user=" + owner + "&password="
                + PASSWORD + "&sslmode=" + sslmode + (rootCert == null ? "" : "&sslrootcert=" + rootCert);
    }

    private static EngineConfig config(String url) {
        return EngineConfig.forDatabase(url).heartbeat(false).build();
    }

    @Test
    void verifyFullWithTheSigningCaOpensTheLedgerOverAnEncryptedSessionAndTheSummarySaysSo() throws SQLException {
        String app = "sov_tls_" + Long.toUnsignedString(System.nanoTime(), 36);
        String url = url("localhost", "verify-full", PgTlsServer.caPem().toString()) + "&ApplicationName=" + app;
        try (Engine engine = Engine.openExisting(config(url))) {
            engine.leases().acquire("operator", Duration.ofSeconds(30));
            ConnectionSecurity cs = engine.summary().connection();

            // the server's own account of the engine's session, found by its application name
            try (Connection su = PgTlsServer.connectAsSuperuser(database);
                    PreparedStatement ps = su.prepareStatement("SELECT s.ssl, s.version FROM pg_stat_ssl s"
                            + " JOIN pg_stat_activity a USING (pid) WHERE a.application_name = ?")) {
                ps.setString(1, app);
                try (ResultSet rs = ps.executeQuery()) {
                    assertThat(rs.next())
                            .as("the engine's backend is connected")
                            .isTrue();
                    assertThat(rs.getBoolean(1))
                            .as("pg_stat_ssl.ssl of the engine's backend")
                            .isTrue();
                    assertThat(rs.getString(2)).isEqualTo(cs.protocol()).startsWith("TLSv1.");
                }
            }
            assertThat(cs.kind()).isEqualTo(Kind.TLS);
            assertThat(cs.verification()).isEqualTo(Verification.CERTIFICATE_AND_HOST);
            assertThat(cs.describe()).isEqualTo(cs.protocol() + ", certificate verified (verify-full)");
            assertThat(engine.summary().location().toString()).doesNotContain(PASSWORD);
        }
    }

    @Test
    void aCaThatDidNotSignTheServersCertificateIsRefusedInOneSentenceWithoutThePassword() {
        assertThatThrownBy(() -> Engine.openExisting(config(url(
                        "localhost", "verify-full", PgTlsServer.impostorCaPem().toString()))))
                .isInstanceOfSatisfying(StorageException.class, e -> {
                    assertThat(e.problem()).isEqualTo(StorageException.Problem.IO);
                    assertThat(e.getMessage())
                            .contains("the server's certificate is not trusted")
                            .contains("sslmode=verify-full")
                            .doesNotContain(PASSWORD)
                            .doesNotContain("\n")
                            .doesNotContain("Exception");
                });
    }

    @Test
    void aHostTheCertificateDoesNotNameIsRefusedEvenThoughItsCaIsTrusted() {
        // the certificate names localhost and 127.0.0.1; the same server also listens on 127.0.0.2
        assertThatThrownBy(() -> Engine.openExisting(config(url(
                        PgTlsServer.UNNAMED_ADDRESS,
                        "verify-full",
                        PgTlsServer.caPem().toString()))))
                .isInstanceOfSatisfying(
                        StorageException.class,
                        e -> assertThat(e.getMessage())
                                .contains("does not name the host")
                                .doesNotContain(PASSWORD)
                                .doesNotContain("\n"));
        // verify-ca checks the chain only: the same address is accepted, and said to be so
        try (Engine engine = Engine.openExisting(config(url(
                PgTlsServer.UNNAMED_ADDRESS, "verify-ca", PgTlsServer.caPem().toString())))) {
            assertThat(engine.summary().connection().verification()).isEqualTo(Verification.CERTIFICATE);
            assertThat(engine.summary().connection().describe()).contains("certificate verified but not its host name");
        }
    }

    @Test
    void aUrlWithoutTlsIsRefusedByAServerThatAcceptsOnlyTls() {
        assertThatThrownBy(() -> Engine.openExisting(config(url("localhost", "disable", null))))
                .isInstanceOfSatisfying(
                        StorageException.class,
                        e -> assertThat(e.getMessage())
                                .contains(
                                        "accepts this login only over TLS",
                                        "sslmode=disable",
                                        "use sslmode=verify-full")
                                .doesNotContain(PASSWORD)
                                .doesNotContain("\n"));
    }

    @Test
    void requireAcceptsAnUntrustedCertificateAndTheSummarySaysItWasNotVerified() {
        // the driver's sslmode=require encrypts but checks nothing: an impostor's CA does not stop it
        try (Engine engine = Engine.openExisting(
                config(url("localhost", "require", PgTlsServer.impostorCaPem().toString())))) {
            ConnectionSecurity cs = engine.summary().connection();
            assertThat(cs.encrypted()).isTrue();
            assertThat(cs.verification()).isEqualTo(Verification.NONE);
            assertThat(cs.describe()).contains("certificate not verified (sslmode=require)");
        }
    }
}
