package dev.sovereign.engine.testing;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A second embedded PostgreSQL server, for the TLS tests only (so the other PostgreSQL tests keep their plain,
 * fast server): TLS on, with a server certificate for {@code localhost} and {@code 127.0.0.1} signed by a CA
 * made at test time, and a {@code pg_hba.conf} that accepts TCP logins <b>only over TLS</b> ({@code hostssl}):
 * the superuser without a password, every other role with its SCRAM password. It also listens on
 * {@code 127.0.0.2}, an address the certificate does not name, for the host-name check.
 *
 * <p>Certificates come from the JDK's own {@code keytool} (run as a process; no {@code sun.security} in a
 * test): a CA, the server's key pair and a certificate the CA signs, and a second CA that signs nothing (an
 * impostor's, for the "not trusted" case). The server's private key is read from its PKCS12 keystore with
 * {@link KeyStore} and written as a PKCS#8 PEM file of mode {@code 0600}, as PostgreSQL insists.
 *
 * <p>Thread-safe: started once per JVM under the class lock, stopped by a shutdown hook; databases and roles
 * get random names.
 */
public final class PgTlsServer {
    /** The address the certificate does not name (it names {@code localhost} and {@code 127.0.0.1}). */
    public static final String UNNAMED_ADDRESS = "127.0.0.2";

    private static final String STOREPASS = "sovereign-test";
    private static final SecureRandom RANDOM = new SecureRandom();
    private static Started started;

    private record Started(EmbeddedPostgres pg, Path dir) {}

    private PgTlsServer() {}

    /** The CA that signed the server's certificate, as PEM: give it as {@code sslrootcert}. */
    public static Path caPem() {
        return server().dir().resolve("ca.pem");
    }

    /** A CA that signed nothing the server presents: a client trusting only it must refuse the server. */
    public static Path impostorCaPem() {
        return server().dir().resolve("impostor-ca.pem");
    }

    public static int port() {
        return server().pg().getPort();
    }

    /** A new, empty database on the TLS server. */
    public static String freshDatabase() {
        String name = "sov_tls_" + Long.toUnsignedString(RANDOM.nextLong(), 36);
        superuser("CREATE DATABASE " + name);
        return name;
    }

    /** A new login role with {@code password} (SCRAM), no superuser, no CREATEDB, no CREATEROLE. */
    public static String freshRole(String prefix, String password) {
        String name = prefix + "_" + Long.toUnsignedString(RANDOM.nextLong(), 36);
        superuser("CREATE ROLE " + name + " LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE PASSWORD '"
                + password.replace("'", "''") + "'");
        return name;
    }

    /** Runs statements as the superuser in {@code database} (over TLS, as every TCP login here). */
    public static void superuserIn(String database, String... statements) {
        String url = "jdbc:postgresql://localhost:" + port() + "/" + database + "?user=postgres&sslmode=verify-full"
                + "&sslrootcert=" + caPem();
        try (Connection c = DriverManager.getConnection(url);
                Statement s = c.createStatement()) {
            for (String statement : statements) {
                s.execute(statement);
            }
        } catch (SQLException e) {
            throw new IllegalStateException("on the TLS test server: " + e.getMessage(), e);
        }
    }

    /** A superuser connection to {@code database}, over TLS. */
    public static Connection connectAsSuperuser(String database) throws SQLException {
        return DriverManager.getConnection("jdbc:postgresql://localhost:" + port() + "/" + database
                + "?user=postgres&sslmode=verify-full&sslrootcert=" + caPem());
    }

    private static void superuser(String statement) {
        superuserIn("postgres", statement);
    }

