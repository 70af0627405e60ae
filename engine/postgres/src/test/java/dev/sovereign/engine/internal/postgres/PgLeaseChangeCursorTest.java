package dev.sovereign.engine.internal.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.admin.AdminSnapshot;
import dev.sovereign.engine.admin.LeaseRow;
import dev.sovereign.engine.base.EngineConfig;
import dev.sovereign.engine.base.LedgerLocation;
import dev.sovereign.engine.lease.Lease;
import dev.sovereign.engine.testing.PgFenceWrites;
import dev.sovereign.engine.testing.PgTestServer;
import dev.sovereign.engine.testing.RawPg;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.time.ZoneOffset;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The console's incremental lease read on PostgreSQL since schema version 18 (decision 0923): a lease write is marked
 * with its own transaction's id and a snapshot keeps the oldest transaction still running as its cursor. Real
 * connections hold the transactions open; nothing waits on time. Each test compares the reader's incremental snapshot
 * with the rows in the database, where a cursor of another kind would lose a write: one that committed after a later
 * transaction's (the largest marker seen as the cursor), and one that committed while an unrelated long transaction
 * held the cursor still (the short cut "the cursor did not move, nothing changed").
 */
class PgLeaseChangeCursorTest {
    private PgTestServer.Database db;
    private Engine engine;
    private PgAdminReader reader;
    private Lease alpha;
    private Lease beta;

    @BeforeEach
    void ledger() {
        db = PgTestServer.freshDatabase();
        engine = Engine.open(EngineConfig.forDatabase(db.url()).heartbeat(false).build());
        engine.actors().add("alpha");
        engine.actors().add("beta");
        alpha = engine.leases().acquire("alpha", Duration.ofMinutes(1));
        beta = engine.leases().acquire("beta", Duration.ofMinutes(1));
        reader = PgAdminReader.open(
                LedgerLocation.parse(db.url()),
                Path.of(System.getProperty("java.io.tmpdir")),
                Clock.systemUTC(),
                ZoneOffset.UTC);
        assertThat(expiresAt(reader.snapshot(), "alpha")).isEqualTo(alpha.expiresAt()); // the first, full read
    }

    @AfterEach
    void close() {
        reader.close();
        engine.close();
    }

    @Test
    void aLeaseWriteThatCommitsAfterALaterOneIsReadByTheNextSnapshot() throws Exception {
        try (Connection holder = db.connect()) {
            holder.setAutoCommit(false);
            // the holder's renewal of alpha by hand: its transaction id is drawn now, before the engine's below
            try (Statement s = holder.createStatement()) {
                for (String statement : PgFenceWrites.renewStatements("alpha", alpha.token(), 90_000)) {
                    s.execute(statement);
                }
            }
            Lease renewed = engine.leases().renew("beta", beta.token(), Duration.ofMinutes(2)); // a later transaction
            AdminSnapshot first = reader.snapshot();
            assertThat(expiresAt(first, "beta")).isEqualTo(renewed.expiresAt());
            assertThat(expiresAt(first, "alpha")).isEqualTo(alpha.expiresAt()); // not committed yet
            holder.commit();
        }
        AdminSnapshot second = reader.snapshot();
        assertThat(expiresAt(second, "alpha")).isEqualTo(inDatabase("alpha")).isNotEqualTo(alpha.expiresAt());
    }

    @Test
    void aLeaseWriteIsReadWhileALongTransactionElsewhereHoldsTheCursorStill() throws Exception {
        try (Connection idle = db.connect()) {
            idle.setAutoCommit(false);
            new RawPg(idle).scalar("SELECT txid_current()"); // an open transaction with an id, the oldest running
            reader.snapshot();
            Lease renewed = engine.leases().renew("alpha", alpha.token(), Duration.ofMinutes(3));
            AdminSnapshot next = reader.snapshot();
            assertThat(expiresAt(next, "alpha")).isEqualTo(renewed.expiresAt());
            engine.leases().release("beta", beta.token());
            assertThat(reader.snapshot().leases())
                    .filteredOn(row -> row.actor().equals("beta"))
                    .singleElement()
                    .satisfies(row -> assertThat(row.holder()).isNull());
            idle.rollback();
        }
    }

