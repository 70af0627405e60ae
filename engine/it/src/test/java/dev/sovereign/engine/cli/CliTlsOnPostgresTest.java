package dev.sovereign.engine.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sovereign.engine.cli.CliHarness.Result;
import dev.sovereign.engine.testing.PgTlsServer;
import dev.sovereign.engine.testing.SettableClock;
import java.nio.file.Path;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code sovereign} over TLS to a real server that accepts TCP logins only over TLS ({@link PgTlsServer}, issue
 * 19): with {@code sslmode=verify-full} and the CA that signed the server's certificate, {@code init} and
 * {@code status} work and {@code status} says the connection is encrypted and the certificate verified; a CA
 * that did not sign it, an address the certificate does not name, and {@code sslmode=disable} each end in exit
 * 3 and one sentence, with no stack trace and no password. {@code status} on a SQLite file says
 * {@code local file}.
 */
class CliTlsOnPostgresTest {
    private static final String PASSWORD = "cli-tls-" + UUID.randomUUID();
    private static String database;
    private static String owner;

    @TempDir
    Path dir;

    @BeforeAll
    static void server() {
        database = PgTlsServer.freshDatabase();
        owner = PgTlsServer.freshRole("cli_tls_owner", PASSWORD);
        PgTlsServer.superuserIn(
                "postgres", "ALTER DATABASE " + database + " OWNER TO " + owner, "ALTER ROLE " + owner + " CREATEROLE");
    }

    private static String url(String host, String sslmode, Path rootCert) {
        return "jdbc:postgresql://" + host + ":" + PgTlsServer.port() + "/" + database + "?user=" + owner + "&password="
                + PASSWORD + "&sslmode=" + sslmode + (rootCert == null ? "" : "&sslrootcert=" + rootCert);
    }

    private CliHarness cli(String url) {
        return new CliHarness(dir, new SettableClock()).with(b -> b.variables(Map.of("SOVEREIGN_DB", url)));
    }

    @Test
    void initAndStatusWorkOverVerifyFullAndStatusSaysTheCertificateWasVerified() {
        CliHarness cli = cli(url("localhost", "verify-full", PgTlsServer.caPem()));
        cli.ok("init");

        Result status = cli.ok("status");
        assertThat(status.out())
                .containsPattern("(?m)^  connection +TLSv1\\.[23], certificate verified \\(verify-full\\)$")
                .doesNotContain(PASSWORD);
        JsonNode connection = cli.ok("status", "--json").onlyJson().get("connection");
        assertThat(connection.get("kind").asText()).isEqualTo("tls");
        assertThat(connection.get("encrypted").asBoolean()).isTrue();
        assertThat(connection.get("protocol").asText()).startsWith("TLSv1.");
        assertThat(connection.get("sslmode").asText()).isEqualTo("verify-full");
        assertThat(connection.get("verification").asText()).isEqualTo("certificate_and_host");
    }

    @Test
    void aCaThatDidNotSignTheServersCertificateIsExit3AndOneSentence() {
        cli(url("localhost", "verify-full", PgTlsServer.caPem())).ok("init");
        Result r = cli(url("localhost", "verify-full", PgTlsServer.impostorCaPem()))
                .run("status");
        assertThat(r.exit()).isEqualTo(3);
        assertThat(r.errLines())
                .singleElement()
                .asString()
                .startsWith("storage error (io): Cannot connect to the PostgreSQL ledger jdbc:postgresql://localhost:")
                .contains("the server's certificate is not trusted")
                .doesNotContain(PASSWORD)
                .doesNotContain("Exception")
                .doesNotContain("\tat ");
        assertThat(r.out()).isEmpty();
    }

    @Test
    void anAddressTheCertificateDoesNotNameIsExit3AndOneSentence() {
        cli(url("localhost", "verify-full", PgTlsServer.caPem())).ok("init");
        Result r = cli(url(PgTlsServer.UNNAMED_ADDRESS, "verify-full", PgTlsServer.caPem()))
                .run("status");
        assertThat(r.exit()).isEqualTo(3);
        assertThat(r.errLines())
                .singleElement()
                .asString()
                .contains("the server's certificate is trusted but does not name the host")
                .doesNotContain(PASSWORD)
                .doesNotContain("Exception");
    }

    @Test
    void noTlsAgainstAServerThatAcceptsOnlyTlsIsExit3AndOneSentence() {
        Result r = cli(url("localhost", "disable", null)).run("status");
        assertThat(r.exit()).isEqualTo(3);
        assertThat(r.errLines())
                .singleElement()
                .asString()
                .contains("the server accepts this login only over TLS", "sslmode=disable", "use sslmode=verify-full")
                .doesNotContain(PASSWORD)
                .doesNotContain("Exception");
    }

    @Test
    void requireWithAnUntrustedCaConnectsAndStatusSaysTheCertificateWasNotVerified() {
        CliHarness cli = cli(url("localhost", "require", PgTlsServer.impostorCaPem()));
        cli.ok("init");
        assertThat(cli.ok("status").out())
                .containsPattern(
                        "(?m)^  connection +TLSv1\\.[23], certificate not verified \\(sslmode=require\\): whoever answers at"
                                + " that address can pose as the server$");
        assertThat(cli.ok("status", "--json")
                        .onlyJson()
                        .get("connection")
                        .get("verification")
                        .asText())
                .isEqualTo("none");
    }

    @Test
    void statusOnASqliteFileSaysLocalFile() {
        CliHarness cli = new CliHarness(dir, new SettableClock());
        cli.ok("--db", dir.resolve("s.db").toString(), "init");
        assertThat(cli.ok("--db", dir.resolve("s.db").toString(), "status").out())
                .containsPattern("(?m)^  connection +local file$");
        JsonNode connection = cli.ok("--db", dir.resolve("s.db").toString(), "status", "--json")
                .onlyJson()
                .get("connection");
        assertThat(connection.get("kind").asText()).isEqualTo("local_file");
        assertThat(connection.get("encrypted").asBoolean()).isFalse();
        assertThat(connection.get("protocol").isNull()).isTrue();
    }
}
