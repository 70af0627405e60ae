package dev.sovereign.engine.attack.standing;

import dev.sovereign.engine.attack.standing.Strike.Form;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.sessions.JqwikSession;

/**
 * The standing attack suite's strikes as a nemesis of a running ledger (the PostgreSQL torture run, decision 0908):
 * hand-written SQL from a worker login of its own — a member of the ledger's worker role, with a session row of its
 * own, like a compromised worker host — against the rows the workers are using while they use them. Only the
 * strikes that no rule of the fence allows are sent (a bare DELETE, a row deleted and forged again, an UPDATE that
 * changes a fence column to a value in the past, years ahead, of the wrong type, in another host's session, a
 * counter wound), so every one the database accepts is a hole; the run's history checker still judges the rest.
 * (A replaced row is left out: over an expired grant, a replacement that presents its token is the fence working.)
 * Not thread-safe: the nemesis's one thread.
 */
public final class HostileSql implements Scene, AutoCloseable {
    /** The tables it strikes, whose rows the workers use while it strikes. */
    private static final List<String> TABLES = List.of(
            "actor_leases",
            "processes",
            "token_counter",
            "messages",
            "execution_attempts",
            "assignments",
            "fence_events",
            "receipts");

    private static final Set<Form> FORMS = Set.of(Form.UPDATE, Form.DELETE, Form.DELETE_INSERT);

    private final String ownerUrl;
    private final String loginUrl;
    private final List<String> actors;
    private final Random random;
    /** The strikes, drawn once from the suite's generator with the run's seed, taken in turn. */
    private final List<Strike> strikes = new ArrayList<>();

    private int next;
    private final String identity = "proc_" + UUID.randomUUID();
    private Connection owner;
    private String victim;
    private String actor;
    private long now;
    private int sent;
    private int refused;
    private final List<String> accepted = new ArrayList<>();

    private HostileSql(String ownerUrl, String loginUrl, List<String> actors, long seed) {
        this.ownerUrl = ownerUrl;
        this.loginUrl = loginUrl;
        this.actors = List.copyOf(actors);
        this.random = new Random(seed);
        Arbitrary<Strike> any = Arbitraries.of(TABLES)
                .flatMap(t -> Attacks.strike(Dialect.POSTGRES, t, List.copyOf(FORMS)))
                .filter(HostileSql::neverAllowed);
        // outside a property, jqwik generates inside a session of its own, from the given seed
        JqwikSession.run(
                Long.toString(seed), () -> any.sampleStream().limit(500).forEach(strikes::add));
    }

    /**
     * A nemesis on the PostgreSQL ledger at {@code ownerUrl} (its owner's URL, which it uses only to make its login
     * and to read rows): a new login role in {@code sovereign_<database>_worker}, which registers a process of its
     * own, as an engine of a worker host would.
     */
    public static HostileSql onPostgres(String ownerUrl, String database, List<String> actors, long seed)
            throws SQLException {
        String role = "hostile_" + Long.toUnsignedString(seed, 36).replaceAll("[^a-z0-9]", "");
        try (Connection c = DriverManager.getConnection(ownerUrl);
                Statement s = c.createStatement()) {
            s.execute("CREATE ROLE " + role + " LOGIN PASSWORD '" + role + "'");
            s.execute("GRANT sovereign_" + database + "_worker TO " + role);
            LedgerTables.read(Dialect.POSTGRES, c); // the tables as this ledger has them: the strikes' keys
        }
        String login = ownerUrl.replaceFirst("user=[^&]*", "user=" + role + "&password=" + role);
        HostileSql h = new HostileSql(ownerUrl, login, actors, seed);
        try (Connection c = DriverManager.getConnection(login);
                PreparedStatement ps =
                        c.prepareStatement("INSERT INTO processes (identity, pid, host, kind, started_at,"
                                + " heartbeat_at, heartbeat_interval_ms) VALUES (?, 0, 'hostile', 'hostile', sovereign_now_ms(),"
                                + " sovereign_now_ms(), 1000)")) {
            ps.setString(1, h.identity);
            ps.executeUpdate();
        }
        return h;
    }

    /** A strike no rule of the fence allows: a fence column, a value no legitimate write could write there. */
    static boolean neverAllowed(Strike s) {
        if (!FORMS.contains(s.form())) {
            return false;
        }
        if (s.form() != Form.UPDATE) {
            return true; // a bare DELETE; a row deleted and forged again; a row replaced
        }
        Columns.Kind kind = Columns.kind(s.table(), s.column());
        if (kind == Columns.Kind.TEXT
                || kind == Columns.Kind.COUNT
                || (s.table().equals("processes")
                        && !List.of("heartbeat_at", "stopped_at").contains(s.column()))) {
            return false; // display columns: not the fence's
        }
        Value v = s.value();
        return switch (v.kind()) {
            case LITERAL -> true; // a past, a far future, a wrong type, an end of the range, a state
            case ROW_PLUS -> v.n() < 0 || v.n() > 1_000_000; // backwards, or a wound counter
            case NOW_PLUS -> v.n() < 0 || v.n() > Value.YEAR;
            case COUNTER_PLUS, PROCESS, OTHER_ROW -> kind != Columns.Kind.COUNTER;
        };
    }