    private static synchronized Started server() {
        if (started == null) {
            try {
                Path dir = Files.createTempDirectory("sovereign-tls-");
                makeCertificates(dir);
                Path hba = dir.resolve("pg_hba.conf");
                Files.writeString(
                        hba,
                        String.join(
                                "\n",
                                "# TCP only over TLS: a client that sends no TLS finds no entry (hostssl), and is refused",
                                "local     all  all                  trust",
                                "hostssl   all  postgres  127.0.0.0/8  trust",
                                "hostssl   all  postgres  ::1/128      trust",
                                "hostssl   all  all       127.0.0.0/8  scram-sha-256",
                                "hostssl   all  all       ::1/128      scram-sha-256",
                                ""));
                EmbeddedPostgres pg = EmbeddedPostgres.builder()
                        .setServerConfig("listen_addresses", "localhost," + UNNAMED_ADDRESS)
                        .setServerConfig("ssl", "on")
                        .setServerConfig(
                                "ssl_cert_file", dir.resolve("server.pem").toString())
                        .setServerConfig(
                                "ssl_key_file", dir.resolve("server.key").toString())
                        .setServerConfig("hba_file", hba.toString())
                        .setServerConfig("password_encryption", "scram-sha-256")
                        .setConnectConfig("sslmode", "verify-full")
                        .setConnectConfig("sslrootcert", dir.resolve("ca.pem").toString())
                        .start();
                Started s = new Started(pg, dir);
                Runtime.getRuntime()
                        .addShutdownHook(new Thread(
                                () -> {
                                    try {
                                        pg.close();
                                    } catch (IOException ignored) {
                                        // the JVM is going away; the data directory is a temporary one
                                    }
                                    try (var files = Files.walk(dir)) {
                                        files.sorted(Comparator.reverseOrder())
                                                .forEach(f -> f.toFile().delete());
                                    } catch (IOException | UncheckedIOException ignored) {
                                        // a temporary folder of test certificates; the OS cleans /tmp
                                    }
                                },
                                "pg-tls-server-stop"));
                started = s;
            } catch (IOException e) {
                throw new UncheckedIOException("cannot start the embedded PostgreSQL server with TLS", e);
            }
        }
        return started;
    }

    /** A CA, a server certificate it signs (SAN localhost, 127.0.0.1), the server's key as PKCS#8, an impostor CA. */
    private static void makeCertificates(Path dir) throws IOException {
        keytool(
                dir,
                "-genkeypair",
                "-keystore",
                "ca.p12",
                "-alias",
                "ca",
                "-keyalg",
                "EC",
                "-groupname",
                "secp256r1",
                "-dname",
                "CN=Sovereign test CA",
                "-ext",
                "bc:c",
                "-validity",
                "2");
        keytool(dir, "-exportcert", "-keystore", "ca.p12", "-alias", "ca", "-rfc", "-file", "ca.pem");
        keytool(
                dir,
                "-genkeypair",
                "-keystore",
                "impostor.p12",
                "-alias",
                "ca",
                "-keyalg",
                "EC",
                "-groupname",
                "secp256r1",
                "-dname",
                "CN=Sovereign test CA",
                "-ext",
                "bc:c",
                "-validity",
                "2");
        keytool(dir, "-exportcert", "-keystore", "impostor.p12", "-alias", "ca", "-rfc", "-file", "impostor-ca.pem");
        keytool(
                dir,
                "-genkeypair",
                "-keystore",
                "server.p12",
                "-alias",
                "server",
                "-keyalg",
                "EC",
                "-groupname",
                "secp256r1",
                "-dname",
                "CN=localhost",
                "-validity",
                "2");
        keytool(dir, "-certreq", "-keystore", "server.p12", "-alias", "server", "-file", "server.csr");
        keytool(
                dir,
                "-gencert",
                "-keystore",
                "ca.p12",
                "-alias",
                "ca",
                "-infile",
                "server.csr",
                "-outfile",
                "server.pem",
                "-rfc",
                "-validity",
                "2",
                "-ext",
                "san=dns:localhost,ip:127.0.0.1",
                "-ext",
                "eku=serverAuth");
        Path key = dir.resolve("server.key");
        Files.writeString(
                key,
                "-----BEGIN PRIVATE KEY-----\n"
                        + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII))
                                .encodeToString(
                                        serverKey(dir.resolve("server.p12")).getEncoded())
                        + "\n-----END PRIVATE KEY-----\n",
                StandardCharsets.US_ASCII);
        Files.setPosixFilePermissions(key, PosixFilePermissions.fromString("rw-------"));
    }

    /** The server's private key, read from keytool's PKCS12 store; {@code getEncoded()} is PKCS#8. */
    private static PrivateKey serverKey(Path store) throws IOException {
        try (var in = Files.newInputStream(store)) {
            KeyStore ks = KeyStore.getInstance("PKCS12");
            ks.load(in, STOREPASS.toCharArray());
            return (PrivateKey) ks.getKey("server", STOREPASS.toCharArray());
        } catch (GeneralSecurityException e) {
            throw new IOException("cannot read the server key keytool made", e);
        }
    }

    private static void keytool(Path dir, String... args) throws IOException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "keytool").toString());
        command.addAll(List.of(args));
        command.addAll(List.of("-storetype", "PKCS12", "-storepass", STOREPASS, "-noprompt"));
        if (List.of(args).contains("-genkeypair")) {
            command.addAll(List.of("-keypass", STOREPASS));
        }
        Process p = new ProcessBuilder(command)
                .directory(dir.toFile())
                .redirectErrorStream(true)
                .start();
        try {
            String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
                throw new IOException("keytool " + String.join(" ", args) + " failed: " + output);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while keytool ran", e);
        }
    }
}
