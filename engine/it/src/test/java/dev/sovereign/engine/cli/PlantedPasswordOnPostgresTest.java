package dev.sovereign.engine.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.base.EngineConfig;
import dev.sovereign.engine.base.LedgerLocation;
import dev.sovereign.engine.base.Refusal;
import dev.sovereign.engine.cli.CliHarness.Result;
import dev.sovereign.engine.lease.Lease;
import dev.sovereign.engine.run.Assignment;
import dev.sovereign.engine.testing.PgTlsServer;
import dev.sovereign.engine.testing.SettableClock;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A password planted in the URL is never written anywhere (issue 19, "secrets never printed"), on a real
 * PostgreSQL server whose login role needs it (SCRAM over TLS, {@link PgTlsServer}). The CLI and an embedding
 * engine do everything a day brings — init, lease acquire, renew and release, a refused stale write, a run, a
 * supervisor tick, status, events, rejections, assignments, an operator's process stop, and failures (a wrong
 * database name, an unreachable port, the {@code user:password@} form the driver does not understand) with and
 * without {@code --debug} — with the password given as {@code ?password=}, in {@code --db} and in
 * {@code $SOVEREIGN_DB}, in-process and as a real child process. Then every output, every row of every table of
 * the ledger, and every file name and file in the data directories and the working directory are searched for
 * it: it is in none.
 *
 * <p>The way docs/postgres.md recommends — no password in the URL, a password file named by {@code PGPASSFILE} —
 * is proven with a real child process; and that the driver does not read {@code PGPASSWORD}.
 */
class PlantedPasswordOnPostgresTest {
    /** Long and unique, so a hit can only be a leak. */
    private static final String PASSWORD =
            "Pl4nted" + UUID.randomUUID().toString().replace("-", "")
                    + UUID.randomUUID().toString().replace("-", "");

    @TempDir
    Path dir;

    private String database;
    private String owner;
    private final List<String> outputs = new ArrayList<>();
    private final List<Path> dataDirectories = new ArrayList<>();

    @BeforeEach
    void ledgerWhoseOwnerNeedsThePassword() {
        database = PgTlsServer.freshDatabase();
        owner = PgTlsServer.freshRole("planted_owner", PASSWORD);
        PgTlsServer.superuserIn(
                "postgres", "ALTER DATABASE " + database + " OWNER TO " + owner, "ALTER ROLE " + owner + " CREATEROLE");
    }

    @AfterEach
    void removeTheServerDataDirectories() throws IOException {
        for (Path d : dataDirectories) {
            if (Files.exists(d)) {
                try (Stream<Path> all = Files.walk(d)) {
                    for (Path p : all.sorted(Comparator.reverseOrder()).toList()) {
                        Files.delete(p);
                    }
                }
            }
        }
    }

    private String tls() {
        return "sslmode=verify-full&sslrootcert=" + PgTlsServer.caPem();
    }

    private String urlWithPasswordParameter(String db, int port) {
        return "jdbc:postgresql://localhost:" + port + "/" + db + "?user=" + owner + "&password=" + PASSWORD + "&"
                + tls();
    }

    private String url() {
        return urlWithPasswordParameter(database, PgTlsServer.port());
    }

