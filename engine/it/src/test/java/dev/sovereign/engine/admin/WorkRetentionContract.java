package dev.sovereign.engine.admin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.base.LedgerLocation;
import dev.sovereign.engine.base.Refusal;
import dev.sovereign.engine.lease.Lease;
import dev.sovereign.engine.mailbox.Claim;
import dev.sovereign.engine.mailbox.Message;
import dev.sovereign.engine.provider.Outcome;
import dev.sovereign.engine.run.Assignment;
import dev.sovereign.engine.run.AssignmentState;
import dev.sovereign.engine.run.Attempt;
import dev.sovereign.engine.testing.Contract;
import dev.sovereign.engine.testing.Port;
import dev.sovereign.engine.testing.SettableClock;
import dev.sovereign.engine.testing.TempDatabase;
import dev.sovereign.engine.testing.TestBackend;
import java.nio.file.Files;
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
 * Retention of finished work on every backend (decision 0020): a prune removes a finished run (its assignment,
 * attempts, receipt and temporary folder), a finished message and a stopped process that holds nothing once each is
 * older than its policy, and nothing a live row needs; the database refuses every other deletion from a connection of
 * its own; a late write presenting a pruned attempt's token is refused; tokens keep increasing.
 */
@Contract
abstract class WorkRetentionContract {
    private static final String OK = "scripted:outcome=completed";
    private static final String NO = "scripted:outcome=failed";

    /** The backend this class's ledgers are on: each backend's module has its subclass (decision 0015). */
    protected abstract TestBackend backend();

    @RegisterExtension
    final TempDatabase temp = new TempDatabase(this::backend);

    private final SettableClock clock = new SettableClock();

    /** What the tests of this class start from: old finished work, old work that must stay, young work. */
    private final class Ledger {
        final Engine a;
        Assignment done;
        Attempt doneAttempt;
        Assignment root;
        Assignment retry;
        Assignment unsettled;
        Assignment live;
        Assignment young;
        Assignment youngRoot;
        Assignment youngRetry;
        Message finished;
        Message open;
        Message youngFinished;
        String idle;
        String holder;
        String worker;
        long highestToken;

        Ledger() {
            a = temp.open(clock);
            for (String actor : List.of("w", "x", "h", "i", "later")) {
                a.actors().add(actor);
            }
            Engine w = temp.open(clock);
            worker = w.processIdentity();
            done = run(w, OK);
            doneAttempt = a.runs().attempts(done.id()).get(0);
            root = run(w, NO);
            retry = a.runs().retry(root.id());
            retry = runAgain(w, retry);
            a.runs().acknowledge(retry.id());
            unsettled = run(w, NO); // failed, neither retried nor acknowledged: it waits for an operator
            youngRoot = run(w, NO);
            Lease x = a.leases().acquire("x", Duration.ofDays(300));
            live = a.runs().assign("x", OK);
            Port.runs(a).startAttempt(live.id(), x.token(), Duration.ofDays(300).toMillis());
            finished = a.mailbox().send("ops", "x", "s", "b", 3);
            Claim c = a.mailbox().claim(finished.id(), "x");
            a.mailbox().complete(finished.id(), c.token());
            open = a.mailbox().send("ops", "x", "s2", "b", 3);
            w.close(); // stopped; the unsettled run's attempt still names it

            Engine i = temp.open(clock);
            Lease il = i.leases().acquire("i", Duration.ofSeconds(5));
            i.leases().release("i", il.token());
            idle = i.processIdentity();
            i.close(); // stopped, holding nothing
            Engine h = temp.open(clock);
            highestToken = h.leases().acquire("h", Duration.ofDays(300)).token();
            holder = h.processIdentity();
            a.stopProcess(holder); // stopped by an operator, still holding its lease

            clock.advance(Duration.ofDays(31));
            Engine y = temp.open(clock);
            young = run(y, OK);
            youngRetry = runAgain(y, a.runs().retry(youngRoot.id()));
            youngFinished = a.mailbox().send("ops", "x", "s3", "b", 3);
            Claim yc = a.mailbox().claim(youngFinished.id(), "x");
            a.mailbox().complete(youngFinished.id(), yc.token());
            highestToken = Math.max(
                    highestToken,
                    a.leases().acquire("later", Duration.ofSeconds(5)).token());
        }

