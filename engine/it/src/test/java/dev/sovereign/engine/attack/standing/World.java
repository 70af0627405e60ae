package dev.sovereign.engine.attack.standing;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.base.Durability;
import dev.sovereign.engine.base.EngineConfig;
import dev.sovereign.engine.base.LedgerLocation;
import dev.sovereign.engine.testing.SettableClock;
import dev.sovereign.engine.testing.TestBackend;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Properties;
import java.util.Random;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * One try's ledger: fresh, real, of the backend under test, with the hosts that use it — engine A (the victim),
 * engine B (another host, whose login the attacker holds), and on demand the operator's engine (the supervisor,
 * retries, acknowledgements) — and the test's clock, which a PostgreSQL server is pinned to. The owner's
 * connection reads the facts; it never writes but the actors' rows. Closing removes everything. Not thread-safe.
 */
final class World implements Scene, AutoCloseable {
    /** The actor the hosts fight over and another one (a write to another lease), named anew for each try. */
    static final List<String> ACTORS = List.of("w", "x");

    private final TestBackend backend;
    private final Dialect dialect;
    private final Path dir;
    private final LedgerLocation location;
    private final SettableClock clock = new SettableClock();
    private final Random jitter;
    private final List<Engine> engines = new ArrayList<>();
    private final LedgerLocation loginA;
    private final LedgerLocation loginB;
    private final Engine a;
    private final Engine b;
    private Engine operator;
    private final Connection owner;
    private int probes;
    private int tries;

    private World(TestBackend backend, long seed) throws IOException, SQLException {
        this.backend = backend;
        this.dialect = Dialect.of(backend);
        this.jitter = new Random(seed);
        this.dir = Files.createTempDirectory("sovereign-attack-");
        this.location = backend.freshLedger(dir, "attack");
        if (location.isFile()) {
            // a copy of a ledger migrated once per JVM: a try's time goes to attacks, not to migrations
            Files.copy(template(), location.file().orElseThrow());
        }
        backend.clockFor(location, clock);
        this.loginA = backend.workerLogin(location, "host_a");
        this.loginB = backend.workerLogin(location, "host_b");
        this.a = open(loginA, "a");
        this.owner = connect(location);
        this.b = open(loginB, "b");
    }

    /** A new world; {@code seed} makes its small waits (a renewal one to three seconds later) repeatable. */
    static World open(TestBackend backend, long seed) {
        try {
            return new World(backend, seed);
        } catch (IOException | SQLException e) {
            throw new IllegalStateException("cannot set up an attack ledger: " + e.getMessage(), e);
        }
    }

    private Engine open(LedgerLocation login, String name) {
        Engine e = Engine.open(config(login, name).build());
        engines.add(e);
        return e;
    }

    /**
     * The engines' settings: no background beat (the operations beat by hand), and on SQLite {@code synchronous =
     * NORMAL} — what survives a power cut is not what this suite tries, and each try commits some fifty times.
     */
    EngineConfig.Builder config(LedgerLocation login, String name) {
        return EngineConfig.forDatabase(login)
                .dataDirectory(dir.resolve("data-" + name))
                .clock(clock)
                .durability(Durability.NORMAL)
                .heartbeat(false)
                .heartbeatInterval(Duration.ofSeconds(1))
                .busyBound(Duration.ofSeconds(10));
    }

    private static Path template;

    /**
     * An empty SQLite ledger at the schema's latest version, made once per JVM by an engine that registers no
     * process (it writes nothing but the migrations) and closed, so its file is complete without its WAL.
     */
    static synchronized Path template() throws IOException {
        if (template == null) {
            Path dir = Files.createTempDirectory("sovereign-attack-template-");
            Path file = dir.resolve("template.db");
            try (Engine e = Engine.open(EngineConfig.forDatabase(file)
                    .dataDirectory(dir.resolve("data"))
                    .heartbeat(false)
                    .registerLazily(true)
                    .build())) {
                e.processIdentity();
            }
            if (Files.exists(dir.resolve("template.db-wal"))) {
                throw new IllegalStateException("the template ledger kept a WAL after its engine closed: " + dir);
            }
            template = file;
        }
        return template;
    }

    /**
     * Starts the next try on this ledger: its own actors ({@link #actor}), added by the owner, so that what earlier
     * tries left (their leases, claims and runs, all of which the attacker failed to change) is only background.
     * Returns how many tries this ledger served before.
     */
    int beginTry() throws SQLException {
        tries++;
        for (String actor : ACTORS) {
            addActor(actor(actor));
        }
        return tries - 1;
    }

