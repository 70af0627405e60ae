package dev.sovereign.engine.internal.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.base.EngineConfig;
import dev.sovereign.engine.base.StorageException;
import dev.sovereign.engine.internal.postgres.PgSchemaException.Problem;
import dev.sovereign.engine.testing.PgTestServer;
import dev.sovereign.engine.testing.RawPg;
import java.sql.Connection;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Decision 0903: every open reads the access lists of the ledger and refuses (CORRUPT, one sentence naming
 * the role and the privilege) a grant that lets a role other than the owner get around the fence —
 * TRUNCATE, TRIGGER or REFERENCES on a ledger table, UPDATE on a ledger sequence (setval), CREATE on the
 * ledger's schema, anything of PUBLIC on a ledger table, and the worker or operator role holding more than
 * decision 0902's table. Each extra privilege is granted by hand by the owner (the embedded server's
 * superuser), refused on open, revoked, and the ledger opens again.
 */
class PgGrantVerificationTest {
    private static final PgMigrator MIGRATOR = new PgMigrator(false, "test", "abc123", 10_000);

    private PgTestServer.Database db;
    private Connection c;
    private RawPg sql;
    private String role;
    private String worker;
    private String operator;

    @BeforeEach
    void open() throws Exception {
        db = PgTestServer.freshDatabase();
        c = db.connect();
        MIGRATOR.migrate(c);
        sql = new RawPg(c);
        role = PgTestServer.freshRole("host_x");
        worker = "sovereign_" + db.name() + "_worker";
        operator = "sovereign_" + db.name() + "_operator";
    }

    @AfterEach
    void close() throws Exception {
        c.close();
    }

    /** Grant, refused on open naming {@code words}; revoke, opens again. */
    private void refusedUntilRevoked(String grant, String revoke, String words) {
        sql.exec(grant);
        assertThatThrownBy(() -> MIGRATOR.migrate(c)).as(grant).isInstanceOfSatisfying(PgSchemaException.class, e -> {
            assertThat(e.problem()).isEqualTo(Problem.CORRUPT);
            assertThat(e.getMessage())
                    .contains("grants more than Sovereign's roles allow (")
                    .contains(words)
                    .contains("revoke it, then open again")
                    .doesNotContain("\n");
        });
        sql.exec(revoke);
        assertThat(MIGRATOR.migrate(c)).isEqualTo(PgMigrator.LATEST);
    }

    /**
     * Whoever owns one of the ledger's functions may replace it, make it STRICT or drop it (a guard's trigger with
     * it): a function handed to another role is refused, as is EXECUTE on a one-call write for a role other than
     * the ledger's worker and operator roles, PUBLIC included (the migrations took it from PUBLIC).
     */
    @Test
    void aLedgerFunctionOwnedOrCallableByAnotherRoleIsRefused() throws Exception {
        sql.exec("GRANT " + worker + " TO " + role);
        sql.exec("ALTER FUNCTION sovereign_message_complete(text, bigint, text) OWNER TO " + role);
        assertThat(PgMigrator.grantProblems(c))
                .containsExactly("the role " + role + " owns the function sovereign_message_complete, not the ledger's"
                        + " owner");
        // why it matters: that login can now drop it, which every engine open on the ledger needs
        try (Connection asRole = db.dataSource(role, role).getConnection()) {
            new RawPg(asRole).passes("ALTER FUNCTION sovereign_message_complete(text, bigint, text) STRICT");
        }
        sql.exec(
                "ALTER FUNCTION sovereign_message_complete(text, bigint, text) CALLED ON NULL INPUT",
                "ALTER FUNCTION sovereign_message_complete(text, bigint, text) OWNER TO CURRENT_USER");
        assertThat(PgMigrator.grantProblems(c)).isEmpty();
        refusedUntilRevoked(
                "ALTER FUNCTION messages_guard_update() OWNER TO " + role,
                "ALTER FUNCTION messages_guard_update() OWNER TO CURRENT_USER",
                "the role " + role + " owns the function messages_guard_update");

        refusedUntilRevoked(
                "GRANT EXECUTE ON FUNCTION sovereign_claim(text, text, text, bigint) TO PUBLIC",
                "REVOKE EXECUTE ON FUNCTION sovereign_claim(text, text, text, bigint) FROM PUBLIC",
                "PUBLIC (every role) holds EXECUTE on the function sovereign_claim");
        String stranger = PgTestServer.freshRole("stranger");
        refusedUntilRevoked(
                "GRANT EXECUTE ON FUNCTION sovereign_attempt_finish(text, text, text, text, integer, text) TO "
                        + stranger,
                "REVOKE EXECUTE ON FUNCTION sovereign_attempt_finish(text, text, text, text, integer, text) FROM "
                        + stranger,
                "the role " + stranger + " holds EXECUTE on the function sovereign_attempt_finish");
        // the functions every role may call since version 1 (the clock, the guards' own) stay as they are
        assertThat(PgMigrator.grantProblems(c)).isEmpty();
    }