    @Test
    void aPasswordInTheUrlIsInNoOutputNoRowOfTheLedgerAndNoFile() throws Exception {
        String url = url();
        dataDirectories.add(EngineConfig.defaultDataDirectory(LedgerLocation.parse(url)));
        CliHarness viaEnv =
                new CliHarness(dir, new SettableClock()).with(b -> b.variables(Map.of("SOVEREIGN_DB", url)));
        CliHarness plain = new CliHarness(dir, new SettableClock());

        // the password is needed: without it the server refuses the login
        Result noPassword = keep(plain.run("--db", url.replace("&password=" + PASSWORD, ""), "status"));
        assertThat(noPassword.exit()).isEqualTo(3);

        // a day's work through $SOVEREIGN_DB
        keep(viaEnv.ok("init"));
        keep(viaEnv.ok("actor", "add", "operator"));
        long token = keep(viaEnv.ok(
                        "--process", "proc_planted", "lease", "acquire", "operator", "--ttl", "30s", "--json"))
                .onlyJson()
                .get("token")
                .asLong();
        keep(viaEnv.ok(
                "--process",
                "proc_planted",
                "lease",
                "renew",
                "operator",
                "--token",
                Long.toString(token),
                "--ttl",
                "1m"));
        Result held = keep(viaEnv.run("lease", "acquire", "operator", "--ttl", "30s"));
        assertThat(held.exit()).as(held.err()).isEqualTo(1);
        Result stale = keep(viaEnv.run(
                "--process", "proc_planted", "lease", "release", "operator", "--token", Long.toString(token + 100)));
        assertThat(stale.exit())
                .as("a stale release is refused: %s", stale.err())
                .isEqualTo(1);
        Result staleDebug = keep(viaEnv.run(
                "--debug",
                "--process",
                "proc_planted",
                "lease",
                "renew",
                "operator",
                "--token",
                Long.toString(token + 100)));
        assertThat(staleDebug.exit()).isEqualTo(1);
        keep(viaEnv.ok("--process", "proc_planted", "lease", "release", "operator", "--token", Long.toString(token)));
        String assignment = keep(viaEnv.ok(
                        "assign", "operator", "--provider", "scripted:ms=5,outcome=completed", "--json"))
                .onlyJson()
                .get("assignment")
                .asText();
        keep(viaEnv.ok("run", assignment));
        keep(viaEnv.ok("supervisor", "--once"));
        keep(viaEnv.ok("supervisor", "--once", "--json"));

        // the same URL in --db, reading
        for (String[] read : new String[][] {
            {"status"},
            {"status", "--json"},
            {"events"},
            {"events", "--json"},
            {"rejections"},
            {"assignments"},
            {"assignments", "--json"},
            {"lease", "list"},
            {"actor", "list"},
            {"--debug", "status"}
        }) {
            List<String> args = new ArrayList<>(List.of("--db", url));
            args.addAll(List.of(read));
            keep(plain.ok(args.toArray(String[]::new)));
        }
        keep(viaEnv.ok("process", "stop", "proc_planted"));

        // failures, each with and without --debug (its stack trace)
        for (String bad : List.of(
                urlWithPasswordParameter(database + "_nosuch", PgTlsServer.port()),
                urlWithPasswordParameter(database, 1),
                // the driver does not understand user-info: it takes 'user:password@localhost' for a host name
                "jdbc:postgresql://" + owner + ":" + PASSWORD + "@localhost:" + PgTlsServer.port() + "/" + database
                        + "?" + tls())) {
            for (List<String> args : List.of(
                    List.of("--db", bad, "status"),
                    List.of("--debug", "--db", bad, "status"),
                    List.of("--db", bad, "--json", "events"),
                    List.of("--debug", "--db", bad, "init"))) {
                Result r = keep(plain.run(args.toArray(String[]::new)));
                assertThat(r.exit()).as("%s: %s", args, r.err()).isEqualTo(3);
            }
            Result r = keep(new CliHarness(dir, new SettableClock())
                    .with(b -> b.variables(Map.of("SOVEREIGN_DB", bad)))
                    .run("--debug", "status"));
            assertThat(r.exit()).isEqualTo(3);
        }

        // an embedding engine: its own work, its sentences, its exceptions' whole traces
        Path embedData = dir.resolve("embedded.data");
        try (Engine engine = Engine.openExisting(EngineConfig.forDatabase(url)
                .heartbeat(false)
                .dataDirectory(embedData)
                .build())) {
            Lease lease = engine.leases().acquire("operator", Duration.ofSeconds(30));
            engine.leases().renew("operator", lease.token(), Duration.ofMinutes(1));
            try {
                engine.leases().renew("operator", lease.token() + 100, Duration.ofMinutes(1));
            } catch (Refusal r) {
                outputs.add(trace(r));
            }
            engine.leases().release("operator", lease.token());
            Assignment a = engine.runs().assign("operator", "scripted:ms=5,outcome=completed");
            engine.runs().runAssignment(a.id());
            engine.supervisor().tick();
            outputs.add(engine.summary().toString());
            outputs.add(engine.summary().location().toString());
            engine.journal().since(0, 1000).forEach(e -> outputs.add(e.toString()));
        }
        for (String bad : List.of(
                urlWithPasswordParameter(database + "_nosuch", PgTlsServer.port()),
                urlWithPasswordParameter(database, 1),
                "jdbc:postgresql://" + owner + ":" + PASSWORD + "@localhost:" + PgTlsServer.port() + "/" + database)) {
            try (Engine e = Engine.openExisting(EngineConfig.forDatabase(bad)
                    .heartbeat(false)
                    .dataDirectory(embedData)
                    .build())) {
                throw new AssertionError("opened " + e.summary());
            } catch (RuntimeException e) {
                outputs.add(trace(e));
            }
        }

        // a real child process, the URL in its environment (and so in /proc/PID/environ of that host only)
        RealCli real = new RealCli(dir);
        for (String[] args : new String[][] {
            {"status"},
            {"--debug", "events"},
            {"--process", "proc_planted", "lease", "renew", "operator", "--token", "1"}
        }) {
            RealCli.Finished f = real.start(Map.of("SOVEREIGN_DB", url), args).await();
            outputs.add(f.out());
            outputs.add(f.err());
        }

        assertThat(outputs).as("every output").noneMatch(o -> o.contains(PASSWORD));
        assertThat(String.join("\n", outputs))
                .as("the user:password@ form is named, not passed to the driver")
                .contains("the PostgreSQL driver does not understand user:password@ before the host");
        assertThat(String.join("\n", outputs))
                .as("the outputs were read")
                .contains(
                        "storage error (io)",
                        "refused (actor_lease_lost)",
                        "LEASE_RENEWED",
                        "certificate verified (verify-full)");
        String ledger = everyRowOfEveryTable();
        assertThat(ledger)
                .as("the ledger's rows")
                .contains("proc_planted", "LEASE_RELEASED", "REJECTED")
                .doesNotContain(PASSWORD);
        assertNoFileNamesOrHolds(dir);
        for (Path d : dataDirectories) {
            assertThat(d).as("the server's data directory of this host").isDirectory();
            assertThat(d.toString()).doesNotContain(PASSWORD);
            assertNoFileNamesOrHolds(d);
        }
    }

