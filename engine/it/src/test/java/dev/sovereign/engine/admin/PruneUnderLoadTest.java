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
import java.nio.file.Files;
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
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Issue 29: pruning while other OS processes work loses nothing that must stay (decisions 0018 and 0020). A month-old
 * history (a live lease, a run nobody settled, an unfinished message, and finished work) is written first; then two
 * child JVMs grant, run and deliver as fast as they can on the same file while this process prunes it again and again
 * in small batches. Afterwards: every row the rules keep is there, the old finished work is gone, every job and
 * message of the workers is there, their tokens only went up, and none of their writes failed.
 */
class PruneUnderLoadTest {
    private static final int WORKERS = 2;

    @RegisterExtension
    final TempDatabase temp = new TempDatabase();

    @Test
    void pruningWhileOtherProcessesWorkLosesNothingThatMustStay() throws Exception {
        // the old history, a month and a day ago
        SettableClock then = new SettableClock(
                System.currentTimeMillis() - Duration.ofDays(31).toMillis());
        Engine keeper = temp.open(then); // stays open: a running process, holding a live lease
        for (String actor : List.of("held", "old")) {
            keeper.actors().add(actor);
        }
        Lease held = keeper.leases().acquire("held", Duration.ofDays(300));
        Engine oldWorker = temp.open(then);
        Assignment unsettled = oldWorker.runs().assign("old", "scripted:outcome=failed");
        oldWorker.runs().runAssignment(unsettled.id(), Duration.ofSeconds(5));
        Assignment finished = oldWorker.runs().assign("old", "scripted:outcome=completed");
        oldWorker.runs().runAssignment(finished.id(), Duration.ofSeconds(5));
        oldWorker.leases().current("old").ifPresent(l -> oldWorker.leases().release("old", l.token()));
        Message open = keeper.mailbox().send("ops", "old", "open", "b", 3);
        Message done = keeper.mailbox().send("ops", "old", "done", "b", 3);
        Lease host = keeper.leases().acquire("old", Duration.ofSeconds(5));
        Claim c = keeper.mailbox().claim(done.id(), "old");
        keeper.mailbox().complete(done.id(), c.token());
        keeper.leases().release("old", host.token());
        oldWorker.close();
        long unsettledEvents = count("SELECT count(*) FROM fence_events WHERE resource_id = '" + unsettled.id() + "'");
        long openEvents = count("SELECT count(*) FROM fence_events WHERE resource_id = '" + open.id() + "'");
        long oldRows = count("SELECT count(*) FROM fence_events");

        Path stop = temp.dir().resolve("stop");
        List<Process> children = new ArrayList<>();
        List<Path> logs = new ArrayList<>();
        PruneReport total = null;
        long pruned = 0;
        long runsPruned = 0;
        try {
            for (int i = 0; i < WORKERS; i++) {
                Path log = temp.dir().resolve("load-" + i + ".log");
                logs.add(log);
                children.add(ChildJvm.start(
                        PruneLoadWorker.class, log, temp.file().toString(), stop.toString(), Integer.toString(i)));
            }
            for (Path log : logs) {
                ChildJvm.awaitLine(log, "READY", Duration.ofSeconds(60));
            }
            // prune, again and again, in small batches, while they work: each prune sees new young rows appended
            try (Engine pruner = temp.open(temp.config(Clock.systemUTC()).build())) {
                for (int round = 0; round < 6; round++) {
                    long seen = count("SELECT count(*) FROM assignments");
                    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
                    while (count("SELECT count(*) FROM assignments") < seen + 5) { // five more runs between prunes
                        assertThat(System.nanoTime())
                                .as("the workers keep working")
                                .isLessThan(deadline);
                        Thread.sleep(10);
                    }
                    total = pruner.prune(new PruneOptions(7, Integer.MAX_VALUE, false, null));
                    pruned += total.journalRows();
                    runsPruned += total.runs();
                }
            }
        } finally {
            Files.createFile(stop);
            for (Process p : children) {
                if (!p.waitFor(60, java.util.concurrent.TimeUnit.SECONDS)) {
                    ChildJvm.destroy(p);
                }
            }
        }

        long runs = 0;
        long messages = 0;
        for (Path log : logs) {
            String doneLine = ChildJvm.awaitLine(log, "DONE ", Duration.ofSeconds(10));
            String[] f = doneLine.trim().split(" ");
            assertThat(Long.parseLong(f[4]))
                    .as("errors in %s: %s", log, Files.readString(log))
                    .isZero();
            runs += Long.parseLong(f[2]);
            messages += Long.parseLong(f[3]);
        }
        assertThat(runs).isGreaterThanOrEqualTo(30);
        assertThat(pruned).as("the old journal went").isPositive();
        assertThat(runsPruned).as("the old finished run went").isEqualTo(1);

        // what the rules keep, kept
        assertThat(count("SELECT count(*) FROM fence_events WHERE actor_id = 'held' AND token = " + held.token()
                        + " AND kind = 'LEASE_ACQUIRED'"))
                .isEqualTo(1);
        assertThat(count("SELECT count(*) FROM assignments WHERE id = '" + unsettled.id() + "'"))
                .isEqualTo(1);
        assertThat(count("SELECT count(*) FROM fence_events WHERE resource_id = '" + unsettled.id() + "'"))
                .isEqualTo(unsettledEvents);
        assertThat(count("SELECT count(*) FROM messages WHERE id = '" + open.id() + "'"))
                .isEqualTo(1);
        assertThat(count("SELECT count(*) FROM fence_events WHERE resource_id = '" + open.id() + "'"))
                .isEqualTo(openEvents);
        assertThat(count("SELECT count(*) FROM processes WHERE identity = '" + keeper.processIdentity() + "'"))
                .isEqualTo(1);
        // the old finished work gone
        assertThat(count("SELECT count(*) FROM assignments WHERE id = '" + finished.id() + "'"))
                .isZero();
        assertThat(count("SELECT count(*) FROM messages WHERE id = '" + done.id() + "'"))
                .isZero();
        // everything the workers did, there: young, nothing of theirs may go
        assertThat(count("SELECT count(*) FROM assignments WHERE actor_id LIKE 'w%' AND state = 'COMPLETED'"))
                .isEqualTo(runs);
        assertThat(count("SELECT count(*) FROM messages WHERE recipient LIKE 'w%' AND state = 'DONE'"))
                .isEqualTo(messages);
        assertThat(count("SELECT count(*) FROM fence_events")).isGreaterThan(oldRows - pruned);
        // the counter is above every token the ledger holds
        assertThat(count("SELECT last_token FROM token_counter"))
                .isGreaterThanOrEqualTo(count("SELECT max(token) FROM execution_attempts"))
                .isGreaterThanOrEqualTo(count("SELECT max(token) FROM actor_leases"));
    }

    private long count(String query) throws SQLException {
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + temp.file());
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(query)) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