    /**
     * A version-17 ledger whose lease rows carry counter values as markers, one of them far above any transaction id of
     * this server (as after a restore into another cluster): migrated, every lease write goes on, and the console's
     * reads stay complete; the row marked from afar is only read again by every incremental read until it is written.
     */
    @Test
    void aVersionSeventeenLedgerMigratesAndItsOldMarkersNeitherHideNorRefuseAWrite() throws Exception {
        PgTestServer.Database old = PgTestServer.freshDatabase();
        long held;
        try (Connection c = old.connect()) {
            assertThat(new PgMigrator(false, "old", "f00", 10_000).migrateTo(c, 17))
                    .isEqualTo(17);
            RawPg sql = new RawPg(c);
            PgFenceWrites w = new PgFenceWrites(sql);
            w.actor("alpha");
            w.actor("beta");
            w.process("proc_old");
            sql.passes("UPDATE lease_change_counter SET last_change = last_change + 1 WHERE id = 1");
            held = w.acquire("alpha", "proc_old", 600_000); // marked by the counter: 2
            // a marker from a ledger that lived elsewhere: the copy tool writes rows as they were, guards off
            sql.passes(
                    "ALTER TABLE actor_leases DISABLE TRIGGER actor_leases_guard_update",
                    "UPDATE actor_leases SET change_seq = 4000000000000 WHERE actor_id = 'alpha'",
                    "ALTER TABLE actor_leases ENABLE ALWAYS TRIGGER actor_leases_guard_update");
        }
        try (Engine e = Engine.open(
                        EngineConfig.forDatabase(old.url()).heartbeat(false).build());
                PgAdminReader r = PgAdminReader.open(
                        LedgerLocation.parse(old.url()),
                        Path.of(System.getProperty("java.io.tmpdir")),
                        Clock.systemUTC(),
                        ZoneOffset.UTC);
                Connection c = old.connect()) {
            assertThat(PgMigrator.schemaVersion(c)).isEqualTo(PgMigrator.LATEST);
            assertThat(expiresAt(r.snapshot(), "alpha"))
                    .isEqualTo(new RawPg(c).scalar("SELECT expires_at FROM actor_leases WHERE actor_id = 'alpha'"));
            Lease b = e.leases().acquire("beta", Duration.ofMinutes(1));
            AdminSnapshot next = r.snapshot();
            assertThat(next.leases())
                    .filteredOn(row -> row.actor().equals("beta"))
                    .singleElement()
                    .satisfies(row -> assertThat(row.token()).isEqualTo(b.token()));
            // beta, and alpha for its marker from afar (more when a transaction elsewhere on the server holds the
            // cursor)
            assertThat(r.leaseRowsReadLastSnapshot()).isEqualTo(2);
            // the old holder's renewal through the function of this version: the far marker is replaced by its own
            assertThat(new RawPg(c)
                            .scalar("SELECT token FROM sovereign_lease_renew('alpha', 'proc_old', " + held
                                    + ", 900000)"))
                    .isEqualTo(held);
            assertThat(expiresAt(r.snapshot(), "alpha"))
                    .isEqualTo(new RawPg(c).scalar("SELECT expires_at FROM actor_leases WHERE actor_id = 'alpha'"));
        }
    }

    private static long expiresAt(AdminSnapshot snapshot, String actor) {
        return snapshot.leases().stream()
                .filter(row -> row.actor().equals(actor))
                .mapToLong(LeaseRow::expiresAt)
                .findFirst()
                .orElseThrow();
    }

    private long inDatabase(String actor) throws Exception {
        try (Connection c = db.connect()) {
            return new RawPg(c).scalar("SELECT expires_at FROM actor_leases WHERE actor_id = '" + actor + "'");
        }
    }
}
