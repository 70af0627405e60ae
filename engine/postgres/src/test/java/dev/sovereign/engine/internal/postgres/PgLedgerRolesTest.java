package dev.sovereign.engine.internal.postgres;

import static dev.sovereign.engine.testing.PgFenceWrites.endStatements;
import static dev.sovereign.engine.testing.PgFenceWrites.journalStatement;
import static dev.sovereign.engine.testing.PgFenceWrites.renewStatements;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.base.EngineConfig;
import dev.sovereign.engine.lease.Lease;
import dev.sovereign.engine.mailbox.Claim;
import dev.sovereign.engine.mailbox.Message;
import dev.sovereign.engine.run.Assignment;
import dev.sovereign.engine.run.AssignmentState;
import dev.sovereign.engine.run.RunResult;
import dev.sovereign.engine.supervisor.TickReport;
import dev.sovereign.engine.testing.PgFenceWrites;
import dev.sovereign.engine.testing.PgTestServer;
import dev.sovereign.engine.testing.RawPg;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The roles of issue 19 as schema version 3 creates them (decision 0902): a login role that is a member of
 * {@code sovereign_<db>_worker} runs the engine's own operations through an Engine, and by hand it cannot
 * remove a guard, alter a table, truncate, rewind the counter, rewrite the journal, write the server clock or
 * end someone else's work. Each refusal is checked by SQLSTATE (42501 insufficient_privilege: the grant is
 * the wall; SV001: the guard is) and paired with the allowed operation passing. The ledger is created by the
 * embedded server's superuser, as `sovereign init` run by an owner would.
 */
class PgLedgerRolesTest {
    private static final String DENIED = "42501";
    private static final String GUARD = "SV001";

    private static PgTestServer.Database db;
    private static Connection owner;
    private static String workerGroup;
    private static String operatorGroup;
    private static String hostA;
    private static String ops;
    private static Connection worker;
    private static RawPg sql;

    @BeforeAll
    static void open() throws Exception {
        db = PgTestServer.freshDatabase();
        try (Engine created =
                Engine.open(EngineConfig.forDatabase(db.url()).heartbeat(false).build())) {
            created.actors().add("alpha");
            created.actors().add("beta");
            created.actors().add("gamma");
            created.actors().add("delta");
            created.actors().add("by_hand");
            created.actors().add("someone_elses");
        }
        owner = db.connect();
        workerGroup = "sovereign_" + db.name() + "_worker";
        operatorGroup = "sovereign_" + db.name() + "_operator";
        hostA = PgTestServer.freshRole("host_a");
        ops = PgTestServer.freshRole("ops");
        new RawPg(owner).exec("GRANT " + workerGroup + " TO " + hostA, "GRANT " + operatorGroup + " TO " + ops);
        worker = db.dataSource(hostA, hostA).getConnection();
        sql = new RawPg(worker);
    }

    @AfterAll
    static void close() throws Exception {
        worker.close();
        owner.close();
    }

    private static String url(String role) {
        return "jdbc:postgresql://localhost:" + db.port() + "/" + db.name() + "?user=" + role + "&password=" + role;
    }

    private static Engine engineAs(String role) {
        return Engine.openExisting(
                EngineConfig.forDatabase(url(role)).heartbeat(false).build());
    }

    /** Runs the statements in one transaction, expects one refused with {@code sqlstate}; rolls back. */
    private static void refusedWith(String sqlstate, String... statements) {
        try {
            worker.setAutoCommit(false);
            try (Statement s = worker.createStatement()) {
                for (String statement : statements) {
                    s.execute(statement);
                }
            }
            worker.rollback();
            fail("expected SQLSTATE " + sqlstate + ", but went through: " + String.join("; ", statements));
        } catch (SQLException e) {
            assertThat(e.getSQLState())
                    .as("SQLSTATE of %s (%s)", String.join("; ", statements), e.getMessage())
                    .isEqualTo(sqlstate);
        } finally {
            try {
                worker.rollback();
                worker.setAutoCommit(true);
            } catch (SQLException ignored) {
                // the next statement will say
            }
        }
    }

