package dev.sovereign.engine.internal.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.admin.LeaseRow;
import dev.sovereign.engine.base.EngineConfig;
import dev.sovereign.engine.base.LedgerLocation;
import dev.sovereign.engine.base.StorageException;
import dev.sovereign.engine.lease.Lease;
import dev.sovereign.engine.testing.PgTestServer;
import dev.sovereign.engine.testing.RawPg;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.ZoneOffset;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * PostgreSQL's console lease reader prepares its statements once per connection, not once per snapshot: many
 * snapshots through every path (a full read, changed rows, a tombstone, a session that beat, nothing changed) prepare
 * nothing after the first rounds; a closed reader leaves none of them open; after the connection was lost the kept
 * statements of the old one are closed and the reader prepares them again on the new one and reads correctly.
 */
class PgAdminReaderKeptStatementsTest {
    private PgTestServer.Database db;
    private LedgerLocation location;
    private Engine a;
    private Engine b;
    private Connection owner;

    @BeforeEach
    void open() throws SQLException {
        db = PgTestServer.freshDatabase();
        location = LedgerLocation.parse(db.url());
        a = Engine.open(EngineConfig.forDatabase(location).heartbeat(false).build());
        b = Engine.open(EngineConfig.forDatabase(location).heartbeat(false).build());
        owner = db.connect();
        a.actors().add("shared-0");
        a.actors().add("shared-1");
    }

    @AfterEach
    void close() throws SQLException {
        a.close();
        b.close();
        owner.close();
    }

    private PgAdminReader reader() {
        return PgAdminReader.open(
                location, Path.of(System.getProperty("java.io.tmpdir")), Clock.systemUTC(), ZoneOffset.UTC);
    }

    private void snapshotEqualsAFreshOne(PgAdminReader reader) {
        List<LeaseRow> kept = reader.snapshot().leases();
        try (PgAdminReader fresh = reader()) {
            assertThat(kept).isEqualTo(fresh.snapshot().leases());
        }
    }

    /** One round of the history: each step followed by a snapshot that must equal a fresh reader's. */
    private void round(PgAdminReader reader, int n) {
        a.actors().add("actor-" + n); // an actor added: a full read
        snapshotEqualsAFreshOne(reader);
        Lease mine = a.leases().acquire("actor-" + n, Duration.ofSeconds(30)); // a changed row
        snapshotEqualsAFreshOne(reader);
        a.heartbeatNow(); // a session that beat (the server's clock moved): its attached rows re-read
        snapshotEqualsAFreshOne(reader);
        Lease theirs = b.leases().acquire("shared-" + (n % 2), Duration.ofSeconds(30));
        b.leases().release(theirs.actor(), theirs.token()); // a tombstone
        snapshotEqualsAFreshOne(reader);
        snapshotEqualsAFreshOne(reader); // nothing changed
        a.leases().renew(mine.actor(), mine.token());
        snapshotEqualsAFreshOne(reader);
    }

    @Test
    void manySnapshotsPrepareEachLeaseStatementOnce() {
        try (PgAdminReader reader = reader()) {
            round(reader, 0);
            round(reader, 1);
            long afterWarmUp = reader.leaseStatementsPrepared();
            assertThat(afterWarmUp).isPositive();
            for (int n = 2; n < 12; n++) {
                round(reader, n);
            }
            assertThat(reader.leaseStatementsPrepared())
                    .as("lease statements prepared after 60 more snapshots")
                    .isEqualTo(afterWarmUp);
            assertThat(reader.leaseStatements().keptStatements()).hasSize((int) afterWarmUp);
        }
    }

    @Test
    void aClosedReaderLeavesNoStatementOpen() {
        a.actors().add("alpha");
        a.leases().acquire("alpha", Duration.ofSeconds(30));
        PgAdminReader reader = reader();
        reader.snapshot();
        a.heartbeatNow();
        reader.snapshot();
        List<PreparedStatement> kept = reader.leaseStatements().keptStatements();
        assertThat(kept).isNotEmpty().noneMatch(PgAdminReaderKeptStatementsTest::isClosed);

        reader.close();

        assertThat(kept).allMatch(PgAdminReaderKeptStatementsTest::isClosed);
        assertThat(reader.leaseStatements().keptStatements()).isEmpty();
    }

    @Test
    void afterALostConnectionTheStatementsArePreparedAgainOnTheNewOne() {
        a.actors().add("alpha");
        Lease alpha = a.leases().acquire("alpha", Duration.ofSeconds(30));
        String others = pids();
        try (PgAdminReader reader = reader()) {
            reader.snapshot();
            a.heartbeatNow();
            reader.snapshot();
            String readers = new RawPg(owner)
                    .text("SELECT string_agg(pid::text, ',') FROM pg_stat_activity"
                            + " WHERE datname = current_database() AND pid NOT IN (" + others + ")");
            assertThat(readers).as("the reader's backend").doesNotContain(",");
            List<PreparedStatement> before = reader.leaseStatements().keptStatements();
            long prepared = reader.leaseStatementsPrepared();

            new RawPg(owner).exec("SELECT pg_terminate_backend(" + readers + ")");
            assertThatThrownBy(reader::snapshot).isInstanceOf(StorageException.class);
            a.leases().release("alpha", alpha.token());
            snapshotEqualsAFreshOne(reader);

            assertThat(before).allMatch(PgAdminReaderKeptStatementsTest::isClosed);
            assertThat(reader.leaseStatements().keptStatements())
                    .isNotEmpty()
                    .noneMatch(PgAdminReaderKeptStatementsTest::isClosed)
                    .doesNotContainAnyElementsOf(before);
            assertThat(reader.leaseStatementsPrepared()).isGreaterThan(prepared);
            assertThat(reader.snapshot().leases())
                    .filteredOn(l -> l.actor().equals("alpha"))
                    .singleElement()
                    .satisfies(l -> assertThat(l.holder()).isNull());
        }
    }

    /** The backends connected to this database now (the engines' and the owner's), as an SQL list. */
    private String pids() {
        return new RawPg(owner)
                .text("SELECT string_agg(pid::text, ',') FROM pg_stat_activity"
                        + " WHERE datname = current_database()");
    }

    private static boolean isClosed(PreparedStatement ps) {
        try {
            return ps.isClosed();
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }
}
