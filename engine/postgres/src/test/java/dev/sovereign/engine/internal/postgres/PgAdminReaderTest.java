package dev.sovereign.engine.internal.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.Ledgers;
import dev.sovereign.engine.admin.AdminReader;
import dev.sovereign.engine.admin.AdminSnapshot;
import dev.sovereign.engine.admin.OperatorActions;
import dev.sovereign.engine.base.EngineConfig;
import dev.sovereign.engine.base.LedgerLocation;
import dev.sovereign.engine.base.StorageException;
import dev.sovereign.engine.base.StorageException.Problem;
import dev.sovereign.engine.lease.Lease;
import dev.sovereign.engine.testing.PgTestServer;
import dev.sovereign.engine.testing.RawPg;
import java.nio.file.Path;
import java.sql.Connection;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;

/**
 * The operators' reader on a real server (decision 0905): its session cannot write; it refuses a database with
 * no ledger, a foreign schema and a newer ledger in one sentence that never shows the password; a login in the
 * worker role (decision 0902) reads everything with it; its snapshot is stamped with the server's clock, and it
 * tells how the connection travels.
 */
class PgAdminReaderTest {
    private static final String PLANTED = "planted-Secret-42";

    private static LedgerLocation withPassword(PgTestServer.Database db) {
        return LedgerLocation.parse(db.url() + "&password=" + PLANTED); // the embedded server trusts local logins
    }

    private static AdminReader reader(LedgerLocation location, Clock clock) {
        return Ledgers.openReader(location, Path.of(System.getProperty("java.io.tmpdir")), clock, ZoneOffset.UTC);
    }

    private static PgTestServer.Database ledger() {
        PgTestServer.Database db = PgTestServer.freshDatabase();
        try (Engine e =
                Engine.open(EngineConfig.forDatabase(db.url()).heartbeat(false).build())) {
            e.actors().add("alpha");
        }
        return db;
    }

    @Test
    void theReadersSessionCannotWriteEvenByHand() throws Exception {
        PgTestServer.Database db = ledger();
        try (PgDatabase session = PgDatabase.openForReading(withPassword(db))) {
            assertThatThrownBy(
                            () -> session.read(tx -> tx.update("INSERT INTO actors (id, created_at) VALUES ('x', 1)")))
                    .isInstanceOfSatisfying(
                            StorageException.class,
                            e -> assertThat(e.getMessage())
                                    .contains("read-only transaction")
                                    .doesNotContain(PLANTED));
            long actors = session.snapshot(tx -> tx.scalarLong("SELECT count(*) FROM actors"));
            assertThat(actors).isEqualTo(1);
        }
        try (Connection c = db.connect()) {
            assertThat(new RawPg(c).scalar("SELECT count(*) FROM actors")).isEqualTo(1);
        }
    }

    @Test
    void aDatabaseWithoutALedgerIsRefusedInOneSentenceWithoutThePasswordAndLeftEmpty() throws Exception {
        PgTestServer.Database db = PgTestServer.freshDatabase();
        assertThatThrownBy(() -> reader(withPassword(db), Clock.systemUTC()))
                .isInstanceOfSatisfying(StorageException.class, e -> {
                    assertThat(e.problem()).isEqualTo(Problem.MISSING_FILE);
                    assertThat(e.getMessage())
                            .startsWith("There is no Sovereign ledger in the PostgreSQL database")
                            .contains("password=***")
                            .contains("sovereign init")
                            .doesNotContain(PLANTED);
                });
        try (Connection c = db.connect()) {
            assertThat(PgMigrator.schemaVersion(c)).isZero();
            assertThat(new RawPg(c).scalar("SELECT count(*) FROM pg_tables WHERE schemaname = 'public'"))
                    .isZero();
        }
    }