    /** How many tries this ledger has served. */
    int tries() {
        return tries;
    }

    /** This try's name for the actor the operations call {@code name} ("w": the one fought over; "x": another). */
    @Override
    public String actor(String name) {
        return name + tries;
    }

    private void addActor(String id) throws SQLException {
        try (PreparedStatement ps = owner.prepareStatement(
                "INSERT INTO actors (id, workspace_policy, created_at) VALUES (?, 'temporary', ?)")) {
            ps.setString(1, id);
            ps.setLong(2, now());
            ps.executeUpdate();
        }
    }

    /** A plain JDBC connection: the file itself, or a server login's URL; no pragma of the engine's. */
    static Connection connect(LedgerLocation l) throws SQLException {
        if (l.isFile()) {
            Properties p = new Properties();
            p.setProperty("busy_timeout", "5000");
            return DriverManager.getConnection("jdbc:sqlite:" + l.file().orElseThrow(), p);
        }
        return DriverManager.getConnection(l.text());
    }

    /**
     * The attacker's connection: another host's worker login on a server (B's), the file itself on SQLite, with
     * {@code recursive_triggers} as given (SQLite's default is OFF, so REPLACE's implicit delete fires no trigger).
     */
    Connection attacker(boolean recursiveTriggers) throws SQLException {
        Connection c = connect(loginB);
        if (dialect == Dialect.SQLITE) {
            try (Statement s = c.createStatement()) {
                s.execute("PRAGMA recursive_triggers = " + (recursiveTriggers ? "ON" : "OFF"));
            }
        }
        return c;
    }

    /** The ledger's owner, for what a worker login may not do (PostgreSQL's DDL), and for reading the facts. */
    @Override
    public Connection owner() {
        return owner;
    }

    @Override
    public Dialect dialect() {
        return dialect;
    }

    @Override
    public String victim() {
        return a.processIdentity();
    }

    @Override
    public String attacker() {
        return b.processIdentity();
    }

    /** The login role the attacker's statements come from on a server (B's), or null for a file. */
    String attackerLogin() {
        if (loginB.isFile()) {
            return null;
        }
        Matcher m = Pattern.compile("[?&]user=([^&]+)").matcher(loginB.text());
        return m.find() ? m.group(1) : null;
    }

    LedgerLocation location() {
        return location;
    }

    Engine a() {
        return a;
    }

    Engine b() {
        return b;
    }

    Engine engine(char who) {
        return who == 'A' ? a : b;
    }

    /** The engine whose process is {@code identity}, if it is one of this world's hosts. */
    Engine engineOf(Object identity) {
        if (identity == null) {
            return null;
        }
        for (Engine e : engines) {
            if (identity.equals(e.processIdentity())) {
                return e;
            }
        }
        return null;
    }

    /** The operator's engine (a member of the operator role on a server), opened on first use. */
    Engine supervisor() {
        if (operator == null) {
            operator = open(backend.operatorLogin(location, "ops"), "ops");
        }
        return operator;
    }

    /** The true time: the test's clock, which every engine here reads and a server's clock is pinned to. */
    @Override
    public long now() {
        return clock.millis();
    }

    void advance(long millis) {
        clock.advance(Duration.ofMillis(millis));
    }

    long jitter(int bound) {
        return jitter.nextInt(bound);
    }

    /** A new actor for one probe (the next grant must find a free one), added by the owner. */
    String freshActor() throws SQLException {
        String id = "probe_" + (++probes);
        addActor(id);
        return id;
    }

    /** Opens a new engine on the ledger as the owner would (the next open after an attack must judge the schema). */
    Engine reopen() {
        Engine e = Engine.open(config(location, "reopened").build());
        engines.add(e);
        return e;
    }

    @Override
    public void close() {
        for (Engine e : engines) {
            try {
                e.close();
            } catch (RuntimeException ignored) {
                // an attack may have left it unable to close cleanly; the ledger goes anyway
            }
        }
        try {
            owner.close();
        } catch (SQLException ignored) {
            // closing
        }
        backend.dispose(location);
        try (Stream<Path> all = Files.walk(dir)) {
            all.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException ignored) {
            // best effort: a temporary folder
        }
    }
}
