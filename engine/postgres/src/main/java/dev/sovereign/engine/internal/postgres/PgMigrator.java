package dev.sovereign.engine.internal.postgres;

import dev.sovereign.engine.base.LedgerLocation;
import dev.sovereign.engine.internal.postgres.PgSchemaException.Problem;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Forward-only schema migrations of a PostgreSQL ledger, and the check every open makes that the
 * database still enforces the fence.
 *
 * <p>The ledger lives in the connection's {@code current_schema()}. Each migration runs in one READ
 * COMMITTED transaction that first takes a transaction-scoped advisory lock and then re-reads the
 * version, so two processes opening a fresh database at once apply each migration exactly once (the
 * second waits, then sees the first one's commit). PostgreSQL's DDL is transactional: a migration that
 * fails leaves nothing behind. The version stamp is the migration's row in {@code schema_migrations},
 * written in the same transaction.
 *
 * <p>Before anything is written a schema that holds tables but no Sovereign migration record is
 * refused ({@link Problem#NOT_OURS}), as is one migrated by a newer Sovereign
 * ({@link Problem#SCHEMA_TOO_NEW}). After migrating, every open compares each guard the migrations
 * created with the catalog: the trigger on its table, with its definition, enabled ALWAYS, and its
 * function with the migration's body and language, and its search_path pinned to the
 * built-ins first, then the ledger; no other trigger or rule on a ledger table; and no foreign key
 * whose triggers were switched off. A dropped, disabled or replaced guard is refused ({@link Problem#CORRUPT}).
 * So is a grant that lets a role other than the owner get around the fence (decision 0903,
 * {@link #grantProblems}).
 *
 * <p>Stateless apart from its options; one instance may be used from several threads, each with its
 * own connection. The connection's auto-commit and isolation are restored afterwards.
 */
public final class PgMigrator {
    /** The migration scripts, in order; an applied one is never edited. */
    public static final List<String> MIGRATIONS = List.of(
            "V0001__initial.sql",
            "V0002__server_clock_offset.sql",
            "V0003__roles.sql",
            "V0004__attempts_end_through_their_fence.sql",
            "V0005__one_round_trip_lease_writes.sql",
            "V0006__a_cheaper_server_clock.sql",
            "V0007__leases_attached_to_their_holder.sql",
            "V0008__sessions_bound_to_their_login.sql",
            "V0009__claims_attempts_and_operator_actions_bound.sql",
            "V0010__the_ledgers_history.sql",
            "V0011__the_change_counter_steps.sql",
            "V0012__leases_bound_to_their_holders_login.sql",
            "V0013__the_journal_is_pruned_below_a_watermark.sql",
            "V0014__finished_work_is_pruned_when_old.sql",
            "V0015__the_beat_in_one_call.sql",
            "V0016__the_mailbox_in_one_call.sql",
            "V0017__a_runs_writes_in_one_call.sql",
            "V0018__the_change_marker_is_the_writers_transaction.sql",
            "V0019__tokens_from_stripes_of_the_counter.sql",
            "V0020__one_mint_carries_one_write.sql",
            "V0021__a_claims_record_and_a_tombstones_marker_are_kept.sql",
            "V0022__the_fences_helpers_planned_once.sql");
    /** The schema version this code writes and understands. */
    public static final int LATEST = MIGRATIONS.size();

    /** The advisory lock (per database) that migrating processes queue on: "Sovereign" in ASCII. */
    public static final long MIGRATION_LOCK = 0x536f7665726569L;

    private static final Pattern FUNCTION = Pattern.compile(
            "CREATE (?:OR REPLACE )?FUNCTION (\\w+)\\([^)]*\\) RETURNS ((?:SETOF )?\\w+) LANGUAGE (\\w+)([^$]*?)AS \\$\\$(.*?)\\$\\$",
            Pattern.DOTALL);
    private static final Pattern TRIGGER =
            Pattern.compile("CREATE TRIGGER (\\w+) [A-Z ]+? ON (\\w+) FOR EACH [^;]*?\\)(?=;)", Pattern.DOTALL);
    /** A guard a later version drops (and may create again with another definition, decision 0018). */
    private static final Pattern DROP_TRIGGER = Pattern.compile("DROP TRIGGER (\\w+) ON (\\w+)");

    private static final Pattern LEDGER_TABLE = Pattern.compile("CREATE TABLE (\\w+)");
    /** A script taking EXECUTE from PUBLIC on the functions it names (with their argument types). */
    private static final Pattern REVOKE_EXECUTE =
            Pattern.compile("REVOKE EXECUTE ON FUNCTION ([^;]*?) FROM PUBLIC", Pattern.DOTALL);
    /** An index a script creates or drops, in the order the script does it. */
    private static final Pattern INDEX = Pattern.compile("(CREATE (?:UNIQUE )?INDEX|DROP INDEX) (\\w+)");
    /** A table's definition, for the indexes its key and unique columns get from PostgreSQL. */
    private static final Pattern TABLE_BODY = Pattern.compile("CREATE TABLE (\\w+) \\((.*?)\\n\\);", Pattern.DOTALL);

    private static final Pattern UNIQUE_COLUMN = Pattern.compile("(?m)^\\s*(\\w+)\\s+\\w+[^\\n]*\\bUNIQUE\\b");
    /** A key sequence beyond this was wound forward by hand: the journal could not take another row. */
    private static final long SEQUENCE_LIMIT = 1L << 62;

    private final boolean labSandbox;
    private final String sovereignVersion;
    private final String sovereignCommit;
    private final int lockTimeoutMillis;

    /**
     * @param labSandbox whether a ledger this migrator creates is marked as a lab sandbox (only a new,
     *     empty ledger can be; an existing one keeps its mark)
     * @param sovereignVersion the Sovereign version recorded in {@code schema_migrations}
     * @param sovereignCommit the Git commit recorded beside it
     * @param lockTimeoutMillis how long to wait for another process's migration before giving up
     */
    public PgMigrator(boolean labSandbox, String sovereignVersion, String sovereignCommit, int lockTimeoutMillis) {
        if (lockTimeoutMillis <= 0) {
            throw new IllegalArgumentException("lockTimeoutMillis must be positive, was " + lockTimeoutMillis);
        }
        this.labSandbox = labSandbox;
        this.sovereignVersion = sovereignVersion;
        this.sovereignCommit = sovereignCommit;
        this.lockTimeoutMillis = lockTimeoutMillis;
    }

    /** Checks the ledger, applies what is missing, then checks every guard. Returns the schema version. */
    public int migrate(Connection c) {
        return migrateTo(c, LATEST);
    }

    /**
     * As {@link #migrate}, but only up to schema version {@code target}: how a test builds the ledger an older
     * Sovereign left behind (never used by the engine, which always migrates to {@link #LATEST}).
     */
    int migrateTo(Connection c, int target) {
        if (target < 1 || target > LATEST) {
            throw new IllegalArgumentException("no schema version " + target + " (1.." + LATEST + ")");
        }
        String where = where(c);
        boolean autoCommit = true;
        int isolation = Connection.TRANSACTION_READ_COMMITTED;
        try {
            autoCommit = c.getAutoCommit();
            isolation = c.getTransactionIsolation();
            int version = check(c, where);
            for (int next = version + 1; next <= target; next++) {
                apply(c, next, where);
            }
        } catch (SQLException e) {
            throw translate(e, where);
        } finally {
            restore(c, autoCommit, isolation);
        }
        verify(c);
        return target;
    }

    /**
     * Refuses, with one sentence, a ledger whose guards are no longer what the migrations created, or whose
     * grants let a role other than its owner around them.
     */
    public static void verify(Connection c) {
        String where = where(c);
        List<String> problems;
        try {
            problems = guardProblems(c);
        } catch (SQLException e) {
            throw translate(e, where);
        }
        if (!problems.isEmpty()) {
            problems = eachGuardOnce(problems);
            throw new PgSchemaException(
                    Problem.CORRUPT,
                    "The PostgreSQL ledger " + where + " was changed by hand ("
                            + String.join("; ", problems.subList(0, Math.min(3, problems.size())))
                            + (problems.size() > 3 ? "; ..." : "")
                            + "), so it no longer enforces the fence; refusing to"
                            + " open it, also for reading (see docs/decisions/0900-postgresql-schema-and-guards.md).",
                    null);
        }
        List<String> grants;
        try {
            grants = grantProblems(c);
        } catch (SQLException e) {
            throw translate(e, where);
        }
        if (!grants.isEmpty()) {
            throw new PgSchemaException(
                    Problem.CORRUPT,
                    "The PostgreSQL ledger " + where + " grants more than"
                            + " Sovereign's roles allow ("
                            + String.join("; ", grants.subList(0, Math.min(3, grants.size())))
                            + (grants.size() > 3 ? "; ..." : "")
                            + "), so a role other than its owner could get around the"
                            + " fence; revoke it, then open again (see docs/decisions/0903-open-time-grant-verification.md).",
                    null);
        }
    }

    /**
     * A guard dropped with its function ({@code DROP FUNCTION … CASCADE} takes the trigger along) is one problem,
     * named once: "guard X is missing (its trigger and its function)", not "guard function X is missing; guard X is
     * missing" (issue 26).
     */
    static List<String> eachGuardOnce(List<String> problems) {
        List<String> out = new ArrayList<>();
        for (String p : problems) {
            if (p.startsWith("guard function ") && p.endsWith(" is missing")) {
                String name = p.substring("guard function ".length(), p.length() - " is missing".length());
                if (problems.contains("guard " + name + " is missing")) {
                    out.add("guard " + name + " is missing (its trigger and its function)");
                    continue;
                }
            }
            if (p.startsWith("guard ") && p.endsWith(" is missing") && !p.startsWith("guard function ")) {
                String name = p.substring("guard ".length(), p.length() - " is missing".length());
                if (problems.contains("guard function " + name + " is missing")) {
                    continue; // said with its function above
                }
            }
            out.add(p);
        }
        return out;
    }

    // ---- the grants (decision 0903) -----------------------------------------------------------------------

    /** The first schema version that creates the worker and operator roles and revokes PUBLIC's privileges. */
    static final int ROLES_VERSION = 3;

    /**
     * What the worker group role holds on each ledger table, exactly (decision 0902's table); a grant beyond
     * it is refused. A migration that adds a table adds it here, with the grant its script gives.
     */
    static final Map<String, String> WORKER_TABLE_PRIVILEGES = Map.ofEntries(
            Map.entry("token_counter", "SELECT,UPDATE"),
            Map.entry("lease_change_counter", "SELECT,UPDATE"),
            Map.entry("actor_leases", "DELETE,INSERT,SELECT,UPDATE"),
            Map.entry("processes", "INSERT,SELECT,UPDATE"),
            Map.entry("assignments", "INSERT,SELECT,UPDATE"),
            Map.entry("execution_attempts", "INSERT,SELECT,UPDATE"),
            Map.entry("messages", "INSERT,SELECT,UPDATE"),
            Map.entry("lease_tombstones", "INSERT,SELECT,UPDATE"),
            Map.entry("fence_events", "INSERT,SELECT"),
            // contention counted per window (decision 0019); the policy read by everyone, set by the operator
            Map.entry("lease_contention", "INSERT,SELECT,UPDATE"),
            Map.entry("retention", "SELECT"),
            Map.entry("ledger_history", "INSERT,SELECT"),
            Map.entry("receipts", "INSERT,SELECT"),
            // INSERT only when the owner let workers add actors (decision 0116: sovereign actor workers-may-add on)
            Map.entry("actors", "INSERT,SELECT"),
            Map.entry("supervisor_ticks", "SELECT"),
            Map.entry("server_clock", "SELECT"),
            Map.entry("ledger_mark", "SELECT"),
            Map.entry("schema_migrations", "SELECT"));
    /** What the operator group role holds directly (it is also a member of the worker). */
    static final Map<String, String> OPERATOR_TABLE_PRIVILEGES = Map.ofEntries(
            Map.entry("actors", "INSERT"),
            Map.entry("supervisor_ticks", "DELETE,INSERT"),
            // pruning and the retention policy (decision 0018)
            Map.entry("fence_events", "DELETE"),
            Map.entry("lease_contention", "DELETE"),
            Map.entry("retention", "UPDATE"),
            // pruning finished work (decision 0020)
            Map.entry("assignments", "DELETE"),
            Map.entry("execution_attempts", "DELETE"),
            Map.entry("receipts", "DELETE"),
            Map.entry("messages", "DELETE"),
            Map.entry("processes", "DELETE"));

    /**
     * What is wrong with the grants on the ledger, in words; empty when nothing is (decision 0903). Reads the
     * access lists themselves ({@code aclexplode}), so each sentence names the role that holds the privilege
     * (PUBLIC included); the owner of the table or schema and superusers are not counted. Ledgers older than
     * the roles (schema version 2 and below) are not checked: they have no roles yet.
     */
    public static List<String> grantProblems(Connection c) throws SQLException {
        int version = Math.min(schemaVersion(c), LATEST);
        List<String> problems = new ArrayList<>();
        if (version < ROLES_VERSION) {
            return problems;
        }
        String schema = currentSchema(c);
        List<String> tables = new ArrayList<>();
        for (int v = 1; v <= version; v++) {
            tables.addAll(ExpectedOfEach.MIGRATION.get(v - 1).tables());
        }
        String worker;
        String operator;
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT x::name, y::name FROM (SELECT"
                        + " 'sovereign_' || current_database() || CASE WHEN current_schema() = 'public' THEN '' ELSE '_'"
                        + " || current_schema() END AS suffix) n, LATERAL (SELECT n.suffix || '_worker' AS x,"
                        + " n.suffix || '_operator' AS y) r")) {
            rs.next();
            worker = rs.getString(1);
            operator = rs.getString(2);
        }
        // grantee -> table -> privileges, for every grant on a ledger table or sequence to someone who is
        // neither its owner nor a superuser; grantee 0 is PUBLIC
        String grantee = "CASE WHEN a.grantee = 0 THEN 'PUBLIC' ELSE g.rolname END";
        Map<String, Map<String, TreeSet<String>>> tableGrants = new HashMap<>();
        try (PreparedStatement ps = c.prepareStatement("SELECT " + grantee + ", r.relname, r.relkind, a.privilege_type"
                + " FROM pg_class r JOIN pg_namespace n ON n.oid = r.relnamespace"
                + " CROSS JOIN LATERAL aclexplode(r.relacl) a LEFT JOIN pg_roles g ON g.oid = a.grantee"
                + " WHERE n.nspname = ? AND r.relkind IN ('r', 'p', 'S') AND a.grantee <> r.relowner"
                + " AND NOT coalesce(g.rolsuper, false) ORDER BY 1, 2, 4")) {
            ps.setString(1, schema);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    String role = rs.getString(1);
                    String relation = rs.getString(2);
                    boolean sequence = "S".equals(rs.getString(3));
                    String privilege = rs.getString(4);
                    if (sequence) {
                        // setval needs UPDATE; the worker needs USAGE (the journal's guard reads currval)
                        if (privilege.equals("UPDATE")
                                || role.equals("PUBLIC")
                                || ((role.equals(worker) || role.equals(operator)) && !privilege.equals("USAGE"))) {
                            problems.add(name(role) + " holds " + privilege + " on the sequence " + relation);
                        }
                        continue;
                    }
                    if (!tables.contains(relation)) {
                        continue;
                    }
                    if (role.equals("PUBLIC")
                            || List.of("TRUNCATE", "TRIGGER", "REFERENCES").contains(privilege)) {
                        problems.add(name(role) + " holds " + privilege + " on " + relation);
                    } else {
                        tableGrants
                                .computeIfAbsent(role, k -> new TreeMap<>())
                                .computeIfAbsent(relation, k -> new TreeSet<>())
                                .add(privilege);
                    }
                }
            }
        }
        Map<String, Map<String, String>> exactly = new LinkedHashMap<>();
        exactly.put(worker, WORKER_TABLE_PRIVILEGES);
        exactly.put(operator, OPERATOR_TABLE_PRIVILEGES);
        for (Map.Entry<String, Map<String, String>> group : exactly.entrySet()) {
            for (Map.Entry<String, TreeSet<String>> held :
                    tableGrants.getOrDefault(group.getKey(), Map.of()).entrySet()) {
                List<String> allowed =
                        List.of(group.getValue().getOrDefault(held.getKey(), "").split(","));
                for (String privilege : held.getValue()) {
                    if (!allowed.contains(privilege)) {
                        problems.add("the role " + group.getKey() + " holds " + privilege + " on " + held.getKey()
                                + ", beyond decision 0902's table");
                    }
                }
            }
        }
        // The ledger's functions: owned by the ledger's owner or a superuser (whoever owns one may replace it, make it
        // STRICT or drop it, and a guard's trigger with it), and EXECUTE only where the migrations put it: a function
        // they took
        // from PUBLIC (the one-call writes) is the worker's and the operator's, and nobody else's.
        List<String> takenFromPublic = new ArrayList<>();
        for (int v = 1; v <= version; v++) {
            takenFromPublic.addAll(ExpectedOfEach.MIGRATION.get(v - 1).executeTakenFromPublic());
        }
        try (PreparedStatement ps = c.prepareStatement("SELECT p.proname, pg_get_userbyid(p.proowner),"
                + " p.proowner = (SELECT t.relowner FROM pg_class t WHERE t.relnamespace = p.pronamespace"
                + " AND t.relname = 'schema_migrations')"
                + " OR (SELECT o.rolsuper FROM pg_roles o WHERE o.oid = p.proowner), " // a superuser may migrate
                + grantee + ", a.privilege_type"
                + " FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace"
                + " CROSS JOIN LATERAL aclexplode(coalesce(p.proacl, acldefault('f', p.proowner))) a"
                + " LEFT JOIN pg_roles g ON g.oid = a.grantee"
                + " WHERE n.nspname = ? ORDER BY 1, 4")) {
            ps.setString(1, schema);
            TreeSet<String> notOwned = new TreeSet<>();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    String function = rs.getString(1);
                    if (!rs.getBoolean(3)) {
                        notOwned.add("the role " + rs.getString(2) + " owns the function " + function
                                + ", not the ledger's owner");
                    }
                    String role = rs.getString(4);
                    if (role.equals(rs.getString(2)) || role.equals(worker) || role.equals(operator)) {
                        continue;
                    }
                    if (role.equals("PUBLIC") ? takenFromPublic.contains(function) : !isSuperuser(c, role)) {
                        problems.add(name(role) + " holds " + rs.getString(5) + " on the function " + function);
                    }
                }
            }
            problems.addAll(notOwned);
        }
        // The schema's owner may drop anything in it, a guard's function (and with CASCADE its trigger) included: the
        // ledger's owner or a superuser, or pg_database_owner (PostgreSQL 15's public schema) when the database's owner
        // is one of those
        try (PreparedStatement ps = c.prepareStatement("SELECT CASE WHEN n.nspowner = 'pg_database_owner'::regrole"
                + " THEN pg_get_userbyid(d.datdba) ELSE pg_get_userbyid(n.nspowner) END,"
                + " n.nspowner = 'pg_database_owner'::regrole,"
                + " (SELECT o.rolsuper OR o.oid = t.relowner FROM pg_roles o WHERE o.oid = CASE WHEN n.nspowner ="
                + " 'pg_database_owner'::regrole THEN d.datdba ELSE n.nspowner END)"
                + " FROM pg_namespace n JOIN pg_class t ON t.relnamespace = n.oid AND t.relname = 'schema_migrations'"
                + " JOIN pg_database d ON d.datname = current_database() WHERE n.nspname = ?")) {
            ps.setString(1, schema);
            try (ResultSet rs = ps.executeQuery()) {
                if (rs.next() && !rs.getBoolean(3)) {
                    problems.add("the role " + rs.getString(1) + " owns the schema " + schema
                            + (rs.getBoolean(2) ? " (as the database's owner)" : "") + ", not the ledger's owner");
                }
            }
        }
        // CREATE on the ledger's schema: a function or table of someone else's beside the guards
        try (PreparedStatement ps = c.prepareStatement("SELECT " + grantee + ", a.privilege_type FROM pg_namespace n"
                + " CROSS JOIN LATERAL aclexplode(n.nspacl) a LEFT JOIN pg_roles g ON g.oid = a.grantee"
                + " WHERE n.nspname = ? AND a.privilege_type = 'CREATE' AND a.grantee <> n.nspowner"
                + " AND NOT coalesce(g.rolsuper, false) ORDER BY 1")) {
            ps.setString(1, schema);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    problems.add(name(rs.getString(1)) + " holds CREATE on the schema " + schema);
                }
            }
        }
        return problems;
    }

    private static boolean isSuperuser(Connection c, String role) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT rolsuper FROM pg_roles WHERE rolname = ?")) {
            ps.setString(1, role);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() && rs.getBoolean(1);
            }
        }
    }

    private static String name(String role) {
        return role.equals("PUBLIC") ? "PUBLIC (every role)" : "the role " + role;
    }

    /** The schema version of the ledger in the connection's current schema; 0 when it has none yet. */
    public static int schemaVersion(Connection c) throws SQLException {
        if (!hasMigrationRecord(c)) {
            return 0;
        }
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(
                        "SELECT coalesce(max(schema_version), 0) FROM " + quotedSchema(c) + ".schema_migrations")) {
            rs.next();
            return rs.getInt(1);
        }
    }

    /**
     * For a reader that never migrates: refuses a database with no ledger (MISSING), a foreign schema, and a
     * ledger older or newer than this code, each in one sentence that names the ledger without its secrets.
     */
    static int checkReadable(Connection c, LedgerLocation location) throws SQLException {
        int version = check(c, String.valueOf(location));
        if (version == 0) {
            throw new PgSchemaException(
                    Problem.MISSING,
                    "There is no Sovereign ledger in the PostgreSQL database " + location
                            + " (create one with 'sovereign init').",
                    null);
        }
        if (version < LATEST) {
            throw new PgSchemaException(
                    Problem.IO,
                    "The PostgreSQL ledger " + location + " has the older schema"
                            + " version " + version
                            + "; run 'sovereign init' against it once (as its owner) to migrate it,"
                            + " then attach again.",
                    null);
        }
        return version;
    }

    /** The version of a ledger this code may open; refuses a foreign or newer one. Reads only. */
    private static int check(Connection c, String where) throws SQLException {
        if (currentSchema(c) == null) {
            throw new PgSchemaException(
                    Problem.IO,
                    "The PostgreSQL connection to " + where + " has no schema on its"
                            + " search_path to hold the ledger; create one or fix search_path.",
                    null);
        }
        int version = schemaVersion(c);
        if (version == 0 && objectsInSchema(c) > 0) {
            throw new PgSchemaException(
                    Problem.NOT_OURS,
                    "The PostgreSQL schema " + where + " holds tables that"
                            + " Sovereign did not create; refusing to touch it (name an empty database or schema).",
                    null);
        }
        if (version > LATEST) {
            throw new PgSchemaException(
                    Problem.SCHEMA_TOO_NEW,
                    "The PostgreSQL ledger " + where + " has schema version " + version
                            + ", newer than this Sovereign understands (" + LATEST + "); upgrade Sovereign.",
                    null);
        }
        return version;
    }

    private void apply(Connection c, int version, String where) throws SQLException {
        c.setAutoCommit(false);
        c.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
        try (Statement s = c.createStatement()) {
            s.execute("SET LOCAL lock_timeout = " + lockTimeoutMillis);
            s.execute("SELECT pg_advisory_xact_lock(" + MIGRATION_LOCK + ")");
            // Under the lock, each statement sees what committed before it: another process may have
            // migrated while this one waited.
            int current = check(c, where);
            if (current < version) {
                s.execute("SELECT set_config('search_path', quote_ident(current_schema()) || ', pg_catalog, pg_temp',"
                        + " true)");
                s.execute(load(MIGRATIONS.get(version - 1)));
                if (version == 1) {
                    writeLedgerMark(c);
                }
                recordMigration(c, version);
            }
            c.commit();
        } catch (SQLException | RuntimeException e) {
            try {
                c.rollback();
            } catch (SQLException ignored) {
                // the connection is gone; the transaction with it
            }
            throw e;
        }
    }

    /** The one ledger_mark row, with version 1: a sandbox only when asked for (the guard also wants it empty). */
    private void writeLedgerMark(Connection c) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(
                "INSERT INTO ledger_mark (id, lab_sandbox, marked_at) VALUES (1, ?, sovereign_now_ms())")) {
            ps.setInt(1, labSandbox ? 1 : 0);
            ps.executeUpdate();
        }
    }

    private void recordMigration(Connection c, int version) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(
                "INSERT INTO schema_migrations"
                        + " (schema_version, sovereign_version, sovereign_commit, migrated_at) VALUES (?, ?, ?, sovereign_now_ms())")) {
            ps.setInt(1, version);
            ps.setString(2, sovereignVersion);
            ps.setString(3, sovereignCommit);
            ps.executeUpdate();
        }
    }

    // ---- the guards ------------------------------------------------------------------------------------

    /** A guard trigger a migration creates: its table and its definition with whitespace folded. */
    record Trigger(String name, String table, String definition) {}

    /**
     * A function a migration creates: what {@code pg_proc} must still say about it. Its volatility too
     * ({@code provolatile}: {@code v}, {@code s} or {@code i}): a function made IMMUTABLE may be evaluated once when a
     * statement is planned (the server's clock, frozen), one made STABLE reads in one snapshot (decision 0919). And
     * its other behaviours as the migration wrote them ({@code STRICT}: a NULL argument skips the body and answers
     * NULL, so a guard's {@code IF NOT sovereign_acts_for(...)} would no longer refuse; {@code PARALLEL} and {@code
     * LEAKPROOF}), as {@code "strict|parallel|leakproof"}: {@code "f|u|f"} where the migration wrote none of them.
     * Cost and rows are planner estimates only and are not compared.
     */
    record Function(String name, String language, String body, String volatility, String behaviour) {}

    /**
     * What every open expects: the triggers and functions of the applied migrations and their tables, and the
     * indexes each creates or drops ({@code "+name"} / {@code "-name"}, in order; a key or unique column's own index
     * under PostgreSQL's name for it).
     */
    record Expected(
            List<String> droppedTriggers,
            Map<String, Trigger> triggers,
            Map<String, Function> functions,
            List<String> tables,
            List<String> indexChanges,
            List<String> executeTakenFromPublic) {}

    /**
     * Read from the scripts once per JVM, on first use rather than with the class: {@link #LATEST} is asked by every
     * CLI call, on SQLite too ({@code --version}'s lines).
     */
    private static final class ExpectedOfEach {
        static final List<Expected> MIGRATION = expectedOfEachMigration();
    }

    private static List<Expected> expectedOfEachMigration() {
        List<Expected> all = new ArrayList<>();
        for (String migration : MIGRATIONS) {
            String raw = load(migration);
            String script = withoutComments(raw);
            List<String> dropped = new ArrayList<>();
            Matcher d = DROP_TRIGGER.matcher(script);
            while (d.find()) {
                dropped.add(d.group(1));
            }
            Map<String, Trigger> triggers = new LinkedHashMap<>();
            Matcher t = TRIGGER.matcher(script);
            while (t.find()) {
                triggers.put(t.group(1), new Trigger(t.group(1), t.group(2), folded(t.group())));
            }
            Map<String, Function> functions = new LinkedHashMap<>();
            Matcher f = FUNCTION.matcher(raw); // a body keeps its comments in prosrc
            while (f.find()) {
                String attributes = f.group(4).toUpperCase(Locale.ROOT);
                String volatility = attributes.contains("IMMUTABLE") ? "i" : attributes.contains("STABLE") ? "s" : "v";
                String behaviour = (attributes.contains("STRICT") || attributes.contains("NULL ON NULL INPUT")
                                ? "t"
                                : "f")
                        + "|"
                        + (attributes.contains("PARALLEL SAFE")
                                ? "s"
                                : attributes.contains("PARALLEL RESTRICTED") ? "r" : "u")
                        + "|" + (attributes.contains("NOT LEAKPROOF") || !attributes.contains("LEAKPROOF") ? "f" : "t");
                functions.put(
                        f.group(1), new Function(f.group(1), f.group(3), folded(f.group(5)), volatility, behaviour));
            }
            List<String> tables = new ArrayList<>();
            Matcher tb = LEDGER_TABLE.matcher(script);
            while (tb.find()) {
                tables.add(tb.group(1));
            }
            List<String> indexChanges = new ArrayList<>();
            Matcher body = TABLE_BODY.matcher(script);
            while (body.find()) {
                if (body.group(2).contains("PRIMARY KEY")) {
                    indexChanges.add("+" + body.group(1) + "_pkey");
                }
                Matcher unique = UNIQUE_COLUMN.matcher(body.group(2));
                while (unique.find()) {
                    indexChanges.add("+" + body.group(1) + "_" + unique.group(1) + "_key");
                }
            }
            Matcher ix = INDEX.matcher(script);
            while (ix.find()) {
                indexChanges.add((ix.group(1).startsWith("DROP") ? "-" : "+") + ix.group(2));
            }
            all.add(new Expected(
                    List.copyOf(dropped),
                    Collections.unmodifiableMap(triggers),
                    Collections.unmodifiableMap(functions),
                    List.copyOf(tables),
                    List.copyOf(indexChanges), // in script order: the first problem first
                    executeTakenFromPublic(script)));
        }
        return List.copyOf(all);
    }

    /** The guards each migration creates, by name: for tests and for {@code sovereign status}. */
    static List<String> guardNames() {
        return expectedTriggers(LATEST).keySet().stream().sorted().toList();
    }

    /** The functions a script takes EXECUTE on from PUBLIC ({@code REVOKE EXECUTE ON FUNCTION f(..), g(..) FROM PUBLIC}). */
    private static List<String> executeTakenFromPublic(String script) {
        List<String> names = new ArrayList<>();
        Matcher revoke = REVOKE_EXECUTE.matcher(script);
        while (revoke.find()) {
            Matcher name = Pattern.compile("(\\w+)\\(").matcher(revoke.group(1));
            while (name.find()) {
                names.add(name.group(1));
            }
        }
        return List.copyOf(names);
    }

    /** The guards the first {@code version} migrations leave, by name: a later one may drop or redefine a guard. */
    private static Map<String, Trigger> expectedTriggers(int version) {
        Map<String, Trigger> all = new LinkedHashMap<>();
        for (int v = 1; v <= version; v++) {
            ExpectedOfEach.MIGRATION.get(v - 1).droppedTriggers().forEach(all::remove);
            all.putAll(ExpectedOfEach.MIGRATION.get(v - 1).triggers());
        }
        return all;
    }

    /** What is wrong with the guards of the applied migrations, in words; empty when nothing is. */
    public static List<String> guardProblems(Connection c) throws SQLException {
        int version = Math.min(schemaVersion(c), LATEST);
        String schema = currentSchema(c);
        String qualifier = quoteIdent(c, schema) + ".";
        String expectedPath = "search_path=pg_catalog, " + quoteIdent(c, schema) + ", pg_temp";

        Map<String, String[]> triggers = new HashMap<>(); // name -> table, enabled, definition
        try (PreparedStatement ps =
                c.prepareStatement("SELECT g.tgname, r.relname, g.tgenabled, pg_get_triggerdef(g.oid)"
                        + " FROM pg_trigger g JOIN pg_class r ON r.oid = g.tgrelid JOIN pg_namespace n ON n.oid = r.relnamespace"
                        + " WHERE NOT g.tgisinternal AND n.nspname = ?")) {
            ps.setString(1, schema);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    triggers.put(rs.getString(1), new String[] {
                        rs.getString(2), rs.getString(3), folded(rs.getString(4).replace(qualifier, ""))
                    });
                }
            }
        }
        // name -> language, body, config, definer, volatility, strict|parallel|leakproof
        Map<String, String[]> functions = new HashMap<>();
        Map<String, Integer> overloads = new HashMap<>(); // name -> how many functions of that name
        // Every function of the schema, whatever its arguments (the lease writes of version 5 take some): an
        // overload of one of ours, e.g. taking varchar where ours takes text, could be the one a call resolves to.
        try (PreparedStatement ps = c.prepareStatement("SELECT p.proname, l.lanname, p.prosrc,"
                + " array_to_string(p.proconfig, '|'), p.prosecdef, p.provolatile::text,"
                + " concat_ws('|', CASE WHEN p.proisstrict THEN 't' ELSE 'f' END, p.proparallel::text,"
                + " CASE WHEN p.proleakproof THEN 't' ELSE 'f' END) FROM pg_proc p"
                + " JOIN pg_namespace n ON n.oid = p.pronamespace JOIN pg_language l ON l.oid = p.prolang"
                + " WHERE n.nspname = ?")) {
            ps.setString(1, schema);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    functions.put(rs.getString(1), new String[] {
                        rs.getString(2),
                        folded(rs.getString(3)),
                        rs.getString(4),
                        rs.getBoolean(5) ? "definer" : "invoker",
                        rs.getString(6),
                        rs.getString(7)
                    });
                    overloads.merge(rs.getString(1), 1, Integer::sum);
                }
            }
        }

        List<String> problems = new ArrayList<>();
        List<String> tables = new ArrayList<>();
        // A later migration may replace a function (CREATE OR REPLACE): the last body applied is the one expected.
        Map<String, Function> expectedFunctions = new LinkedHashMap<>();
        for (int v = 1; v <= version; v++) {
            expectedFunctions.putAll(ExpectedOfEach.MIGRATION.get(v - 1).functions());
        }
        for (Function f : expectedFunctions.values()) {
            String[] found = functions.get(f.name());
            if (found == null) {
                problems.add("guard function " + f.name() + " is missing");
            } else if (overloads.get(f.name()) > 1) {
                problems.add("guard function " + f.name() + " has a look-alike with other arguments beside it");
            } else if (!found[0].equals(f.language()) || !found[1].equals(f.body())) {
                problems.add("guard function " + f.name() + " was replaced by different code");
            } else if (!expectedPath.equals(found[2])
                    || !"invoker".equals(found[3])
                    || !f.volatility().equals(found[4])
                    || !f.behaviour().equals(found[5])) {
                problems.add("guard function " + f.name() + " runs with other settings than its migration gave it");
            }
        }
        for (int v = 1; v <= version; v++) {
            tables.addAll(ExpectedOfEach.MIGRATION.get(v - 1).tables());
        }
        {
            for (Trigger t : expectedTriggers(version).values()) {
                String[] found = triggers.remove(t.name());
                if (found == null) {
                    problems.add("guard " + t.name() + " is missing");
                } else if (!found[0].equals(t.table())) {
                    problems.add("guard " + t.name() + " now guards " + found[0] + " instead of " + t.table());
                } else if (!found[2].equals(t.definition())) {
                    problems.add("guard " + t.name() + " was replaced by a different trigger");
                } else if (!"A".equals(found[1])) {
                    problems.add("guard " + t.name()
                            + ("D".equals(found[1])
                                    ? " is disabled"
                                    : " no longer fires in every session (tgenabled " + found[1] + ")"));
                }
            }
        }
        // Anything else in the ledger's schema that could run code on, rewrite, hide or refuse a write — a trigger, a
        // rule, a policy, a view, an index, a function — that no applied migration created (decision 0914).
        for (Map.Entry<String, String[]> extra : new TreeMap<>(triggers).entrySet()) {
            problems.add("trigger " + extra.getKey() + " on " + extra.getValue()[0] + " is not one of Sovereign's");
        }
        for (String name : new TreeSet<>(functions.keySet())) {
            if (!expectedFunctions.containsKey(name)) {
                problems.add("function " + name + " is not one of Sovereign's");
            }
        }
        problems.addAll(unknownObjects(c, schema, version));
        // a key sequence wound to its end bricks every journalled write (nextval fails), for good
        try (PreparedStatement ps = c.prepareStatement("SELECT sequencename, last_value FROM pg_sequences"
                + " WHERE schemaname = ? AND last_value > ? ORDER BY 1")) {
            ps.setString(1, schema);
            ps.setLong(2, SEQUENCE_LIMIT);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    problems.add("the key sequence " + rs.getString(1) + " was wound to " + rs.getLong(2));
                }
            }
        }
        // DISABLE TRIGGER ALL (superuser) also switches off the triggers that enforce foreign keys
        try (PreparedStatement ps = c.prepareStatement("SELECT DISTINCT k.conname, r.relname FROM pg_trigger g"
                + " JOIN pg_class r ON r.oid = g.tgrelid JOIN pg_namespace n ON n.oid = r.relnamespace"
                + " JOIN pg_constraint k ON k.oid = g.tgconstraint"
                + " WHERE g.tgisinternal AND g.tgenabled = 'D' AND n.nspname = ? ORDER BY 1, 2")) {
            ps.setString(1, schema);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    if (tables.contains(rs.getString(2))) {
                        problems.add("constraint " + rs.getString(1) + " is switched off on " + rs.getString(2));
                    }
                }
            }
        }
        try (PreparedStatement ps =
                c.prepareStatement("SELECT rulename, tablename FROM pg_rules WHERE schemaname = ?" + " ORDER BY 1")) {
            ps.setString(1, schema);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    problems.add("rule " + rs.getString(1) + " rewrites statements on " + rs.getString(2));
                }
            }
        }
        return problems;
    }

    /**
     * The views, policies, row-level security switches and indexes of the ledger's schema that no applied migration
     * created (decision 0914): a view can stand where a reader expects a table, a policy or row-level security hides
     * rows from a guard that reads them as its caller, and an index can refuse writes or evaluate an expression on
     * every insert. The indexes expected are the migrations' own, by name, and those of each table's key and unique
     * columns.
     */
    private static List<String> unknownObjects(Connection c, String schema, int version) throws SQLException {
        Set<String> expectedIndexes = new HashSet<>();
        for (int v = 1; v <= version; v++) {
            for (String change : ExpectedOfEach.MIGRATION.get(v - 1).indexChanges()) {
                if (change.startsWith("+")) {
                    expectedIndexes.add(change.substring(1));
                } else {
                    expectedIndexes.remove(change.substring(1));
                }
            }
        }
        List<String> problems = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement("SELECT c.relname, c.relkind FROM pg_class c"
                + " JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = ? AND c.relkind IN ('v', 'm')"
                + " ORDER BY 1")) {
            ps.setString(1, schema);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    problems.add(("m".equals(rs.getString(2)) ? "materialized view " : "view ") + rs.getString(1)
                            + " is not one of Sovereign's");
                }
            }
        }
        try (PreparedStatement ps = c.prepareStatement("SELECT p.polname, c.relname FROM pg_policy p"
                + " JOIN pg_class c ON c.oid = p.polrelid JOIN pg_namespace n ON n.oid = c.relnamespace"
                + " WHERE n.nspname = ? ORDER BY 2, 1")) {
            ps.setString(1, schema);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    problems.add("policy " + rs.getString(1) + " on " + rs.getString(2) + " is not one of Sovereign's");
                }
            }
        }
        try (PreparedStatement ps = c.prepareStatement("SELECT c.relname FROM pg_class c"
                + " JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = ?"
                + " AND (c.relrowsecurity OR c.relforcerowsecurity) ORDER BY 1")) {
            ps.setString(1, schema);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    problems.add("row-level security is switched on for " + rs.getString(1));
                }
            }
        }
        try (PreparedStatement ps = c.prepareStatement("SELECT i.relname, t.relname FROM pg_index x"
                + " JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_class t ON t.oid = x.indrelid"
                + " JOIN pg_namespace n ON n.oid = i.relnamespace WHERE n.nspname = ? ORDER BY 1")) {
            ps.setString(1, schema);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    if (!expectedIndexes.contains(rs.getString(1))) {
                        problems.add(
                                "index " + rs.getString(1) + " on " + rs.getString(2) + " is not one of Sovereign's");
                    }
                }
            }
        }
        return problems;
    }

    // ---- small helpers --------------------------------------------------------------------------------

    private static boolean hasMigrationRecord(Connection c) throws SQLException {
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT count(*) FROM information_schema.columns WHERE table_schema ="
                        + " current_schema() AND table_name = 'schema_migrations'"
                        + " AND column_name IN ('schema_version', 'sovereign_version', 'sovereign_commit')")) {
            rs.next();
            return rs.getInt(1) == 3;
        }
    }

    private static long objectsInSchema(Connection c) throws SQLException {
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(
                        "SELECT count(*) FROM pg_class r JOIN pg_namespace n ON n.oid = r.relnamespace"
                                + " WHERE n.nspname = current_schema() AND r.relkind IN ('r', 'p', 'v', 'm', 'f', 'S')")) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private static String currentSchema(Connection c) throws SQLException {
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT current_schema()")) {
            rs.next();
            return rs.getString(1);
        }
    }

    private static String quotedSchema(Connection c) throws SQLException {
        return quoteIdent(c, currentSchema(c));
    }

    private static String quoteIdent(Connection c, String name) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT quote_ident(?)")) {
            ps.setString(1, name);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getString(1);
            }
        }
    }

    /**
     * The ledger for sentences: the URL this connection was made with, without its secrets, and the schema when it
     * is not {@code public} ({@code jdbc:postgresql://db1:5432/ledger?user=ops&password=*** (schema tenant_a)}); a
     * database named "ledger" once made "the PostgreSQL ledger ledger (schema public)" (issue 26). Never fails.
     */
    private static String where(Connection c) {
        String url;
        try {
            url = String.valueOf(LedgerLocation.parse(c.getMetaData().getURL()));
        } catch (SQLException | RuntimeException e) {
            url = "(unknown URL)";
        }
        try {
            String schema = currentSchema(c);
            return schema == null || schema.equals("public") ? url : url + " (schema " + schema + ")";
        } catch (SQLException e) {
            return url;
        }
    }

    private static PgSchemaException translate(SQLException e, String where) {
        String state = e.getSQLState() == null ? "" : e.getSQLState();
        if (PgDatabase.isConnectionState(e)) {
            return new PgSchemaException(Problem.IO, PgDatabase.cannotConnect(where, e), e);
        }
        if (state.equals("55P03")) {
            return new PgSchemaException(
                    Problem.BUSY,
                    "Another process kept the PostgreSQL ledger " + where
                            + " locked for its migration for too long; try again.",
                    e);
        }
        if (state.equals("42501")) {
            return new PgSchemaException(
                    Problem.IO,
                    "The PostgreSQL role may not create or read the ledger in " + where + " (" + firstLine(e) + ").",
                    e);
        }
        return new PgSchemaException(
                Problem.IO, "The PostgreSQL ledger " + where + " could not be opened (" + firstLine(e) + ").", e);
    }

    private static String firstLine(SQLException e) {
        String m = String.valueOf(e.getMessage());
        int nl = m.indexOf('\n');
        return (nl < 0 ? m : m.substring(0, nl)).strip();
    }

    private static void restore(Connection c, boolean autoCommit, int isolation) {
        try {
            if (!c.isClosed()) {
                c.setTransactionIsolation(isolation);
                c.setAutoCommit(autoCommit);
            }
        } catch (SQLException ignored) {
            // the connection is broken; its owner will find out on its next statement
        }
    }

    private static String withoutComments(String script) {
        StringBuilder out = new StringBuilder();
        for (String line : script.split("\n")) {
            if (!line.strip().startsWith("--")) {
                out.append(line).append('\n');
            }
        }
        return out.toString();
    }

    private static String folded(String sql) {
        return sql.replaceAll("\\s+", " ").strip();
    }

    static String load(String name) {
        String path = "migrations/" + name;
        try (InputStream in = PgMigrator.class.getResourceAsStream(path)) {
            if (in == null) {
                throw new IllegalStateException("missing migration resource " + path);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new IllegalStateException("cannot read migration resource " + path, e);
        }
    }
}
