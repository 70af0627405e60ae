package dev.sovereign.engine.internal.sqlite;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.admin.AdminSnapshot;
import dev.sovereign.engine.admin.LeaseRow;
import dev.sovereign.engine.lease.Lease;
import dev.sovereign.engine.testing.SettableClock;
import dev.sovereign.engine.testing.Sqlite;
import dev.sovereign.engine.testing.TempDatabase;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.ZoneOffset;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The console's reader prepares each statement once for the life of its connection, not once per snapshot: many
 * snapshots through every path of the lease reader (a full read, changed rows, a tombstone, a session that beat,
 * nothing changed) prepare nothing after the first round; a closed reader leaves none of its statements open; a
 * reader opened again on the same file reads what a fresh one reads.
 */
class AdminReaderKeptStatementsTest {
    @RegisterExtension
    final TempDatabase temp = new TempDatabase();

    private final SettableClock clock = new SettableClock();

    /** One round of the history: each step followed by a snapshot that must equal a fresh reader's. */
    private void round(Engine a, Engine b, SqliteAdminReader reader, int n) {
        a.actors().add("actor-" + n); // an actor added: a full read
        snapshotEqualsAFreshOne(reader);
        Lease mine = a.leases().acquire("actor-" + n, Duration.ofSeconds(5)); // a changed row
        snapshotEqualsAFreshOne(reader);
        clock.advance(Duration.ofSeconds(1));
        a.heartbeatNow(); // a session that beat: its attached rows re-read
        snapshotEqualsAFreshOne(reader);
        Lease theirs = b.leases().acquire("shared-" + (n % 2), Duration.ofSeconds(3));
        b.leases().release(theirs.actor(), theirs.token()); // a tombstone
        snapshotEqualsAFreshOne(reader);
        snapshotEqualsAFreshOne(reader); // nothing changed
        a.leases().renew(mine.actor(), mine.token());
        snapshotEqualsAFreshOne(reader);
    }

    private void snapshotEqualsAFreshOne(SqliteAdminReader reader) {
        AdminSnapshot kept = reader.snapshot();
        try (SqliteAdminReader fresh = SqliteAdminReader.open(temp.file(), clock, ZoneOffset.UTC)) {
            List<LeaseRow> expected = fresh.snapshot().leases();
            assertThat(kept.leases()).isEqualTo(expected);
        }
    }

    @Test
    void manySnapshotsPrepareEachStatementOnce() throws SQLException {
        Engine a = temp.open(clock);
        Engine b = temp.open(clock);
        a.actors().add("shared-0");
        a.actors().add("shared-1");
        try (SqliteAdminReader reader = SqliteAdminReader.open(temp.file(), clock, ZoneOffset.UTC)) {
            round(a, b, reader, 0);
            round(a, b, reader, 1);
            long afterWarmUp = reader.statementsPrepared();
            assertThat(afterWarmUp).isPositive();
            for (int n = 2; n < 22; n++) {
                round(a, b, reader, n);
            }
            assertThat(reader.statementsPrepared())
                    .as("statements prepared after 20 more rounds (120 snapshots)")
                    .isEqualTo(afterWarmUp);
            assertThat(reader.readConnection().keptStatements()).hasSize((int) afterWarmUp);
            // a kept statement is reset between snapshots: it holds no read mark, so a checkpoint can empty the WAL
            // (the engines' background passes paused, decision 0513: a checkpoint gives up at once while one runs)
            Sqlite.database(a).backgroundCheckpoints().pause(true);
            Sqlite.database(b).backgroundCheckpoints().pause(true);
            try (Connection raw = DriverManager.getConnection("jdbc:sqlite:" + temp.file());
                    Statement s = raw.createStatement();
                    ResultSet rs = s.executeQuery("PRAGMA wal_checkpoint(TRUNCATE)")) {
                assertThat(rs.next()).isTrue();
                assertThat(rs.getInt(1)).as("checkpoint blocked").isZero();
            }
        }
    }

    @Test
    void aClosedReaderLeavesNoStatementOpenAndOneOpenedAgainReads() throws SQLException {
        Engine a = temp.open(clock);
        a.actors().add("alpha");
        a.leases().acquire("alpha", Duration.ofSeconds(5));
        SqliteAdminReader reader = SqliteAdminReader.open(temp.file(), clock, ZoneOffset.UTC);
        reader.snapshot();
        a.heartbeatNow();
        reader.snapshot();
        List<PreparedStatement> kept = reader.readConnection().keptStatements();
        assertThat(kept).isNotEmpty().noneMatch(AdminReaderKeptStatementsTest::isClosed);

        reader.close();

        assertThat(kept).allMatch(AdminReaderKeptStatementsTest::isClosed);
        assertThat(reader.readConnection().keptStatements()).isEmpty();
        try (SqliteAdminReader again = SqliteAdminReader.open(temp.file(), clock, ZoneOffset.UTC)) {
            clock.advance(Duration.ofSeconds(1));
            a.heartbeatNow();
            again.snapshot();
            a.leases().release("alpha", a.leases().held().get(0).token());
            snapshotEqualsAFreshOne(again);
            assertThat(again.snapshot().leases())
                    .singleElement()
                    .satisfies(l -> assertThat(l.holder()).isNull());
        }
    }

    private static boolean isClosed(PreparedStatement ps) {
        try {
            return ps.isClosed();
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }
}