        private Assignment run(Engine e, String spec) {
            Assignment asg = e.runs().assign("w", spec);
            return runAgain(e, asg);
        }

        private Assignment runAgain(Engine e, Assignment asg) {
            e.runs().runAssignment(asg.id(), Duration.ofSeconds(5));
            e.leases().current("w").ifPresent(l -> e.leases().release("w", l.token()));
            return e.runs().get(asg.id()).orElseThrow();
        }
    }

    @Test
    void aPruneRemovesFinishedWorkThatIsOldAndSettledAndKeepsWhatLiveWorkNeeds() throws SQLException {
        Ledger l = new Ledger();
        Engine a = l.a;
        assertThat(a.runs().get(l.retry.id()).orElseThrow().state()).isEqualTo(AssignmentState.FAILED);
        List<String> gone = List.of(l.done.id(), l.root.id(), l.retry.id());
        long foldersBefore = gone.stream()
                .filter(id -> Files.isDirectory(a.runs().workspace(id)))
                .count();

        PruneReport dry = a.prune(PruneOptions.dryRunOnly());
        assertThat(dry.runs()).isEqualTo(3);
        assertThat(dry.messages()).isEqualTo(1);
        assertThat(count("SELECT count(*) FROM assignments")).isEqualTo(8); // a dry run deletes nothing

        PruneReport report = a.prune(PruneOptions.all());
        assertThat(report.finished()).isTrue();
        assertThat(report.runs()).isEqualTo(dry.runs());
        assertThat(report.messages()).isEqualTo(dry.messages());
        assertThat(report.processes()).isEqualTo(1); // the idle process; the worker's unsettled run still names it
        assertThat(report.runFolders()).isEqualTo(foldersBefore);
        for (String id : gone) {
            assertThat(a.runs().get(id)).as(id).isEmpty();
            assertThat(a.runs().receipt(id)).as(id).isEmpty();
            assertThat(count("SELECT count(*) FROM execution_attempts WHERE assignment_id = '" + id + "'"))
                    .isZero();
            assertThat(Files.exists(a.runs().workspace(id))).as(id).isFalse();
        }
        for (Assignment kept : List.of(l.unsettled, l.live, l.young, l.youngRoot)) {
            assertThat(a.runs().get(kept.id())).as(kept.id()).isPresent();
        }
        assertThat(count("SELECT count(*) FROM messages WHERE id = '" + l.finished.id() + "'"))
                .isZero();
        assertThat(count("SELECT count(*) FROM messages")).isEqualTo(2); // the open one and the young one
        assertThat(processes())
                .contains(l.worker, l.holder, a.processIdentity())
                .doesNotContain(l.idle);
        Retention r = a.retention();
        assertThat(r.prunedRuns()).isEqualTo(3);
        assertThat(r.prunedMessages()).isEqualTo(1);
        assertThat(r.prunedProcesses()).isEqualTo(1);

        // a late terminal write presenting the pruned attempt's token finds nothing to commit, and is refused
        long receipts = count("SELECT count(*) FROM receipts");
        assertThatThrownBy(() -> Port.runs(a).finish(l.doneAttempt, Outcome.COMPLETED, null, true, "late"))
                .isInstanceOf(Refusal.class);
        assertThat(count("SELECT count(*) FROM receipts")).isEqualTo(receipts);

        // settled and old now: the unsettled run goes once acknowledged, and then its worker, which holds nothing
        a.runs().acknowledge(l.unsettled.id());
        a.runs().acknowledge(l.youngRetry.id());
        clock.advance(Duration.ofDays(31));
        Lease later = a.leases().acquire("w", Duration.ofSeconds(5));
        assertThat(later.token()).isGreaterThan(l.highestToken); // tokens keep increasing after any pruning
        PruneReport second = a.prune(PruneOptions.all());
        assertThat(second.runs()).isEqualTo(4); // the unsettled one, the young one, the young chain of two
        assertThat(processes()).doesNotContain(l.worker).contains(l.holder);
        assertThat(a.runs().get(l.live.id())).isPresent();
    }