    /**
     * The schema's owner may drop anything in it, a guard's function with its trigger included: the schema handed to
     * another role is refused, and so is the database handed to one while the schema is PostgreSQL 15's public schema
     * (owned by pg_database_owner, whoever owns the database).
     */
    @Test
    void aSchemaOrDatabaseHandedToAnotherRoleIsRefused() throws Exception {
        sql.exec("GRANT " + worker + " TO " + role);
        String schemaOwner = sql.text("SELECT nspowner::regrole::text FROM pg_namespace WHERE nspname = 'public'");
        sql.exec("ALTER SCHEMA public OWNER TO " + role);
        assertThat(PgMigrator.grantProblems(c))
                .containsExactly("the role " + role + " owns the schema public, not the ledger's owner");
        // why it matters: that login can now drop a guard's function with its trigger (rolled back here)
        try (Connection asRole = db.dataSource(role, role).getConnection()) {
            new RawPg(asRole).exec("BEGIN", "DROP FUNCTION messages_guard_update() CASCADE", "ROLLBACK");
        }
        sql.exec("ALTER SCHEMA public OWNER TO " + schemaOwner);
        assertThat(PgMigrator.grantProblems(c)).isEmpty();
        if (schemaOwner.equals("pg_database_owner")) {
            refusedUntilRevoked(
                    "ALTER DATABASE " + db.name() + " OWNER TO " + role,
                    "ALTER DATABASE " + db.name() + " OWNER TO CURRENT_USER",
                    "the role " + role + " owns the schema public (as the database's owner), not the ledger's owner");
        }
    }

    @Test
    void aFreshLedgerHasNoGrantProblemAndOpensAgainAndAgain() throws Exception {
        assertThat(PgMigrator.grantProblems(c)).isEmpty();
        MIGRATOR.migrate(c);
        PgMigrator.verify(c);
        // what decision 0902 allows beyond the roles: a login that is a member of the worker, its own
        // harmless grants (SELECT, INSERT, UPDATE, DELETE: the guards stand in the way)
        sql.exec(
                "GRANT " + worker + " TO " + role,
                "GRANT SELECT, INSERT, UPDATE, DELETE ON fence_events TO " + role,
                "GRANT USAGE ON ALL SEQUENCES IN SCHEMA public TO " + role);
        assertThat(PgMigrator.grantProblems(c)).isEmpty();
    }

    @Test
    void truncateTriggerOrReferencesOnALedgerTableIsRefusedForAnyRole() {
        refusedUntilRevoked(
                "GRANT TRUNCATE ON fence_events TO " + role,
                "REVOKE TRUNCATE ON fence_events FROM " + role,
                "the role " + role + " holds TRUNCATE on fence_events");
        refusedUntilRevoked(
                "GRANT TRIGGER ON assignments TO " + role,
                "REVOKE TRIGGER ON assignments FROM " + role,
                "the role " + role + " holds TRIGGER on assignments");
        refusedUntilRevoked(
                "GRANT REFERENCES ON actors TO " + role,
                "REVOKE REFERENCES ON actors FROM " + role,
                "the role " + role + " holds REFERENCES on actors");
        // granted to the worker group itself, every member holds it
        refusedUntilRevoked(
                "GRANT TRUNCATE ON execution_attempts TO " + worker,
                "REVOKE TRUNCATE ON execution_attempts FROM " + worker,
                "the role " + worker + " holds TRUNCATE on execution_attempts");
    }

