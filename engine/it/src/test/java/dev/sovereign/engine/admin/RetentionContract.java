package dev.sovereign.engine.admin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.base.LedgerLocation;
import dev.sovereign.engine.base.Refusal;
import dev.sovereign.engine.lease.Lease;
import dev.sovereign.engine.mailbox.Claim;
import dev.sovereign.engine.mailbox.Message;
import dev.sovereign.engine.run.Assignment;
import dev.sovereign.engine.testing.Contract;
import dev.sovereign.engine.testing.Port;
import dev.sovereign.engine.testing.SettableClock;
import dev.sovereign.engine.testing.TempDatabase;
import dev.sovereign.engine.testing.TestBackend;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Retention and pruning on every backend (decisions 0018 and 0019): a prune deletes only what the policy lets go and
 * no live row needs; the database itself refuses every other deletion, every backward or premature move of the
 * watermark and every forged count, from a connection of its own; contention is counted per window while a stale
 * token keeps its own row; tokens keep increasing after a prune.
 */
@Contract
abstract class RetentionContract {
    /** The backend this class's ledgers are on: each backend's module has its subclass (decision 0015). */
    protected abstract TestBackend backend();

    @RegisterExtension
    final TempDatabase temp = new TempDatabase(this::backend);

    private final SettableClock clock = new SettableClock();

    @Test
    void aPruneDeletesWhatThePolicyLetsGoAndKeepsWhatALiveRowNeeds() throws SQLException {
        Engine a = temp.open(clock);
        Engine b = temp.open(clock);
        for (String actor : List.of("held", "churned", "run", "mail")) {
            a.actors().add(actor);
        }
        Lease held = a.leases().acquire("held", Duration.ofDays(300)); // live all along: its events stay
        assertThat(b.leases().tryAcquire("held", Duration.ofSeconds(5))).isEmpty(); // the grant is not its newest event
        java.util.Set<Long> issued = new java.util.HashSet<>(java.util.List.of(held.token()));
        for (int i = 0; i < 5; i++) {
            Lease l = b.leases().acquire("churned", Duration.ofSeconds(5));
            issued.add(l.token());
            b.leases().release("churned", l.token());
        }
        Message done = a.mailbox().send("ops", "mail", "s", "b", 3);
        Message open = a.mailbox().send("ops", "mail", "s2", "b", 3);
        Lease mail = a.leases().acquire("mail", Duration.ofSeconds(5));
        Claim c = a.mailbox().claim(done.id(), "mail");
        a.mailbox().complete(done.id(), c.token());
        a.leases().release("mail", mail.token());
        Assignment lost = a.runs().assign("run", "scripted");
        Lease runLease = a.leases().acquire("run", Duration.ofSeconds(10));
        Port.runs(a).startAttempt(lost.id(), runLease.token(), 2_000);
        clock.advance(Duration.ofSeconds(30));
        assertThat(a.supervisor().tick().recovered()).hasSize(1); // worker-lost, nobody acknowledged it
        long oldRows = count("SELECT count(*) FROM fence_events");

        clock.advance(Duration.ofDays(31));
        a.actors().add("later"); // not journalled: the journal's newest time moves with the next event
        Lease later = a.leases().acquire("later", Duration.ofSeconds(5));
        assertThat(later.token())
                .isNotIn(issued); // never issued twice (above every other only on SQLite's one counter)

        PruneReport dry = a.prune(PruneOptions.dryRunOnly());
        assertThat(count("SELECT count(*) FROM fence_events")).isEqualTo(oldRows + 1); // a dry run deletes nothing
        PruneReport report = a.prune(PruneOptions.all());
        assertThat(report.journalRows()).isEqualTo(dry.journalRows()).isPositive();
        assertThat(report.finished()).isTrue();
        assertThat(report.watermarkAfter()).isGreaterThan(report.watermarkBefore());
        assertThat(count("SELECT count(*) FROM fence_events")).isEqualTo(oldRows + 1 - report.journalRows());

        // what stays: the live lease's grant, the churned actor's newest event, every event of the unfinished
        // message and of the run nobody settled, the finished message's newest event, the newest journal row
        assertThat(count("SELECT count(*) FROM fence_events WHERE actor_id = 'held' AND token = " + held.token()))
                .isEqualTo(1);
        assertThat(count("SELECT count(*) FROM fence_events WHERE resource_type = 'actor' AND resource_id = 'churned'"))
                .isEqualTo(1);
        assertThat(kinds("message", open.id())).containsExactly("MESSAGE_SENT");
        assertThat(kinds("message", done.id())).containsExactly("MESSAGE_DONE");
        assertThat(kinds("assignment", lost.id())).contains("ASSIGNMENT_CREATED");
        assertThat(count("SELECT count(*) FROM fence_events WHERE actor_id = 'later'"))
                .isEqualTo(1);
        assertThat(a.retention().prunedRows()).isEqualTo(report.journalRows());
        assertThat(a.retention().lastPrunedAt()).isPositive();

        // once the run is settled, its events may go on the next prune (the newest of the assignment stays)
        a.runs().acknowledge(lost.id());
        clock.advance(Duration.ofDays(31));
        a.leases().release("later", later.token());
        a.prune(PruneOptions.all());
        assertThat(kinds("assignment", lost.id())).containsExactly("ASSIGNMENT_ACKNOWLEDGED");

        // tokens keep increasing after any pruning
        Lease after = b.leases().acquire("churned", Duration.ofSeconds(5));
        assertThat(after.token()).isGreaterThan(later.token());
    }