    @Test
    void theExportReceivesEveryPrunedRunMessageAndProcessBeforeTheyGo() {
        Ledger l = new Ledger();
        List<PruneOptions.PrunedRows> exported = new ArrayList<>();
        PruneReport report = l.a.prune(PruneOptions.all().exportingTo(exported::add));
        assertThat(report.runs()).isEqualTo(3);
        assertThat(rows(exported, "assignments")).containsExactlyInAnyOrder(l.done.id(), l.root.id(), l.retry.id());
        assertThat(rows(exported, "receipts")).hasSize(3);
        assertThat(rows(exported, "execution_attempts")).hasSize(3);
        assertThat(rows(exported, "messages")).containsExactly(l.finished.id());
        assertThat(rows(exported, "processes")).containsExactly(l.idle);
    }

    /**
     * A prune of few batches, the supervisor's, goes on where the last stopped (decision 0021): with more journal rows
     * that must stay than one call's batches look at, calls that each started from the journal's first row looked at
     * the same kept rows again and again and never reached the finished runs.
     */
    @Test
    void aPruneOfFewBatchesGoesOnFromWhereTheLastStoppedPastRowsThatMustStay() throws SQLException {
        Engine a = temp.open(clock);
        for (int i = 0; i < 60; i++) { // sixty live leases: their grants stay, below any watermark
            a.actors().add("held-" + i);
            a.leases().acquire("held-" + i, Duration.ofDays(300));
        }
        a.actors().add("w");
        Engine w = temp.open(clock);
        Assignment old = w.runs().assign("w", OK);
        w.runs().runAssignment(old.id(), Duration.ofSeconds(5));
        w.leases().current("w").ifPresent(l -> w.leases().release("w", l.token()));
        w.close();
        clock.advance(Duration.ofDays(31));
        a.actors().add("young");
        a.leases().acquire("young", Duration.ofSeconds(5)); // the newest row: the rest is a month old
        long kept = count("SELECT count(*) FROM fence_events WHERE kind = 'LEASE_ACQUIRED'");
        assertThat(kept).isGreaterThanOrEqualTo(60);

        PruneOptions few = new PruneOptions(5, 4, false, null); // twenty journal rows a call
        PruneReport first = a.prune(few);
        assertThat(first.finished())
                .as("one call cannot look at every kept row")
                .isFalse();
        int calls = 1;
        long runs = first.runs();
        PruneReport r = first;
        while (!r.finished()) {
            assertThat(calls).as("calls before the pass reached the runs").isLessThan(40);
            r = a.prune(few);
            runs += r.runs();
            calls++;
        }
        assertThat(runs).isEqualTo(1);
        assertThat(a.runs().get(old.id())).isEmpty();
        assertThat(count("SELECT count(*) FROM fence_events WHERE kind = 'LEASE_ACQUIRED' AND actor_id LIKE 'held-%'"))
                .isEqualTo(60);

        // a finished pass starts the next from the journal's first row: a grant kept before goes once released
        Lease first0 = a.leases().current("held-0").orElseThrow();
        a.leases().release("held-0", first0.token());
        clock.advance(Duration.ofDays(31));
        a.actors().add("younger");
        a.leases().acquire("younger", Duration.ofSeconds(5));
        untilFinished(a, few, 40);
        assertThat(count("SELECT count(*) FROM fence_events WHERE kind = 'LEASE_ACQUIRED' AND actor_id = 'held-0'"))
                .isZero();

        // a call without a batch limit starts a pass of its own: it does not skip what another's cursor passed
        assertThat(a.prune(few).finished()).isFalse(); // its cursor is past the next twenty grants
        Lease second = a.leases().current("held-1").orElseThrow();
        a.leases().release("held-1", second.token());
        assertThat(a.prune(PruneOptions.all()).finished()).isTrue();
        assertThat(count("SELECT count(*) FROM fence_events WHERE kind = 'LEASE_ACQUIRED' AND actor_id = 'held-1'"))
                .isZero();
    }