    @Test
    void aForeignSchemaAndANewerLedgerAreRefused() throws Exception {
        PgTestServer.Database foreign = PgTestServer.freshDatabase();
        try (Connection c = foreign.connect()) {
            new RawPg(c).exec("CREATE TABLE invoices (id int)");
        }
        assertThatThrownBy(() -> reader(withPassword(foreign), Clock.systemUTC()))
                .isInstanceOfSatisfying(StorageException.class, e -> {
                    assertThat(e.problem()).isEqualTo(Problem.NOT_OURS);
                    assertThat(e.getMessage())
                            .contains("Sovereign did not create")
                            .doesNotContain(PLANTED);
                });
        PgTestServer.Database newer = ledger();
        try (Connection c = newer.connect()) {
            new RawPg(c).exec("INSERT INTO schema_migrations VALUES (" + (PgMigrator.LATEST + 1) + ", 'next', 'x', 1)");
        }
        assertThatThrownBy(() -> reader(withPassword(newer), Clock.systemUTC()))
                .isInstanceOfSatisfying(StorageException.class, e -> {
                    assertThat(e.problem()).isEqualTo(Problem.SCHEMA_TOO_NEW);
                    assertThat(e.getMessage())
                            .contains("newer than this Sovereign")
                            .doesNotContain(PLANTED);
                });
    }

    @Test
    void anUnreachableServerIsOneSentenceWithoutThePassword() {
        LedgerLocation nowhere = LedgerLocation.parse(
                "jdbc:postgresql://localhost:1/nowhere?user=sov&password=" + PLANTED + "&connectTimeout=2");
        assertThatThrownBy(() -> reader(nowhere, Clock.systemUTC()))
                .isInstanceOfSatisfying(
                        StorageException.class,
                        e -> assertThat(e.getMessage())
                                .startsWith("Cannot connect to the PostgreSQL ledger")
                                .contains("password=***")
                                .doesNotContain(PLANTED));
    }

    @Test
    void aWorkerLoginReadsTheLedgerAndTheConnectionSaysItIsNotEncrypted() throws Exception {
        PgTestServer.Database db = ledger();
        String host = PgTestServer.freshRole("host_a");
        try (Connection c = db.connect()) {
            new RawPg(c).exec("GRANT sovereign_" + db.name() + "_worker TO " + host);
        }
        LedgerLocation asWorker = LedgerLocation.parse(
                "jdbc:postgresql://localhost:" + db.port() + "/" + db.name() + "?user=" + host + "&password=" + host);
        try (Engine worker = Engine.openExisting(
                        EngineConfig.forDatabase(asWorker).heartbeat(false).build());
                AdminReader r = reader(asWorker, Clock.systemUTC())) {
            long before = r.changeMarker();
            Lease l = worker.leases().acquire("alpha", Duration.ofSeconds(10));
            assertThat(r.changeMarker()).isNotEqualTo(before);
            AdminSnapshot s = r.snapshot();
            assertThat(s.leases())
                    .singleElement()
                    .satisfies(row -> assertThat(row.token()).isEqualTo(l.token()));
            assertThat(s.location().toString()).endsWith("&password=***"); // the password is the role name here
            assertThat(r.eventsSince(0, 10)).extracting(e -> e.kind()).contains("LEASE_ACQUIRED");
            assertThat(r.connection().brief()).isEqualTo("not encrypted"); // the embedded server has no TLS
        }
    }

    @Test
    void theConsolesOperatorActionsRunOnAServerAndItsReaderSeesThem() {
        PgTestServer.Database db = ledger();
        try (OperatorActions actions = Ledgers.openOperatorActions(withPassword(db));
                AdminReader r = reader(withPassword(db), Clock.systemUTC())) {
            var tick = actions.tickSupervisor();
            assertThat(tick.process().identity()).isEqualTo(actions.processIdentity());
            AdminSnapshot s = r.snapshot();
            assertThat(s.lastTick()).get().satisfies(t -> assertThat(t.seq()).isEqualTo(tick.seq()));
            assertThat(s.processes()).anySatisfy(p -> {
                assertThat(p.process().identity()).isEqualTo(actions.processIdentity());
                assertThat(p.kind()).isEqualTo("console");
            });
        }
    }

    @Test
    void aSnapshotIsStampedWithTheServersClockAndTheReaderKnowsTheOffset() {
        System.setProperty(PgServerClock.ALLOW_PINNED, "true");
        PgTestServer.Database db = ledger();
        long pinned = Instant.parse("2030-01-01T00:00:00Z").toEpochMilli();
        PgTestServer.pinClock(db, pinned);
        Clock local = Clock.fixed(Instant.ofEpochMilli(pinned - 7_000), ZoneOffset.UTC); // this host runs 7 s late
        try (AdminReader r = reader(withPassword(db), local)) {
            assertThat(r.snapshot().takenAt()).isEqualTo(pinned);
            assertThat(r.ledgerClockOffsetMillis()).isEqualTo(7_000);
        }
    }
}
