package dev.sovereign.engine.internal.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.sovereign.engine.testing.PgFenceWrites;
import dev.sovereign.engine.testing.PgTestServer;
import dev.sovereign.engine.testing.RawPg;
import java.sql.Connection;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * MERGE (PostgreSQL 15 and newer) runs the row triggers of the action it takes, so it is refused by
 * the same guards as UPDATE, DELETE and INSERT. The default embedded server is 14, which has no MERGE:
 * these tests skip themselves there; the build runs its tests on PostgreSQL 16 by default.
 */
class PgMergeTest {
    private Connection c;
    private RawPg sql;

    @BeforeEach
    void open() throws Exception {
        c = PgTestServer.freshDatabase().connect();
        assumeTrue(
                c.getMetaData().getDatabaseMajorVersion() >= 15,
                "MERGE needs PostgreSQL 15; this server is " + PgTestServer.serverVersion());
        new PgMigrator(false, "test", "abc123", 10_000).migrate(c);
        sql = new RawPg(c);
        PgFenceWrites w = new PgFenceWrites(sql);
        w.process("proc_a");
        w.actor("operator");
        w.acquire("operator", "proc_a", 60_000);
        sql.passes(PgFenceWrites.journalStatement("LEASE_ACQUIRED", "operator"));
    }

    @AfterEach
    void close() throws Exception {
        if (c != null) {
            c.close();
        }
    }

    @Test
    void mergeCannotWindTheCounterBackNorDeleteIt() {
        sql.refused(
                "only increases",
                "MERGE INTO token_counter t USING (SELECT 1 AS id) s ON t.id = s.id"
                        + " WHEN MATCHED THEN UPDATE SET last_token = 0");
        sql.refused(
                "cannot be deleted",
                "MERGE INTO token_counter t USING (SELECT 1 AS id) s ON t.id = s.id" + " WHEN MATCHED THEN DELETE");
        sql.passes("MERGE INTO token_counter t USING (SELECT 1 AS id) s ON t.id = s.id"
                + " WHEN MATCHED THEN UPDATE SET last_token = t.last_token + 64"); // one step of stripe 1
        sql.refused(
                "moves only by one step",
                "MERGE INTO token_counter t USING (SELECT 1 AS id) s ON t.id = s.id"
                        + " WHEN MATCHED THEN UPDATE SET last_token = t.last_token + 1");
    }

    @Test
    void mergeCannotRewriteOrDeleteTheJournalNorALease() {
        sql.refused(
                "append-only",
                "MERGE INTO fence_events f USING (SELECT 1) s ON true"
                        + " WHEN MATCHED THEN UPDATE SET detail = 'rewritten'");
        sql.refused("append-only", "MERGE INTO fence_events f USING (SELECT 1) s ON true WHEN MATCHED THEN DELETE");
        sql.refused(
                "released only by the transaction",
                "MERGE INTO actor_leases l USING (SELECT 'operator' AS a) s"
                        + " ON l.actor_id = s.a WHEN MATCHED THEN DELETE");
        sql.refused(
                "presents its current token",
                "MERGE INTO actor_leases l USING (SELECT 'operator' AS a) s"
                        + " ON l.actor_id = s.a WHEN MATCHED THEN UPDATE SET expires_at = l.expires_at + 60000,"
                        + " change_seq = " + RawPg.CHANGE);
        assertThat(sql.scalar("SELECT count(*) FROM fence_events WHERE detail IS NULL"))
                .isEqualTo(1);
    }
}