    /**
     * The runs and the processes go on from where the last call stopped too (decision 0021): thirty chains whose retry
     * nobody settled come before a finished run, and the thirty stopped processes that ran them (named by those
     * attempts) before the process that ran it. A call of four batches looks at four chains or twenty processes.
     */
    @Test
    void theRunsAndProcessesOfAPruneOfFewBatchesGoOnFromWhereTheLastStopped() throws SQLException {
        Engine a = temp.open(clock);
        a.actors().add("w");
        List<String> waiting = new ArrayList<>();
        for (int i = 0; i < 30; i++) {
            Engine e = temp.open(clock);
            Assignment root = e.runs().assign("w", NO);
            e.runs().runAssignment(root.id(), Duration.ofSeconds(5));
            e.leases().current("w").ifPresent(l -> e.leases().release("w", l.token()));
            Assignment retry = a.runs().retry(root.id());
            e.runs().runAssignment(retry.id(), Duration.ofSeconds(5)); // fails too; nobody answers it
            e.leases().current("w").ifPresent(l -> e.leases().release("w", l.token()));
            waiting.add(e.processIdentity());
            e.close();
        }
        clock.advance(Duration.ofSeconds(1)); // after every chain above, by age
        Engine w = temp.open(clock);
        Assignment done = w.runs().assign("w", OK);
        w.runs().runAssignment(done.id(), Duration.ofSeconds(5));
        w.leases().current("w").ifPresent(l -> w.leases().release("w", l.token()));
        String last = w.processIdentity();
        w.close();
        clock.advance(Duration.ofDays(31));
        a.actors().add("young");
        a.leases().acquire("young", Duration.ofSeconds(5));

        PruneReport r = untilFinished(a, new PruneOptions(5, 4, false, null), 150);
        assertThat(a.runs().get(done.id())).isEmpty();
        assertThat(processes()).doesNotContain(last).containsAll(waiting);
        assertThat(count("SELECT count(*) FROM assignments")).isEqualTo(60);
        assertThat(r.finished()).isTrue();
    }

    /** Prunes with {@code options} until a call says its pass finished, at most {@code calls} calls. */
    private static PruneReport untilFinished(Engine a, PruneOptions options, int calls) {
        for (int i = 0; i < calls; i++) {
            PruneReport r = a.prune(options);
            if (r.finished()) {
                return r;
            }
        }
        throw new AssertionError(
                "the prune's pass did not finish in " + calls + " calls of " + options.maxBatches() + " batches");
    }

    /** A stopped process named by a message it claimed stays until the claim is over (decision 0020). */
    @Test
    void aStoppedProcessStaysWhileAMessageItClaimedIsClaimed() throws SQLException {
        Engine a = temp.open(clock);
        a.actors().add("c");
        Message m = a.mailbox().send("ops", "c", "s", "b", 3);
        Engine claimer = temp.open(clock);
        Lease host = claimer.leases().acquire("c", Duration.ofSeconds(5));
        claimer.mailbox().claim(m.id(), "c", Duration.ofDays(300));
        claimer.leases().release("c", host.token()); // holds no lease, only the claim
        String identity = claimer.processIdentity();
        a.stopProcess(identity);
        clock.advance(Duration.ofDays(31));
        a.actors().add("later");
        a.leases().acquire("later", Duration.ofSeconds(5));

        PruneReport r = a.prune(PruneOptions.all());
        assertThat(r.finished()).isTrue();
        assertThat(processes()).contains(identity);
        refused("DELETE FROM processes WHERE identity = '" + identity + "'");
        assertThat(count(
                        "SELECT count(*) FROM messages WHERE state = 'CLAIMED' AND claim_process = '" + identity + "'"))
                .isEqualTo(1);
    }