    @Test
    void theGroupRolesAreNologinAndTheWorkerHoldsExactlyTheseTablePrivileges() throws Exception {
        Map<String, String> expected = new TreeMap<>(Map.ofEntries(
                Map.entry("actor_leases", "DELETE,INSERT,SELECT,UPDATE"),
                Map.entry("actors", "SELECT"),
                Map.entry("assignments", "INSERT,SELECT,UPDATE"),
                Map.entry("execution_attempts", "INSERT,SELECT,UPDATE"),
                Map.entry("fence_events", "INSERT,SELECT"),
                Map.entry("lease_change_counter", "SELECT,UPDATE"),
                Map.entry("lease_contention", "INSERT,SELECT,UPDATE"), // counted refusals (decision 0019)
                Map.entry("retention", "SELECT"),
                Map.entry("lease_tombstones", "INSERT,SELECT,UPDATE"),
                Map.entry(
                        "ledger_history",
                        "INSERT,SELECT"), // its 'backwards' reports; restore and bump rows are the owner's
                Map.entry("ledger_mark", "SELECT"),
                Map.entry("messages", "INSERT,SELECT,UPDATE"),
                Map.entry("processes", "INSERT,SELECT,UPDATE"),
                Map.entry("receipts", "INSERT,SELECT"),
                Map.entry("schema_migrations", "SELECT"),
                Map.entry("server_clock", "SELECT"),
                Map.entry("supervisor_ticks", "SELECT"),
                Map.entry("token_counter", "SELECT,UPDATE")));
        assertThat(privileges(hostA))
                .as("what a member of the worker role may do, table by table")
                .isEqualTo(expected);
        Map<String, String> operator = new TreeMap<>(expected);
        operator.put("actors", "INSERT,SELECT");
        operator.put("supervisor_ticks", "DELETE,INSERT,SELECT");
        // pruning and the retention policy (decision 0018)
        operator.put("fence_events", "DELETE,INSERT,SELECT");
        operator.put("lease_contention", "DELETE,INSERT,SELECT,UPDATE");
        operator.put("retention", "SELECT,UPDATE");
        // pruning finished work (decision 0020)
        operator.put("assignments", "DELETE,INSERT,SELECT,UPDATE");
        operator.put("execution_attempts", "DELETE,INSERT,SELECT,UPDATE");
        operator.put("receipts", "DELETE,INSERT,SELECT");
        operator.put("messages", "DELETE,INSERT,SELECT,UPDATE");
        operator.put("processes", "DELETE,INSERT,SELECT,UPDATE");
        assertThat(privileges(ops))
                .as("the operator: the worker's, plus adding actors, recording ticks and pruning")
                .isEqualTo(operator);
        try (Statement s = owner.createStatement();
                ResultSet rs = s.executeQuery("SELECT bool_or(rolcanlogin OR rolsuper OR rolcreaterole OR rolcreatedb"
                        + " OR rolbypassrls OR rolreplication) FROM pg_roles WHERE rolname IN ('" + workerGroup + "', '"
                        + operatorGroup + "')")) {
            rs.next();
            assertThat(rs.getBoolean(1))
                    .as("the group roles log in or hold a role attribute")
                    .isFalse();
        }
        try (Statement s = owner.createStatement();
                ResultSet rs = s.executeQuery("SELECT has_schema_privilege('" + hostA + "', 'public', 'CREATE'),"
                        + " has_schema_privilege('" + hostA + "', 'public', 'USAGE'),"
                        + " bool_or(has_sequence_privilege('" + hostA + "', c.oid, 'UPDATE'))"
                        + " FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace"
                        + " WHERE c.relkind = 'S' AND n.nspname = 'public'")) {
            rs.next();
            assertThat(rs.getBoolean(1)).as("CREATE on the ledger's schema").isFalse();
            assertThat(rs.getBoolean(2)).as("USAGE on the ledger's schema").isTrue();
            assertThat(rs.getBoolean(3)).as("UPDATE (setval) on a sequence").isFalse();
        }
    }

    /** Every privilege {@code role} holds on the ledger's tables, directly or through a group, by table. */
    private static Map<String, String> privileges(String role) throws SQLException {
        Map<String, String> found = new TreeMap<>();
        String[] kinds = {"SELECT", "INSERT", "UPDATE", "DELETE", "TRUNCATE", "REFERENCES", "TRIGGER"};
        try (Statement s = owner.createStatement();
                ResultSet rs =
                        s.executeQuery("SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace"
                                + " WHERE c.relkind = 'r' AND n.nspname = 'public' ORDER BY 1")) {
            while (rs.next()) {
                String table = rs.getString(1);
                TreeSet<String> held = new TreeSet<>();
                for (String kind : kinds) {
                    try (Statement t = owner.createStatement();
                            ResultSet r = t.executeQuery("SELECT has_table_privilege('" + role + "', 'public." + table
                                    + "', '" + kind + "')")) {
                        r.next();
                        if (r.getBoolean(1)) {
                            held.add(kind);
                        }
                    }
                }
                found.put(table, String.join(",", held));
            }
        }
        return found;
    }

