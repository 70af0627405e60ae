package dev.sovereign.engine.journal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.base.EngineConfig;
import dev.sovereign.engine.base.LedgerLocation;
import dev.sovereign.engine.testing.PgTestServer;
import dev.sovereign.engine.testing.SettableClock;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Decision 0900's open question, on a real PostgreSQL server: a journal row whose transaction draws its seq
 * first and commits after a later one. A follower that moves on to the highest seq it saw never shows the
 * late row; a {@link JournalTail} holds the later rows back and hands out both, in order, once the late one
 * commits.
 */
class JournalTailOnPostgresTest {
    @TempDir
    Path dir;

    @Test
    void aJournalRowThatCommitsLateIsFollowedInOrderWhereSeqGreaterThanLastMissesIt() throws Exception {
        PgTestServer.Database db = PgTestServer.freshDatabase();
        SettableClock clock = new SettableClock();
        try (Engine engine = Engine.open(EngineConfig.forDatabase(LedgerLocation.parse(db.url()))
                        .clock(clock)
                        .dataDirectory(dir.resolve("data"))
                        .heartbeat(false)
                        .build());
                Connection late = db.connect()) {
            engine.actors().add("late-actor");
            Journal journal = engine.journal();
            long start = journal.lastSeq();
            JournalTail<FenceEvent> tail = JournalTail.of(journal, start, clock, Duration.ofSeconds(2));
            long naive = start; // what `seq > last` following did

            // a writer draws the next seq and has not committed yet
            late.setAutoCommit(false);
            long lateSeq;
            try (Statement s = late.createStatement();
                    ResultSet r = s.executeQuery(
                            "INSERT INTO fence_events (at, kind, resource_type, resource_id, detail) VALUES "
                                    + "(1, 'MESSAGE_SENT', 'message', 'msg_late', 'drawn first, committed last') RETURNING seq")) {
                r.next();
                lateSeq = r.getLong(1);
            }
            // meanwhile the engine journals a grant and commits
            engine.leases().acquire("late-actor", Duration.ofMinutes(1));

            List<FenceEvent> seenNaively = journal.since(naive, 100);
            assertThat(seenNaively).extracting(FenceEvent::seq).allMatch(seq -> seq > lateSeq);
            naive = seenNaively.get(seenNaively.size() - 1).seq();
            assertThat(tail.poll(100))
                    .as("held back behind the uncommitted seq %d", lateSeq)
                    .isEmpty();

            clock.advance(Duration.ofSeconds(1));
            late.commit();

            assertThat(journal.since(naive, 100))
                    .as("following with seq > last never shows the late row")
                    .isEmpty();
            List<FenceEvent> followed = tail.poll(100);
            assertThat(followed).extracting(FenceEvent::seq).first().isEqualTo(lateSeq);
            assertThat(followed).extracting(FenceEvent::seq).isSorted();
            assertThat(followed).extracting(e -> e.kind().name()).contains("MESSAGE_SENT", "LEASE_ACQUIRED");
            assertThat(tail.holdsBack()).isFalse();
        }
    }
}