    @Test
    void theExportReceivesEveryPrunedRowBeforeItGoesAndAFailingExportDeletesNothing() throws SQLException {
        Engine a = temp.open(clock);
        a.actors().add("x");
        for (int i = 0; i < 7; i++) {
            Lease l = a.leases().acquire("x", Duration.ofSeconds(5));
            a.leases().release("x", l.token());
        }
        clock.advance(Duration.ofDays(31));
        a.leases().acquire("x", Duration.ofSeconds(5));
        long before = count("SELECT count(*) FROM fence_events");

        PruneOptions small = new PruneOptions(3, Integer.MAX_VALUE, false, null);
        assertThatThrownBy(() -> a.prune(small.exportingTo(rows -> {
                    throw new IllegalStateException("disk full");
                })))
                .hasMessageContaining("disk full");
        assertThat(count("SELECT count(*) FROM fence_events")).isEqualTo(before);

        List<Object> exported = new ArrayList<>();
        PruneReport report = a.prune(small.exportingTo(batch -> {
            assertThat(batch.table()).isIn("fence_events", "supervisor_ticks", "lease_contention");
            batch.rows().forEach(r -> exported.add(r.get("seq")));
        }));
        assertThat(report.batches()).isGreaterThan(2); // three rows a batch
        assertThat((long) exported.size()).isEqualTo(report.totalRows()).isPositive();
        assertThat(count("SELECT count(*) FROM fence_events")).isEqualTo(before - report.journalRows());
    }

