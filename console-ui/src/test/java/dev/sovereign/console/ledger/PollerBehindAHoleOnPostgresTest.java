package dev.sovereign.console.ledger;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sovereign.console.fx.CurrentThreadUiExecutor;
import dev.sovereign.console.testing.CountingReader;
import dev.sovereign.engine.Engine;
import dev.sovereign.engine.Ledgers;
import dev.sovereign.engine.admin.JournalEntry;
import dev.sovereign.engine.base.EngineConfig;
import dev.sovereign.engine.base.LedgerLocation;
import dev.sovereign.engine.testing.PgTestServer;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The console's poller on a real PostgreSQL server while a journal row commits after a later one: it shows the
 * rows in seq order once the late one commits, and while it waits it reads only the journal again, not the
 * snapshot it already shows (decision 0900, open questions; {@code JournalTail}).
 */
class PollerBehindAHoleOnPostgresTest {
    @TempDir
    Path dir;

    @Test
    void whileARowIsLateOnlyTheJournalIsReadAgainAndThenBothRowsShowInOrder() throws Exception {
        PgTestServer.Database db = PgTestServer.freshDatabase();
        LedgerLocation location = LedgerLocation.parse(db.url());
        Clock clock = Clock.systemUTC();
        LiveLedger ledger = new LiveLedger();
        try (Engine engine = Engine.open(EngineConfig.forDatabase(location)
                        .dataDirectory(dir.resolve("data"))
                        .heartbeat(false)
                        .build());
                CountingReader reader =
                        new CountingReader(Ledgers.openReader(location, dir.resolve("data"), clock, ZoneOffset.UTC));
                LedgerPoller poller = new LedgerPoller(reader, ledger, new CurrentThreadUiExecutor(), clock);
                Connection late = db.connect()) {
            engine.actors().add("late-actor");
            poller.pollOnce();
            int snapshotsAtStart = reader.snapshots.get();

            late.setAutoCommit(false); // draws the next seq and does not commit yet
            long lateSeq;
            try (Statement s = late.createStatement();
                    ResultSet r = s.executeQuery("INSERT INTO fence_events"
                            + " (at, kind, resource_type, resource_id, detail) VALUES (1, 'MESSAGE_SENT', 'message', 'msg_late',"
                            + " 'drawn first, committed last') RETURNING seq")) {
                r.next();
                lateSeq = r.getLong(1);
            }
            engine.leases().acquire("late-actor", Duration.ofMinutes(1)); // a later seq, committed

            poller.pollOnce(); // the grant moved the marker: one snapshot, the grant's row held back
            assertThat(ledger.events()).extracting(JournalEntry::seq).doesNotContain(lateSeq + 1);
            int snapshotsBehindTheHole = reader.snapshots.get();
            assertThat(snapshotsBehindTheHole).isEqualTo(snapshotsAtStart + 1);
            for (int i = 0; i < 3; i++) {
                poller.pollOnce();
            }
            assertThat(reader.snapshots.get())
                    .as("waiting for the late row reads no snapshot again")
                    .isEqualTo(snapshotsBehindTheHole);

            late.commit();
            poller.pollOnce();
            assertThat(ledger.events())
                    .extracting(JournalEntry::seq)
                    .contains(lateSeq, lateSeq + 1)
                    .isSorted();
        }
    }
}
