package dev.sovereign.engine.internal.postgres;

import static dev.sovereign.engine.testing.PgFenceWrites.journalStatement;
import static dev.sovereign.engine.testing.PgFenceWrites.takeOverStatements;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sovereign.engine.testing.PgFenceWrites;
import dev.sovereign.engine.testing.PgTestServer;
import dev.sovereign.engine.testing.RawPg;
import java.sql.Connection;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The PostgreSQL-only ways around a trigger — DDL on the guards, session_replication_role, TRUNCATE,
 * winding a sequence, an added trigger or rule — are closed by privileges, not by triggers: a role that
 * neither owns the tables nor is a superuser cannot use them (issue 19: the worker role owns nothing).
 * The role here has exactly what the engine's statements need: SELECT, INSERT, UPDATE, DELETE on the
 * tables and USAGE on the sequences; and CREATE on public, which every role has on PostgreSQL 14 by
 * default (not on 15 and newer), so the tests show the worse case on every version. Since decision 0903
 * every open refuses a ledger with that grant; the tests here drive the tables by hand and never open.
 */
class PgWorkerRoleTest {
    private static Connection owner;
    private static Connection worker;
    private static RawPg sql;

    @BeforeAll
    static void open() throws Exception {
        PgTestServer.Database db = PgTestServer.freshDatabase();
        owner = db.connect();
        new PgMigrator(false, "test", "abc123", 10_000).migrate(owner);
        PgFenceWrites setup = new PgFenceWrites(new RawPg(owner));
        setup.actor("operator");
        String role = PgTestServer.freshRole("sov_worker");
        new RawPg(owner)
                .exec(
                        "GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO " + role,
                        "GRANT USAGE ON ALL SEQUENCES IN SCHEMA public TO " + role,
                        // PostgreSQL 14 gives every role CREATE on public; 15 and newer do not: grant it, the worse
                        // case
                        "GRANT CREATE ON SCHEMA public TO " + role);
        worker = db.dataSource(role, role).getConnection();
        sql = new RawPg(worker);
        // the processes the worker writes leases for are its own: registered by its login (schema version 12)
        PgFenceWrites own = new PgFenceWrites(sql);
        own.process("proc_a");
        own.process("proc_b");
    }

    @AfterAll
    static void close() throws Exception {
        worker.close();
        owner.close();
    }

    @Test
    void theWorkerRoleWritesThroughTheGuardsWithOrdinaryPrivileges() {
        PgFenceWrites w = new PgFenceWrites(sql);
        long token = w.acquire("operator", "proc_a", 60_000);
        sql.passes(journalStatement("LEASE_ACQUIRED", "operator"));
        sql.refused("released only by the transaction", "DELETE FROM actor_leases");
        sql.passes(PgFenceWrites.releaseStatements("operator", token));
    }

    @Test
    void theWorkerRoleCannotSwitchAGuardOffByDdl() throws Exception {
        sql.refused(
                "must be owner of table token_counter",
                "ALTER TABLE token_counter DISABLE TRIGGER token_counter_guard");
        sql.refused("must be owner of table token_counter", "ALTER TABLE token_counter DISABLE TRIGGER ALL");
        sql.refused("must be owner of relation token_counter", "DROP TRIGGER token_counter_guard ON token_counter");
        sql.refused(
                "must be owner of function token_counter_guard",
                "CREATE OR REPLACE FUNCTION token_counter_guard()"
                        + " RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NEW; END $$");
        sql.refused("must be owner of function sovereign_now_ms", "ALTER FUNCTION sovereign_now_ms() RESET ALL");
        sql.refused(
                "permission denied for table token_counter",
                "CREATE TRIGGER zz_rewind BEFORE UPDATE ON token_counter"
                        + " FOR EACH ROW EXECUTE FUNCTION sovereign_refuse('x')");
        sql.refused(
                "must be owner of table fence_events",
                "CREATE RULE forget AS ON DELETE TO fence_events DO INSTEAD NOTHING");
        assertThat(PgMigrator.guardProblems(owner)).isEmpty(); // every guard still stands
        // ... but an open refuses this ledger now: the CREATE on public this test grants on purpose, the worse
        // case of PostgreSQL 14, is one of the grants every open checks (decision 0903)
        assertThatThrownBy(() -> PgMigrator.verify(owner)).hasMessageContaining("holds CREATE on the schema public");
    }

    @Test
    void theWorkerRoleCannotLeaveTheOriginReplicationRoleNorTruncateNorWindASequence() {
        sql.refused(
                "permission denied to set parameter \"session_replication_role\"",
                "SET session_replication_role = replica");
        sql.refused("permission denied for table fence_events", "TRUNCATE fence_events");
        sql.refused(
                "permission denied for sequence fence_events_seq_seq",
                "SELECT setval(pg_get_serial_sequence('fence_events', 'seq'), 1)");
        sql.refused("must be owner of sequence fence_events_seq_seq", "ALTER SEQUENCE fence_events_seq_seq RESTART");
    }

    @Test
    void aBuiltInShadowedInASchemaTheWorkerMayCreateInDoesNotFoolTheServerClock() {
        PgFenceWrites w = new PgFenceWrites(sql);
        w.actor("reviewer");
        long live = w.acquire("reviewer", "proc_a", 60_000);
        // PostgreSQL 14 lets every role create in public; a clock a year ahead, first on an ordinary path
        sql.exec(
                "CREATE FUNCTION public.clock_timestamp() RETURNS timestamptz LANGUAGE sql"
                        + " AS $$ SELECT pg_catalog.clock_timestamp() + interval '365 days' $$",
                "SET search_path = public, pg_catalog");
        try {
            String[] takeOver = takeOverStatements("reviewer", live, "proc_b", 5_000);
            sql.refused(
                    "a takeover needs an expired lease",
                    takeOver[0],
                    takeOver[1],
                    takeOver[1].replace(" AND expires_at <= sovereign_now_ms()", ""));
            assertThat(sql.text("SELECT process_identity FROM actor_leases WHERE actor_id = 'reviewer'"))
                    .isEqualTo("proc_a");
        } finally {
            sql.exec("RESET search_path", "DROP FUNCTION public.clock_timestamp()");
        }
    }
}