    /** The database refuses every deletion of work the rules do not allow (contract §16, decision 0020). */
    @Test
    void theDatabaseRefusesEveryOtherDeletionOfWork() throws SQLException {
        Ledger l = new Ledger();
        long assignments = count("SELECT count(*) FROM assignments");
        refused("DELETE FROM assignments WHERE id = '" + l.live.id() + "'"); // running
        refused("DELETE FROM assignments WHERE id = '" + l.unsettled.id() + "'"); // failed, nobody answered it
        refused("DELETE FROM assignments WHERE id = '" + l.young.id() + "'"); // too young
        refused("DELETE FROM assignments WHERE id = '" + l.youngRoot.id() + "'"); // its retry is too young
        refused("DELETE FROM assignments WHERE id = '" + l.retry.id() + "'"); // before the run it retried
        refused("DELETE FROM assignments");
        refused("DELETE FROM execution_attempts WHERE assignment_id = '" + l.done.id() + "'"); // its run is there
        refused("DELETE FROM execution_attempts WHERE assignment_id = '" + l.live.id() + "'");
        refused("DELETE FROM receipts WHERE assignment_id = '" + l.done.id() + "'");
        refused("DELETE FROM messages WHERE id = '" + l.open.id() + "'"); // unfinished
        refused("DELETE FROM messages WHERE id = '" + l.youngFinished.id() + "'"); // too young
        refused("DELETE FROM processes WHERE identity = '" + l.a.processIdentity() + "'"); // running
        refused("DELETE FROM processes WHERE identity = '" + l.holder + "'"); // stopped, but holds a lease
        refused("UPDATE retention SET runs_keep_ms = 1000");
        refused("UPDATE retention SET messages_keep_ms = 0");
        refused("UPDATE retention SET processes_keep_ms = 3153600000001");
        if (backend().name().equals("sqlite")) {
            refused("REPLACE INTO assignments SELECT * FROM assignments WHERE id = '" + l.live.id() + "'");
            refused("INSERT OR REPLACE INTO messages SELECT * FROM messages WHERE id = '" + l.open.id() + "'");
            refused("REPLACE INTO receipts SELECT * FROM receipts WHERE assignment_id = '" + l.done.id() + "'");
        } else {
            for (String table : List.of("assignments", "execution_attempts", "receipts", "messages", "processes")) {
                refused("TRUNCATE " + table + " CASCADE");
            }
        }
        assertThat(count("SELECT count(*) FROM assignments")).isEqualTo(assignments);

        // a worker login (PostgreSQL) may delete no work at all, not even what the operator may
        LedgerLocation workerLogin = backend().workerLogin(temp.location(), "hostw");
        if (!workerLogin.equals(temp.location())) {
            refusedAs(workerLogin, "DELETE FROM messages WHERE id = '" + l.finished.id() + "'");
            refusedAs(workerLogin, "DELETE FROM processes WHERE identity = '" + l.idle + "'");
            refusedAs(workerLogin, "DELETE FROM assignments WHERE id = '" + l.done.id() + "'");
        }

        // the operator's prune removes the old finished work; the counts only grow
        l.a.prune(PruneOptions.all());
        assertThat(l.a.retention().prunedRuns()).isEqualTo(3);
        refused("UPDATE retention SET pruned_runs = 0");
        refused("UPDATE retention SET pruned_messages = 0");
        refused("UPDATE retention SET pruned_processes = 0");
    }

    @Test
    void eachKindHasItsOwnPolicyOutsideAnHourToACenturyRefused() {
        Engine a = temp.open(clock);
        assertThat(a.retention().keepRuns()).isEqualTo(Retention.DEFAULT_KEEP);
        a.keep(Retention.Kind.RUNS, Duration.ofDays(7));
        a.keep(Retention.Kind.MESSAGES, Duration.ofDays(2));
        a.keep(Retention.Kind.PROCESSES, Duration.ofHours(12));
        Retention r = temp.open(clock).retention(); // another process reads the same policy
        assertThat(r.keepRuns()).isEqualTo(Duration.ofDays(7));
        assertThat(r.keepMessages()).isEqualTo(Duration.ofDays(2));
        assertThat(r.keepProcesses()).isEqualTo(Duration.ofHours(12));
        assertThat(r.keepJournal()).isEqualTo(Retention.DEFAULT_KEEP_JOURNAL);
        assertThatThrownBy(() -> a.keep(Retention.Kind.RUNS, Duration.ofMinutes(5)))
                .isInstanceOf(Refusal.class)
                .hasMessageStartingWith("Finished runs are kept for at least an hour");
    }

    private static List<Object> rows(List<PruneOptions.PrunedRows> exported, String table) {
        String key = switch (table) {
            case "processes" -> "identity";
            case "receipts", "execution_attempts" -> "assignment_id";
            default -> "id";
        };
        return exported.stream()
                .filter(b -> b.table().equals(table))
                .flatMap(b -> b.rows().stream())
                .map(row -> row.get(key))
                .toList();
    }

    private List<String> processes() throws SQLException {
        List<String> ids = new ArrayList<>();
        try (Connection c = raw(temp.location());
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT identity FROM processes")) {
            while (rs.next()) {
                ids.add(rs.getString(1));
            }
        }
        return ids;
    }

    private Connection raw(LedgerLocation location) throws SQLException {
        return HandTyped.connect(location);
    }

    private long count(String query) throws SQLException {
        return HandTyped.count(temp.location(), query);
    }

    private void refused(String statement) {
        refusedAs(temp.location(), statement);
    }

    private void refusedAs(LedgerLocation location, String statement) {
        HandTyped.refused(location, statement);
    }
}
