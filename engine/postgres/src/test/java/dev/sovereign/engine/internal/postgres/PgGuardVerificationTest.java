package dev.sovereign.engine.internal.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sovereign.engine.internal.postgres.PgSchemaException.Problem;
import dev.sovereign.engine.testing.PgTestServer;
import dev.sovereign.engine.testing.RawPg;
import java.sql.Connection;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What the tables' owner (or a superuser) can still do — DDL switches a trigger off, PostgreSQL cannot
 * refuse it to them — and that every open notices it: a dropped, disabled, narrowed, replaced or
 * out-voted guard makes {@link PgMigrator#migrate} refuse the ledger with one sentence naming it.
 */
class PgGuardVerificationTest {
    private static final PgMigrator MIGRATOR = new PgMigrator(false, "test", "abc123", 10_000);

    private Connection c;
    private RawPg sql;

    @BeforeEach
    void open() throws Exception {
        c = PgTestServer.freshDatabase().connect();
        MIGRATOR.migrate(c);
        sql = new RawPg(c);
    }

    @AfterEach
    void close() throws Exception {
        c.close();
    }

    private void refusedOnOpen(String problem) {
        assertThatThrownBy(() -> MIGRATOR.migrate(c)).isInstanceOfSatisfying(PgSchemaException.class, e -> {
            assertThat(e.problem()).isEqualTo(Problem.CORRUPT);
            assertThat(e.getMessage())
                    .contains("was changed by hand (")
                    .contains(problem)
                    .contains("no longer enforces the fence; refusing to open it, also for reading")
                    .doesNotContain("\n");
        });
    }

    @Test
    void anIntactLedgerOpensAgainAndAgain() {
        MIGRATOR.migrate(c);
        PgMigrator.verify(c);
    }

    @Test
    void aDroppedGuardIsRefused() {
        sql.exec("DROP TRIGGER token_counter_guard ON token_counter");
        sql.passes("UPDATE token_counter SET last_token = 0"); // what the owner can do meanwhile
        refusedOnOpen("guard token_counter_guard is missing");
    }

    @Test
    void aDisabledGuardIsRefused() {
        sql.exec("ALTER TABLE fence_events DISABLE TRIGGER fence_events_guard_delete");
        sql.passes(
                "INSERT INTO fence_events (at, kind, resource_type, resource_id) VALUES (0, 'REJECTED', 'actor', 'x')",
                "DELETE FROM fence_events");
        refusedOnOpen("guard fence_events_guard_delete is disabled");
    }

    @Test
    void disablingEveryTriggerOfATableIsRefusedToo() {
        sql.exec("ALTER TABLE assignments DISABLE TRIGGER ALL"); // as superuser this includes the foreign keys'
        refusedOnOpen("guard assignments_guard_insert is disabled");
        sql.exec("ALTER TABLE assignments ENABLE TRIGGER ALL");
        // back on, but only for sessions in the origin role: session_replication_role = replica would skip them
        refusedOnOpen("guard assignments_guard_insert no longer fires in every session (tgenabled O)");
    }

    @Test
    void aForeignKeySwitchedOffBehindGuardsThatWereSwitchedBackOnIsRefused() {
        sql.exec("ALTER TABLE actor_leases DISABLE TRIGGER ALL");
        for (String guard : new String[] {
            "actor_leases_guard_insert",
            "actor_leases_guard_update",
            "actor_leases_guard_delete",
            "actor_leases_never_truncated",
            "actor_leases_delete_leaves_tombstone"
        }) {
            sql.exec("ALTER TABLE actor_leases ENABLE ALWAYS TRIGGER " + guard);
        }
        refusedOnOpen("constraint actor_leases_actor_id_fkey is switched off on actor_leases");
    }

    @Test
    void aGuardedTableRenamedAwayAndReplacedByAnUnguardedCopyIsRefused() {
        // the triggers follow the renamed table; the guard functions' "token_counter" now means the copy
        sql.exec(
                "ALTER TABLE token_counter RENAME TO token_counter_old",
                "CREATE TABLE token_counter (id int PRIMARY KEY, last_token bigint, last_xact bigint)",
                "INSERT INTO token_counter VALUES (1, 0, 0)");
        refusedOnOpen("guard token_counter_guard now guards token_counter_old instead of token_counter");
    }

    @Test
    void aJournalSequenceWoundToItsEndIsRefusedForWhatItIs() {
        sql.exec("SELECT setval(pg_get_serial_sequence('fence_events', 'seq'), 9223372036854775806)");
        refusedOnOpen("the key sequence fence_events_seq_seq was wound to 9223372036854775806");
    }

    @Test
    void aGuardFunctionWhoseBodyWasReplacedIsRefused() {
        sql.exec("CREATE OR REPLACE FUNCTION token_counter_guard() RETURNS trigger LANGUAGE plpgsql"
                + " SET search_path FROM CURRENT AS $$ BEGIN RETURN NEW; END $$");
        sql.passes("UPDATE token_counter SET last_token = 0");
        refusedOnOpen("guard function token_counter_guard was replaced by different code");
    }

    @Test
    void theServerClockReplacedByAFutureOneIsRefused() {
        // a clock a year ahead would make every live lease look expired to the takeover guard
        sql.exec("CREATE OR REPLACE FUNCTION sovereign_now_ms() RETURNS bigint LANGUAGE sql VOLATILE"
                + " SET search_path FROM CURRENT AS $$ SELECT floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint"
                + " + 31536000000 $$");
        refusedOnOpen("guard function sovereign_now_ms was replaced by different code");
    }

    @Test
    void aGuardFunctionWithTheSameBodyButAnotherSearchPathOrSecurityIsRefused() {
        sql.exec("ALTER FUNCTION assignments_guard_update() SET search_path = pg_temp, public");
        refusedOnOpen("guard function assignments_guard_update runs with other settings than its migration gave it");
        sql.exec(
                "ALTER FUNCTION assignments_guard_update() RESET search_path",
                "ALTER FUNCTION assignments_guard_update() SET search_path FROM CURRENT");
        // FROM CURRENT in this session is 'public' (the default path), not what the migration set
        refusedOnOpen("guard function assignments_guard_update runs with other settings");
    }

    /**
     * STRICT answers NULL without running the body when an argument is NULL: a guard's {@code IF NOT
     * sovereign_acts_for(...)} then tests NULL and refuses nothing. PARALLEL SAFE on a writing function, and
     * LEAKPROOF, are promises the migration never made. Each is refused by name; undoing it opens again.
     */
    @Test
    void aGuardFunctionMadeStrictOrParallelSafeIsRefused() {
        MIGRATOR.migrate(c);
        sql.exec("ALTER FUNCTION sovereign_acts_for(text, name) STRICT");
        assertThat(sql.text("SELECT coalesce(sovereign_acts_for(NULL, 'public')::text, 'NULL')"))
                .as("what STRICT does to the login check")
                .isEqualTo("NULL");
        refusedOnOpen("guard function sovereign_acts_for runs with other settings than its migration gave it");
        sql.exec("ALTER FUNCTION sovereign_acts_for(text, name) CALLED ON NULL INPUT");
        PgMigrator.verify(c);

        sql.exec("ALTER FUNCTION sovereign_claim(text, text, text, bigint) PARALLEL SAFE");
        refusedOnOpen("guard function sovereign_claim runs with other settings than its migration gave it");
        sql.exec("ALTER FUNCTION sovereign_claim(text, text, text, bigint) PARALLEL UNSAFE");
        sql.exec("ALTER FUNCTION actor_leases_guard_update() PARALLEL RESTRICTED");
        refusedOnOpen("guard function actor_leases_guard_update runs with other settings");
        sql.exec("ALTER FUNCTION actor_leases_guard_update() PARALLEL UNSAFE");
        // LEAKPROOF needs a superuser: the embedded server's owner is one
        sql.exec("ALTER FUNCTION sovereign_now_ms() LEAKPROOF");
        refusedOnOpen("guard function sovereign_now_ms runs with other settings");
        sql.exec("ALTER FUNCTION sovereign_now_ms() NOT LEAKPROOF");
        // cost and rows are estimates for the planner only: not compared
        sql.exec("ALTER FUNCTION sovereign_beat(text) COST 1000");
        PgMigrator.verify(c);
    }

    @Test
    void aGuardReplacedByAWeakerTriggerOfTheSameNameIsRefused() {
        // same name, same function, but no longer fires on DELETE
        sql.exec(
                "DROP TRIGGER ledger_mark_never_changed ON ledger_mark",
                "CREATE TRIGGER ledger_mark_never_changed BEFORE UPDATE ON ledger_mark FOR EACH ROW"
                        + " EXECUTE FUNCTION sovereign_refuse('fence: the ledger mark cannot change')",
                "ALTER TABLE ledger_mark ENABLE ALWAYS TRIGGER ledger_mark_never_changed");
        refusedOnOpen("guard ledger_mark_never_changed was replaced by a different trigger");
    }

    @Test
    void aTriggerOrRuleAddedToALedgerTableIsRefused() {
        // a BEFORE trigger named to fire after the guard could rewrite the row the guard just passed
        sql.exec(
                "CREATE FUNCTION rewind() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN NEW.last_token := 0;"
                        + " RETURN NEW; END $$",
                "CREATE TRIGGER zz_rewind BEFORE UPDATE ON token_counter FOR EACH ROW EXECUTE FUNCTION rewind()");
        refusedOnOpen("trigger zz_rewind on token_counter is not one of Sovereign's");
        sql.exec(
                "DROP TRIGGER zz_rewind ON token_counter",
                "CREATE RULE forget AS ON DELETE TO fence_events DO INSTEAD NOTHING");
        refusedOnOpen("rule forget rewrites statements on fence_events");
        sql.exec("DROP RULE forget ON fence_events");
        refusedOnOpen("function rewind is not one of Sovereign's"); // the trigger's function, left behind
        sql.exec("DROP FUNCTION rewind()");
        MIGRATOR.migrate(c);
    }

    /**
     * Issue 26 item 6 (decision 0914): anything in the ledger's schema that could run code on a write, rewrite it,
     * hide rows from a guard or refuse a write, and that no migration created, is refused on open and named — a
     * function, a view, a policy (and row-level security), an index, a trigger or rule on a table that is not the
     * ledger's own. Each is removed again and the ledger opens.
     */
    @Test
    void anythingElseInTheLedgersSchemaThatNoMigrationCreatedIsRefusedByName() {
        sql.exec("CREATE FUNCTION helper() RETURNS bigint LANGUAGE sql AS $$ SELECT 0::bigint $$");
        refusedOnOpen("function helper is not one of Sovereign's");
        sql.exec("DROP FUNCTION helper()", "CREATE VIEW live_leases AS SELECT * FROM actor_leases");
        refusedOnOpen("view live_leases is not one of Sovereign's");
        sql.exec("DROP VIEW live_leases", "CREATE POLICY hide_rejections ON fence_events USING (kind <> 'REJECTED')");
        refusedOnOpen("policy hide_rejections on fence_events is not one of Sovereign's");
        sql.exec("DROP POLICY hide_rejections ON fence_events", "ALTER TABLE fence_events ENABLE ROW LEVEL SECURITY");
        refusedOnOpen("row-level security is switched on for fence_events");
        // an index that refuses every second REJECTED row: the journal falls silent without a guard touched
        sql.exec(
                "ALTER TABLE fence_events DISABLE ROW LEVEL SECURITY",
                "CREATE UNIQUE INDEX one_rejection ON fence_events (kind) WHERE kind = 'REJECTED'");
        refusedOnOpen("index one_rejection on fence_events is not one of Sovereign's");
        sql.exec(
                "DROP INDEX one_rejection",
                "CREATE TABLE notes (id int PRIMARY KEY)",
                "CREATE TRIGGER zz_notes BEFORE INSERT ON notes FOR EACH ROW EXECUTE FUNCTION sovereign_refuse('x')");
        refusedOnOpen("trigger zz_notes on notes is not one of Sovereign's");
        sql.exec("DROP TABLE notes");
        MIGRATOR.migrate(c);
    }
}