    @Test
    void aWorkerLoginRunsTheEnginesOwnOperations() {
        try (Engine e = engineAs(hostA)) {
            Lease lease = e.leases().acquire("alpha", Duration.ofSeconds(30));
            Lease renewed = e.leases().renew("alpha", lease.token(), Duration.ofSeconds(30));
            assertThat(renewed.token()).isEqualTo(lease.token());
            e.heartbeatNow();
            assertThat(e.leases().release("alpha", lease.token())).isTrue();

            Assignment a = e.runs().assign("beta", "scripted:ms=5,outcome=completed");
            RunResult run = e.runs().runAssignment(a.id());
            assertThat(run.assignment().state()).isEqualTo(AssignmentState.COMPLETED);

            Lease gamma = e.leases().acquire("gamma", Duration.ofSeconds(30));
            Message m = e.mailbox().send("someone", "gamma", "hello", "body");
            Claim claim = e.mailbox().claim(m.id(), "gamma");
            e.mailbox().complete(m.id(), claim.token());
            assertThat(e.mailbox().find(m.id()).orElseThrow().state().name()).isEqualTo("DONE");
            e.leases().release("gamma", gamma.token());
        }
    }

    @Test
    void anOperatorLoginAddsActorsAndItsSupervisorRecoversAStrandedRunWhileAWorkerLoginAddsNoActor() {
        // a run stranded by hand, as a worker that died would leave it: its lease and attempt already expired
        PgFenceWrites w = new PgFenceWrites(sql);
        w.process("proc_dead");
        long token = w.acquire("delta", "proc_dead", -1);
        w.assign("asg_stranded", "delta");
        w.start("att_stranded", "asg_stranded", "delta", "proc_dead", token, -1);
        try (Engine e = engineAs(hostA)) {
            try {
                e.actors().add("from_a_worker");
                fail("a worker login added an actor");
            } catch (RuntimeException refused) {
                assertThat(e.actors().find("from_a_worker")).isEmpty();
            }
        }
        try (Engine e = engineAs(ops)) {
            e.actors().add("from_an_operator");
            TickReport report = e.supervisor().tick();
            assertThat(report.failures()).isEmpty();
            assertThat(e.runs().get("asg_stranded").orElseThrow().state()).isEqualTo(AssignmentState.FAILED);
        }
    }

    @Test
    void byHandAWorkerCannotTouchTheGuardsTheTablesTheCounterTheJournalOrTheClock() {
        PgFenceWrites w = new PgFenceWrites(sql);
        w.process("proc_hand");
        // the guards: no DROP, DISABLE, replacing function, added trigger; writing through them works
        refusedWith(DENIED, "DROP TRIGGER token_counter_guard ON token_counter");
        refusedWith(DENIED, "ALTER TABLE actor_leases DISABLE TRIGGER actor_leases_guard_update");
        refusedWith(DENIED, "ALTER TABLE fence_events DISABLE TRIGGER ALL");
        refusedWith(
                DENIED,
                "CREATE OR REPLACE FUNCTION token_counter_guard() RETURNS trigger LANGUAGE plpgsql"
                        + " AS $$ BEGIN RETURN NEW; END $$");
        refusedWith(
                DENIED,
                "CREATE TRIGGER zz BEFORE UPDATE ON token_counter FOR EACH ROW"
                        + " EXECUTE FUNCTION sovereign_refuse('x')");
        long token = w.acquire("by_hand", "proc_hand", 60_000);
        sql.passes(renewStatements("by_hand", token, 60_000));
        // the tables: no ALTER TABLE, no new table in the schema, no TRUNCATE; an INSERT where the engine inserts
        refusedWith(DENIED, "ALTER TABLE actor_leases ADD COLUMN note text");
        refusedWith(DENIED, "ALTER TABLE actor_leases DROP CONSTRAINT actor_leases_pkey");
        refusedWith(DENIED, "CREATE TABLE public.shadow (id int)");
        refusedWith(
                DENIED,
                "CREATE FUNCTION public.clock_timestamp() RETURNS timestamptz LANGUAGE sql" + " AS $$ SELECT now() $$");
        refusedWith(DENIED, "TRUNCATE fence_events");
        refusedWith(DENIED, "TRUNCATE actor_leases CASCADE");
        sql.passes(journalStatement("LEASE_ACQUIRED", "by_hand"));
        // the counter: the guard refuses a rewind, the grants a setval / ALTER SEQUENCE; minting works
        refusedWith(GUARD, "UPDATE token_counter SET last_token = 1 WHERE id = 1");
        refusedWith(DENIED, "SELECT setval(pg_get_serial_sequence('fence_events', 'seq'), 1)");
        refusedWith(DENIED, "ALTER SEQUENCE fence_events_seq_seq RESTART");
        sql.passes(RawPg.MINT);
        // the journal, the receipts, the ticks, the migration record: no UPDATE or DELETE; reading works
        refusedWith(DENIED, "UPDATE fence_events SET kind = 'LEASE_RELEASED'");
        refusedWith(DENIED, "DELETE FROM fence_events");
        refusedWith(DENIED, "UPDATE receipts SET status = 'completed'");
        refusedWith(DENIED, "DELETE FROM receipts");
        refusedWith(DENIED, "DELETE FROM supervisor_ticks");
        refusedWith(DENIED, "UPDATE schema_migrations SET schema_version = 1");
        refusedWith(DENIED, "UPDATE ledger_mark SET lab_sandbox = 1");
        assertThat(sql.scalar("SELECT count(*) FROM fence_events")).isPositive();
        // the server clock: no write; reading it (every expiry decision does) works
        refusedWith(DENIED, "UPDATE server_clock SET pinned_ms = 0 WHERE id = 1");
        refusedWith(DENIED, "DELETE FROM server_clock");
        assertThat(sql.scalar("SELECT sovereign_now_ms()")).isPositive();
        // no way around the roles: not another role, not the replication switch
        refusedWith(DENIED, "SET session_replication_role = replica");
        refusedWith(DENIED, "SET ROLE " + PgTestServer.SUPERUSER);
    }