    @Test
    void aPasswordFileNamedByPgpassfileLogsInWithoutAnyPasswordInTheUrlButPgpasswordIsNotRead() throws IOException {
        String url =
                "jdbc:postgresql://localhost:" + PgTlsServer.port() + "/" + database + "?user=" + owner + "&" + tls();
        dataDirectories.add(EngineConfig.defaultDataDirectory(LedgerLocation.parse(url)));
        Path passfile = dir.resolve("pgpass");
        Files.writeString(
                passfile, "localhost:" + PgTlsServer.port() + ":" + database + ":" + owner + ":" + PASSWORD + "\n");
        Files.setPosixFilePermissions(passfile, PosixFilePermissions.fromString("rw-------"));
        RealCli real = new RealCli(dir);

        RealCli.Finished init = real.start(Map.of("SOVEREIGN_DB", url, "PGPASSFILE", passfile.toString()), "init")
                .await();
        assertThat(init.exit()).as(init.toString()).isZero();
        RealCli.Finished status = real.start(Map.of("SOVEREIGN_DB", url, "PGPASSFILE", passfile.toString()), "status")
                .await();
        assertThat(status.exit()).as(status.toString()).isZero();
        assertThat(status.out()).contains("certificate verified (verify-full)").doesNotContain(PASSWORD);

        // without the file the login fails: the driver does not read libpq's PGPASSWORD
        RealCli.Finished noFile = real.start(
                        Map.of(
                                "SOVEREIGN_DB",
                                url,
                                "PGPASSFILE",
                                dir.resolve("absent").toString(),
                                "PGPASSWORD",
                                PASSWORD),
                        "status")
                .await();
        assertThat(noFile.exit()).as(noFile.toString()).isEqualTo(3);
        assertThat(noFile.errLines())
                .singleElement()
                .asString()
                .startsWith("storage error (io): Cannot connect")
                .doesNotContain(PASSWORD);
    }

    private Result keep(Result r) {
        outputs.add(r.out());
        outputs.add(r.err());
        return r;
    }

    private static String trace(Throwable t) {
        StringWriter w = new StringWriter();
        t.printStackTrace(new PrintWriter(w, true));
        return w.toString();
    }

    /** Every row of every table in the ledger's schema, as text, read as the superuser. */
    private String everyRowOfEveryTable() throws SQLException {
        StringBuilder all = new StringBuilder();
        List<String> tables = new ArrayList<>();
        try (Connection c = PgTlsServer.connectAsSuperuser(database);
                Statement s = c.createStatement()) {
            try (ResultSet rs = s.executeQuery(
                    "SELECT table_schema || '.' || quote_ident(table_name)"
                            + " FROM information_schema.tables WHERE table_schema NOT IN ('pg_catalog', 'information_schema')")) {
                while (rs.next()) {
                    tables.add(rs.getString(1));
                }
            }
            assertThat(tables)
                    .as("the ledger's tables")
                    .hasSizeGreaterThan(10)
                    .contains("public.fence_events", "public.processes", "public.assignments", "public.receipts");
            for (String table : tables) {
                try (ResultSet rs = s.executeQuery("SELECT t::text FROM " + table + " t")) {
                    while (rs.next()) {
                        all.append(table).append(' ').append(rs.getString(1)).append('\n');
                    }
                }
            }
        }
        return all.toString();
    }

    private static void assertNoFileNamesOrHolds(Path root) throws IOException {
        try (Stream<Path> files = Files.walk(root)) {
            for (Path p : files.toList()) {
                assertThat(p.toString()).doesNotContain(PASSWORD);
                if (Files.isRegularFile(p) && !p.getFileName().toString().equals("pgpass")) {
                    try {
                        assertThat(new String(Files.readAllBytes(p), StandardCharsets.ISO_8859_1))
                                .as("file %s", p)
                                .doesNotContain(PASSWORD);
                    } catch (IOException e) {
                        throw new UncheckedIOException(e);
                    }
                }
            }
        }
    }
}