    /** What one strike came to. */
    public enum Outcome {
        /** The database refused it (a guard, a privilege, a type, a constraint): what the fence promises. */
        REFUSED,
        /** The database accepted it: a hole, named in {@link Result#what}. */
        ACCEPTED,
        /** It judged nothing: no row to strike, the server restarting, a lock held past the timeout. */
        NOTHING
    }

    /** A strike's outcome and, in words, the strike with its statements. */
    public record Result(Outcome outcome, String what) {}

    /**
     * Sends one strike, as one transaction of the worker login, at a row a worker is using now (a statement that
     * would wait more than 2 s for a worker's lock gives up and judges nothing).
     */
    public Result strike() {
        Strike s = strikes.get(next++ % strikes.size());
        try {
            if (owner == null || owner.isClosed()) {
                owner = DriverManager.getConnection(ownerUrl);
            }
            now = readNow();
            victim = pickVictim();
            actor = actors.get(random.nextInt(actors.size()));
            Facts facts = Facts.read(owner, Dialect.POSTGRES);
            List<String> statements = victim == null ? List.of() : s.statements(this, facts);
            if (statements.isEmpty()) {
                return new Result(Outcome.NOTHING, "no row to strike: " + s);
            }
            if (s.form() == Form.UPDATE) {
                Map<String, Object> row = s.target(this, facts);
                String v = s.value().render(this, s.column(), row, facts.rows(s.table()));
                if (v.equals(Literals.of(Dialect.POSTGRES, row.get(s.column())))) {
                    return new Result(Outcome.NOTHING, "no change: " + s); // a row's own value is no attack
                }
            }
            String what = s + ": " + String.join("; ", statements);
            try (Connection c = DriverManager.getConnection(loginUrl)) {
                try (Statement st = c.createStatement()) {
                    st.execute("SET statement_timeout = 2000");
                }
                c.setAutoCommit(false);
                try (Statement st = c.createStatement()) {
                    for (String sql : statements) {
                        st.execute(sql);
                    }
                    c.commit();
                } catch (SQLException e) {
                    c.rollback();
                    String state = String.valueOf(e.getSQLState());
                    boolean refusal = state.equals("SV001")
                            || state.startsWith("22")
                            || state.startsWith("23")
                            || state.startsWith("42");
                    if (refusal) {
                        refused++;
                    }
                    sent += refusal ? 1 : 0;
                    return new Result(
                            refusal ? Outcome.REFUSED : Outcome.NOTHING,
                            what + " -> " + state + " " + e.getMessage().replace('\n', ' '));
                }
            }
            sent++;
            accepted.add(what);
            return new Result(Outcome.ACCEPTED, what);
        } catch (SQLException | RuntimeException e) {
            try {
                if (owner != null) {
                    owner.close();
                }
            } catch (SQLException ignored) {
                // reconnects next time
            }
            owner = null;
            return new Result(Outcome.NOTHING, "the server is away: " + e.getMessage());
        }
    }

    private long readNow() throws SQLException {
        try (Statement st = owner.createStatement();
                ResultSet rs = st.executeQuery("SELECT sovereign_now_ms()")) {
            rs.next();
            return rs.getLong(1);
        }
    }

    /** A live worker's process: the strike is aimed at another host. */
    private String pickVictim() throws SQLException {
        List<String> live = new ArrayList<>();
        try (PreparedStatement ps = owner.prepareStatement("SELECT identity FROM processes WHERE stopped_at IS NULL"
                + " AND identity <> ? AND kind <> 'hostile' ORDER BY identity")) {
            ps.setString(1, identity);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    live.add(rs.getString(1));
                }
            }
        }
        return live.isEmpty() ? null : live.get(random.nextInt(live.size()));
    }

    /** How many strikes reached the database. */
    public int sent() {
        return sent;
    }

    /** How many of them the database refused. */
    public int refused() {
        return refused;
    }

    /** The strikes the database accepted, each with its statements: every one is a hole. */
    public List<String> accepted() {
        return List.copyOf(accepted);
    }

    @Override
    public Dialect dialect() {
        return Dialect.POSTGRES;
    }

    @Override
    public long now() {
        return now;
    }

    @Override
    public String victim() {
        return victim;
    }

    @Override
    public String attacker() {
        return identity;
    }

    @Override
    public String actor(String name) {
        return actor;
    }

    @Override
    public Connection owner() {
        return owner;
    }

    @Override
    public void close() {
        try {
            if (owner != null) {
                owner.close();
            }
        } catch (SQLException ignored) {
            // closing
        }
    }
}