    @Test
    void updateOnALedgerSequenceIsRefused() {
        String sequence = sql.text("SELECT sequencename FROM pg_sequences WHERE schemaname = 'public'"
                + " AND sequencename LIKE 'fence_events%'");
        refusedUntilRevoked(
                "GRANT UPDATE ON SEQUENCE " + sequence + " TO " + role,
                "REVOKE UPDATE ON SEQUENCE " + sequence + " FROM " + role,
                "the role " + role + " holds UPDATE on the sequence " + sequence);
    }

    @Test
    void createOnTheLedgersSchemaIsRefusedForAnyRoleAndForPublic() {
        refusedUntilRevoked(
                "GRANT CREATE ON SCHEMA public TO " + role,
                "REVOKE CREATE ON SCHEMA public FROM " + role,
                "the role " + role + " holds CREATE on the schema public");
        // PostgreSQL 14's default, which the owner of public revokes at version 3 (decision 0902)
        refusedUntilRevoked(
                "GRANT CREATE ON SCHEMA public TO PUBLIC",
                "REVOKE CREATE ON SCHEMA public FROM PUBLIC",
                "PUBLIC (every role) holds CREATE on the schema public");
    }

    @Test
    void anyPrivilegeOfPublicOnALedgerTableIsRefused() {
        refusedUntilRevoked(
                "GRANT SELECT ON receipts TO PUBLIC",
                "REVOKE SELECT ON receipts FROM PUBLIC",
                "PUBLIC (every role) holds SELECT on receipts");
        refusedUntilRevoked(
                "GRANT INSERT ON fence_events TO PUBLIC",
                "REVOKE INSERT ON fence_events FROM PUBLIC",
                "PUBLIC (every role) holds INSERT on fence_events");
    }

    @Test
    void theWorkerAndOperatorRolesHoldNothingBeyondDecision0902sTable() {
        refusedUntilRevoked(
                "GRANT DELETE ON fence_events TO " + worker,
                "REVOKE DELETE ON fence_events FROM " + worker,
                "the role " + worker + " holds DELETE on fence_events, beyond decision 0902's table");
        // INSERT on actors is the owner's switch (decision 0116: workers-may-add); changing an actor never is
        refusedUntilRevoked(
                "GRANT UPDATE ON actors TO " + worker,
                "REVOKE UPDATE ON actors FROM " + worker,
                "the role " + worker + " holds UPDATE on actors");
        refusedUntilRevoked(
                "GRANT DELETE ON actors TO " + worker,
                "REVOKE DELETE ON actors FROM " + worker,
                "the role " + worker + " holds DELETE on actors");
        refusedUntilRevoked(
                "GRANT UPDATE ON server_clock TO " + worker,
                "REVOKE UPDATE ON server_clock FROM " + worker,
                "the role " + worker + " holds UPDATE on server_clock");
        refusedUntilRevoked(
                "GRANT UPDATE ON receipts TO " + operator,
                "REVOKE UPDATE ON receipts FROM " + operator,
                "the role " + operator + " holds UPDATE on receipts");
        refusedUntilRevoked(
                "GRANT SELECT ON SEQUENCE fence_events_seq_seq TO " + worker,
                "REVOKE SELECT ON SEQUENCE fence_events_seq_seq FROM " + worker,
                "the role " + worker + " holds SELECT on the sequence fence_events_seq_seq");
    }

    @Test
    void anEngineOpenIsRefusedTooAsCorrupt() {
        sql.exec("GRANT TRUNCATE ON receipts TO " + role);
        assertThatThrownBy(() -> Engine.open(
                        EngineConfig.forDatabase(db.url()).heartbeat(false).build()))
                .isInstanceOfSatisfying(StorageException.class, e -> {
                    assertThat(e.problem()).isEqualTo(StorageException.Problem.CORRUPT);
                    assertThat(e.getMessage()).contains("the role " + role + " holds TRUNCATE on receipts");
                });
        sql.exec("REVOKE TRUNCATE ON receipts FROM " + role);
        Engine.open(EngineConfig.forDatabase(db.url()).heartbeat(false).build()).close();
    }
}