    /** The database refuses every deletion and every move of the watermark the rules do not allow (contract §16). */
    @Test
    void theDatabaseRefusesEveryOtherDeletionAndEveryOtherMoveOfTheWatermark() throws SQLException {
        Engine a = temp.open(clock);
        a.actors().add("x");
        a.actors().add("y");
        a.actors().add("z");
        Lease x = a.leases().acquire("x", Duration.ofDays(300));
        // a refusal after the grant: the grant is not x's newest event, only the live lease keeps it
        assertThat(temp.open(clock).leases().tryAcquire("x", Duration.ofSeconds(5)))
                .isEmpty();
        Lease z = a.leases().acquire("z", Duration.ofSeconds(5));
        a.leases().release("z", z.token());
        for (int i = 0; i < 4; i++) {
            Lease l = a.leases().acquire("y", Duration.ofSeconds(5));
            a.leases().release("y", l.token());
        }
        a.supervisor().tick();
        clock.advance(Duration.ofDays(31));
        a.supervisor().tick();
        Lease young = a.leases().acquire("y", Duration.ofSeconds(5)); // young rows, the newest three
        a.leases().release("y", young.token());
        Lease y = a.leases().acquire("y", Duration.ofSeconds(5));
        long newest = count("SELECT max(seq) FROM fence_events");
        long rows = count("SELECT count(*) FROM fence_events");

        // before any prune: nothing is below the watermark, so no row may go, however it is asked
        refused("DELETE FROM fence_events WHERE seq = (SELECT min(seq) FROM fence_events)");
        refused("DELETE FROM fence_events");
        refused("UPDATE fence_events SET detail = 'x' WHERE seq = " + newest);
        // the watermark: never past the newest row, never over young rows, never back, never a row of its own
        refused("UPDATE retention SET pruned_below = " + (newest + 1));
        refused("UPDATE retention SET pruned_below = " + newest); // the rows just below it are young
        refused("UPDATE retention SET keep_ms = 1000");
        refused("UPDATE retention SET kind = 'other'");
        refused("DELETE FROM retention");
        refused("INSERT INTO retention (kind, keep_ms) VALUES ('journal', 3600000)");
        refused("UPDATE supervisor_ticks SET report = 'x'");
        refused("DELETE FROM supervisor_ticks WHERE seq = (SELECT max(seq) FROM supervisor_ticks)");
        if (backend().name().equals("sqlite")) {
            refused("INSERT OR REPLACE INTO retention (kind, keep_ms) VALUES ('journal', 3600000)");
            refused("REPLACE INTO retention (kind, keep_ms, pruned_below) VALUES ('journal', 3600000, 99)");
        } else {
            refused("TRUNCATE fence_events");
            refused("TRUNCATE retention");
            refused("TRUNCATE supervisor_ticks");
            refused("TRUNCATE lease_contention");
        }
        assertThat(count("SELECT count(*) FROM fence_events")).isEqualTo(rows);

        // a legitimate prune moves the watermark; below it, what a live row needs still cannot go
        a.prune(PruneOptions.all());
        long mark = a.retention().prunedBelow();
        assertThat(mark).isPositive();
        refused("UPDATE retention SET pruned_below = " + (mark - 1)); // backwards
        refused("UPDATE retention SET pruned_rows = 0");
        refused("UPDATE retention SET pruned_at = NULL");
        refused("DELETE FROM fence_events WHERE actor_id = 'x' AND token = " + x.token()); // the live lease's grant
        // z's only events were old: its newest stays below the watermark, and only it
        assertThat(count("SELECT count(*) FROM fence_events WHERE resource_type = 'actor' AND resource_id = 'z'"))
                .isEqualTo(1);
        refused("DELETE FROM fence_events WHERE resource_type = 'actor' AND resource_id = 'z'");
        refused("DELETE FROM fence_events WHERE seq >= " + mark);
        assertThat(y.token()).isGreaterThan(x.token());

        // a worker login (PostgreSQL) may neither prune nor move the watermark nor set the policy
        LedgerLocation worker = backend().workerLogin(temp.location(), "hostw");
        if (!worker.equals(temp.location())) {
            refusedAs(worker, "DELETE FROM fence_events WHERE seq < " + mark);
            refusedAs(worker, "UPDATE retention SET keep_ms = 7200000");
            refusedAs(worker, "DELETE FROM supervisor_ticks");
            refusedAs(worker, "DELETE FROM lease_contention");
        }
    }

