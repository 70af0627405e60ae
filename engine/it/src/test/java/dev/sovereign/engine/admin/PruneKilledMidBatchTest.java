package dev.sovereign.engine.admin;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.lease.Lease;
import dev.sovereign.engine.mailbox.Claim;
import dev.sovereign.engine.mailbox.Message;
import dev.sovereign.engine.run.Assignment;
import dev.sovereign.engine.testing.ChildJvm;
import dev.sovereign.engine.testing.SettableClock;
import dev.sovereign.engine.testing.TempDatabase;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Issue 29: a prune paused ({@code SIGSTOP}) and then killed ({@code SIGKILL}) inside one of its batches, in another
 * OS process, leaves the ledger exactly as its last committed batch left it (decisions 0018, 0020 and 0021): while it
 * is paused, readers see none of the open batch's writes (its watermark move, its deletions) and every batch before
 * it; after its death the file, recovered from the write-ahead log the killed process left, is whole and the same,
 * no foreign key dangles, the next write goes through and the next prune removes the rest, counted once.
 */
class PruneKilledMidBatchTest {
    private static final int RUNS = 12;
    private static final int MESSAGES = 5;
    private static final String[] TABLES = {
        "fence_events", "assignments", "execution_attempts", "receipts", "messages", "processes"
    };

    @RegisterExtension
    final TempDatabase temp = new TempDatabase();

    /**
     * Where the child stops: in its second journal batch (the watermark moved, the delete not yet run), in its second
     * batch of runs after it deleted one run of that batch (the foreign keys deferred to a commit that never comes),
     * and in its batch of messages.
     */
    @ParameterizedTest(name = "inside the batch that exports {0} for the {1}. time")
    @CsvSource({"fence_events, 2", "assignments, 4", "messages, 1"})
    void aPruneKilledInsideABatchLeavesTheLedgerAsItsLastCommitLeftIt(String table, int n) throws Exception {
        SettableClock then = new SettableClock(
                System.currentTimeMillis() - Duration.ofDays(31).toMillis());
        Engine old = temp.open(then);
        old.actors().add("jobs");
        old.actors().add("mail");
        for (int i = 0; i < RUNS; i++) {
            Assignment a = old.runs().assign("jobs", "scripted:outcome=completed");
            old.runs().runAssignment(a.id(), Duration.ofSeconds(5));
            old.leases().current("jobs").ifPresent(l -> old.leases().release("jobs", l.token()));
        }
        for (int i = 0; i < MESSAGES; i++) {
            Message m = old.mailbox().send("ops", "mail", "s" + i, "b", 3);
            Lease host = old.leases().acquire("mail", Duration.ofSeconds(5));
            Claim c = old.mailbox().claim(m.id(), "mail");
            old.mailbox().complete(m.id(), c.token());
            old.leases().release("mail", host.token());
        }
        old.close();
        Engine young = temp.open(temp.config(Clock.systemUTC()).build());
        young.actors().add("now");
        long lastToken = young.leases().acquire("now", Duration.ofSeconds(5)).token(); // the newest row
        PruneReport dry = young.prune(PruneOptions.dryRunOnly());
        assertThat(dry.runs()).isEqualTo(RUNS);
        assertThat(dry.messages()).isEqualTo(MESSAGES);
        long[] initial = rows();

        Path log = temp.dir().resolve("prune-child.log");
        Process child = ChildJvm.start(PruneChild.class, log, temp.file().toString(), table, Integer.toString(n), "10");
        try {
            String[] inBatch = ChildJvm.awaitLine(log, "IN BATCH " + table, Duration.ofSeconds(60))
                    .trim()
                    .split(" ");
            ChildJvm.signal(child, "STOP");
            long[] paused = rows(); // a reader is not held up by the paused writer, and sees its last commit
            Retention pausedRetention = young.retention();
            ChildJvm.signal(child, "KILL");
            assertThat(child.waitFor(30, TimeUnit.SECONDS)).isTrue();

            assertThat(rows()).as("rows per table after the kill").containsExactly(paused);
            assertThat(young.retention()).isEqualTo(pausedRetention);
            if (table.equals("fence_events")) { // the open batch moved the watermark over its rows: not seen
                assertThat(pausedRetention.prunedBelow()).isLessThanOrEqualTo(Long.parseLong(inBatch[4]));
            }
            if (table.equals("assignments")) { // its first batch (two runs) committed; the second's deletion did not
                assertThat(paused[1]).isEqualTo(initial[1] - 2);
            }
            if (table.equals("messages")) { // the journal and every run went before; no message yet
                assertThat(paused[1]).isEqualTo(initial[1] - RUNS);
                assertThat(paused[4]).isEqualTo(initial[4]);
            }
            assertThat(one("PRAGMA integrity_check")).isEqualTo("ok");
            assertThat(one("PRAGMA foreign_key_check")).isNull();

            // the dead writer's lock is gone: the next grant goes through, above every token before it
            assertThat(young.leases().acquire("jobs", Duration.ofSeconds(5)).token())
                    .isGreaterThan(lastToken);
            PruneReport rest = young.prune(PruneOptions.all());
            assertThat(rest.finished()).isTrue();
            long[] end = rows();
            assertThat(end[1]).as("assignments").isEqualTo(initial[1] - RUNS);
            assertThat(end[3]).as("receipts").isEqualTo(initial[3] - RUNS);
            assertThat(end[4]).as("messages").isEqualTo(initial[4] - MESSAGES);
            Retention r = young.retention();
            assertThat(r.prunedRuns()).as("each run counted once").isEqualTo(RUNS);
            assertThat(r.prunedMessages()).isEqualTo(MESSAGES);
            assertThat(r.prunedRows()).isEqualTo(pausedRetention.prunedRows() + rest.journalRows());
        } finally {
            ChildJvm.destroy(child);
        }
    }

    private long[] rows() throws SQLException {
        long[] counts = new long[TABLES.length];
        for (int i = 0; i < TABLES.length; i++) {
            counts[i] = Long.parseLong(one("SELECT count(*) FROM " + TABLES[i]));
        }
        return counts;
    }

    /** The first column of the first row {@code query} reads on a connection of its own, or null without a row. */
    private String one(String query) throws SQLException {
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + temp.file());
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(query)) {
            List<String> first = new ArrayList<>();
            if (rs.next()) {
                first.add(rs.getString(1));
            }
            return first.isEmpty() ? null : first.get(0);
        }
    }
}