    @Test
    void byHandAWorkerCannotFinishSomeoneElsesWorkButTheHolderCan() {
        PgFenceWrites w = new PgFenceWrites(sql);
        w.process("proc_holder");
        long lease = w.acquire("someone_elses", "proc_holder", 60_000);
        w.assign("asg_other", "someone_elses");
        w.start("att_other", "asg_other", "someone_elses", "proc_holder", lease, 60_000);
        // a terminal write that does not present the attempt: the guard refuses it
        refusedWith(
                GUARD,
                "UPDATE assignments SET state = 'COMPLETED', current_attempt = NULL, updated_at = " + RawPg.NOW
                        + " WHERE id = 'asg_other'");
        refusedWith(
                GUARD,
                "UPDATE assignments SET state = 'FAILED', current_attempt = NULL, ended_by_attempt = 'att_forged',"
                        + " ended_via = 'attempt', updated_at = " + RawPg.NOW + " WHERE id = 'asg_other'");
        // ending the holder's ACTIVE attempt row alone, in any ended state, or moving its expiry: refused by
        // the guard since schema version 4 (decision 0113; before it, this was decision 0902's open hole)
        for (String state : new String[] {"DONE", "SUPERSEDED", "RECOVERED", "LOST"}) {
            refusedWith(
                    GUARD,
                    "UPDATE execution_attempts SET state = '" + state + "', ended_at = " + RawPg.NOW
                            + " WHERE id = 'att_other'");
        }
        refusedWith(GUARD, "UPDATE execution_attempts SET expires_at = " + RawPg.NOW + " - 1 WHERE id = 'att_other'");
        refusedWith(GUARD, "UPDATE execution_attempts SET expires_at = expires_at + 86400000 WHERE id = 'att_other'");
        refusedWith(
                GUARD,
                "INSERT INTO execution_attempts SELECT * FROM execution_attempts WHERE id = 'att_other'"
                        + " ON CONFLICT (id) DO UPDATE SET state = 'DONE', ended_at = " + RawPg.NOW);
        refusedWith(DENIED, "UPDATE server_clock SET pinned_ms = " + RawPg.NOW + " + 86400000"); // expiring it early
        assertThat(sql.text("SELECT state FROM execution_attempts WHERE id = 'att_other'"))
                .isEqualTo("ACTIVE");
        refusedWith(DENIED, "DELETE FROM execution_attempts WHERE id = 'att_other'");
        refusedWith(DENIED, "DELETE FROM assignments WHERE id = 'asg_other'");
        // the terminal write that presents the current attempt passes
        sql.passes(endStatements("asg_other", "att_other", "COMPLETED", "attempt"));
        assertThat(sql.text("SELECT state FROM assignments WHERE id = 'asg_other'"))
                .isEqualTo("COMPLETED");
        assertThat(sql.text("SELECT state FROM execution_attempts WHERE id = 'att_other'"))
                .isEqualTo("DONE");
        sql.passes(PgFenceWrites.releaseStatements("someone_elses", lease));
    }
}