    /** Decision 0019: a live lease refused again and again is one row and a count; a stale token keeps its own row. */
    @Test
    void contentionIsCountedPerWindowAndAStaleTokenKeepsItsOwnRow() throws SQLException {
        Engine a = temp.open(clock);
        Engine b = temp.open(clock);
        a.actors().add("x");
        Lease held = a.leases().acquire("x", Duration.ofDays(1));
        clock.set(clock.millis() - Math.floorMod(clock.millis(), 600_000L) + 600_000L); // a window's start
        for (int i = 0; i < 5; i++) {
            assertThat(b.leases().tryAcquire("x", Duration.ofSeconds(5))).isEmpty();
            clock.advance(Duration.ofSeconds(1));
        }
        assertThat(count("SELECT count(*) FROM fence_events WHERE kind = 'REJECTED'"))
                .isEqualTo(1);
        assertThat(count("SELECT refusals FROM lease_contention WHERE actor_id = 'x'"))
                .isEqualTo(5);
        assertThat(count("SELECT holder_token FROM lease_contention WHERE actor_id = 'x'"))
                .isEqualTo(held.token());
        assertThat(a.metrics().refusalsByCategory()).containsEntry("actor_lease_held", 5L);

        clock.advance(Duration.ofMinutes(10)); // the next window: its first refusal is journalled again
        assertThat(b.leases().tryAcquire("x", Duration.ofSeconds(5))).isEmpty();
        assertThat(count("SELECT count(*) FROM fence_events WHERE kind = 'REJECTED'"))
                .isEqualTo(2);
        assertThat(count("SELECT count(*) FROM lease_contention")).isEqualTo(2);

        // a stale token, presented twice: two rows of their own, never folded
        for (int i = 0; i < 2; i++) {
            assertThatThrownBy(() -> b.leases().renew("x", held.token() - 1, Duration.ofSeconds(5)))
                    .isInstanceOf(Refusal.class);
        }
        assertThat(count("SELECT count(*) FROM fence_events WHERE kind = 'REJECTED'"))
                .isEqualTo(4);

        // a window written by hand for a process (its first row not that process's refusal) counts nothing: the
        // process's refusals in it are journalled, so nobody keeps another process's refusal out of the journal
        Engine c = temp.open(clock);
        long window = clock.millis() - Math.floorMod(clock.millis(), 600_000L);
        try (Connection raw = raw(temp.location());
                Statement s = raw.createStatement()) {
            s.executeUpdate("INSERT INTO lease_contention (actor_id, process_identity, window_start, first_at, last_at,"
                    + " refusals, holder_token, first_seq) VALUES ('x', '" + c.processIdentity() + "', " + window + ", "
                    + window + ", " + window + ", 1, 1, 1)");
        }
        long rows = count("SELECT count(*) FROM fence_events WHERE kind = 'REJECTED'");
        assertThat(c.leases().tryAcquire("x", Duration.ofSeconds(5))).isEmpty();
        assertThat(c.leases().tryAcquire("x", Duration.ofSeconds(5))).isEmpty();
        assertThat(count("SELECT count(*) FROM fence_events WHERE kind = 'REJECTED'"))
                .isEqualTo(rows + 2);
        assertThat(count(
                        "SELECT refusals FROM lease_contention WHERE process_identity = '" + c.processIdentity() + "'"))
                .isEqualTo(1);

        // a forged count is refused by the database; so is a young window's deletion
        refused("UPDATE lease_contention SET refusals = refusals + 5");
        refused("UPDATE lease_contention SET first_at = first_at + 1");
        refused("UPDATE lease_contention SET first_seq = first_seq + 1");
        refused("UPDATE lease_contention SET refusals = refusals + 1, last_at = 9000000000000000");
        refused("DELETE FROM lease_contention");
        refused("INSERT INTO lease_contention (actor_id, process_identity, window_start, first_at, last_at, refusals)"
                + " VALUES ('x', 'proc_forged', 0, 0, 0, 100)");
        assertThat(count("SELECT count(*) FROM lease_contention")).isEqualTo(3);

        // older than the policy, the windows go with the journal's old rows
        clock.advance(Duration.ofDays(31));
        a.leases().renew("x", held.token(), Duration.ofDays(1));
        assertThat(a.prune(PruneOptions.all()).contentionRows()).isEqualTo(3);
        assertThat(count("SELECT count(*) FROM lease_contention")).isZero();
    }

    @Test
    void thePolicyIsTheLedgersAndOutsideAnHourToACenturyItIsRefused() {
        Engine a = temp.open(clock);
        Engine b = temp.open(clock);
        assertThat(a.retention().keepJournal()).isEqualTo(Retention.DEFAULT_KEEP_JOURNAL);
        assertThat(a.retention().isDefault()).isTrue();
        Retention set = a.keepJournalFor(Duration.ofDays(7));
        assertThat(b.retention().keepJournal()).isEqualTo(Duration.ofDays(7)); // every process agrees
        assertThat(set.setBy()).isEqualTo(a.processIdentity());
        assertThatThrownBy(() -> a.keepJournalFor(Duration.ofMinutes(59))).isInstanceOf(Refusal.class);
        assertThatThrownBy(() -> a.keepJournalFor(Duration.ofDays(36_501))).isInstanceOf(Refusal.class);
        assertThat(b.retention().keepJournal()).isEqualTo(Duration.ofDays(7));
    }

    // ---- a connection of its own, as a hand-typed statement reaches the ledger -------------------------------------

    private Connection raw(LedgerLocation location) throws SQLException {
        return HandTyped.connect(location);
    }

    private long count(String query) throws SQLException {
        return HandTyped.count(temp.location(), query);
    }

    private List<String> kinds(String type, String id) throws SQLException {
        List<String> kinds = new ArrayList<>();
        try (Connection c = raw(temp.location());
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT kind FROM fence_events WHERE resource_type = '" + type
                        + "' AND resource_id = '" + id + "' ORDER BY seq")) {
            while (rs.next()) {
                kinds.add(rs.getString(1));
            }
        }
        return kinds;
    }

    private void refused(String statement) {
        refusedAs(temp.location(), statement);
    }

    private void refusedAs(LedgerLocation location, String statement) {
        HandTyped.refused(location, statement);
    }
}
