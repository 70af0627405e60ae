package dev.sovereign.engine.supervisor;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.base.EngineConfig;
import dev.sovereign.engine.internal.sqlite.SqliteLedger;
import dev.sovereign.engine.journal.EventKind;
import dev.sovereign.engine.journal.FenceEvent;
import dev.sovereign.engine.lease.Lease;
import dev.sovereign.engine.provider.Outcome;
import dev.sovereign.engine.run.Assignment;
import dev.sovereign.engine.run.AssignmentState;
import dev.sovereign.engine.run.Attempt;
import dev.sovereign.engine.run.AttemptState;
import dev.sovereign.engine.run.Receipt;
import dev.sovereign.engine.testing.Port;
import dev.sovereign.engine.testing.SettableClock;
import dev.sovereign.engine.testing.Sqlite;
import dev.sovereign.engine.testing.TempDatabase;
import dev.sovereign.engine.testing.Together;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class SupervisorTest {
    private static final List<String> WORK_TABLES =
            List.of("assignments", "execution_attempts", "receipts", "messages", "actor_leases", "actors");

    @RegisterExtension
    final TempDatabase temp = new TempDatabase();

    private final SettableClock clock = new SettableClock();
    private Engine worker;
    private Engine supervisorEngine;

    @BeforeEach
    void open() {
        worker = temp.open(clock);
        supervisorEngine = temp.open(clock);
    }

    private long count(Engine e, String table) {
        return Sqlite.database(e).read(tx -> tx.scalarLong("SELECT count(*) FROM " + table));
    }

    /** An assignment RUNNING under an attempt whose process then "dies": nothing renews or finishes it. */
    private Attempt abandonedRun(Engine e, String actor, long ttlMs) {
        Assignment x = e.runs().assign(actor, "scripted");
        Lease lease = e.leases().acquire(actor, Duration.ofMillis(ttlMs));
        return Port.runs(e).startAttempt(x.id(), lease.token(), ttlMs);
    }

    @Test
    void aTickOnAnEmptyDatabaseCreatesNoWorkAndRecordsItsReport() {
        TickReport report = supervisorEngine.supervisor().tick();

        assertThat(report.recovered()).isEmpty();
        assertThat(report.sweptClaims()).isEmpty();
        assertThat(report.failures()).isEmpty();
        for (String table : WORK_TABLES) {
            assertThat(count(supervisorEngine, table)).as(table).isZero();
        }
        assertThat(supervisorEngine.journal().lastSeq()).isZero();
        assertThat(supervisorEngine.supervisor().lastTick()).get().satisfies(t -> {
            assertThat(t.processIdentity()).isEqualTo(supervisorEngine.processIdentity());
            assertThat(t.recovered()).isZero();
            assertThat(t.report()).startsWith("{").contains("\"recovered\":[]");
        });
    }

    @Test
    void aLiveAttemptIsLeftAloneAndAnExpiredLeaseIsOnlyReported() {
        worker.actors().add("operator");
        Attempt live = abandonedRun(worker, "operator", 10_000);
        clock.advance(Duration.ofSeconds(9));

        TickReport report = supervisorEngine.supervisor().tick();
        assertThat(report.recovered()).isEmpty();
        assertThat(worker.runs().get(live.assignmentId()))
                .get()
                .extracting(Assignment::state)
                .isEqualTo(AssignmentState.RUNNING);

        worker.actors().add("idle");
        worker.leases().acquire("idle", Duration.ofSeconds(1));
        clock.advance(Duration.ofSeconds(1));
        TickReport later = supervisorEngine.supervisor().tick();
        assertThat(later.expiredLeases()).extracting(Lease::actor).contains("idle", "operator");
        assertThat(worker.leases().current("idle")).isPresent(); // reported, never touched
    }

    @Test
    void anExpiredCurrentAttemptIsRecoveredAsWorkerLostOnceAndASecondTickChangesNothing() throws Exception {
        worker.actors().add("operator");
        Attempt abandoned = abandonedRun(worker, "operator", 10_000);
        Path ws = worker.runs().workspace(abandoned.assignmentId());
        Path attemptFolder = Files.createDirectories(ws.resolve(abandoned.id()).resolve("output"))
                .getParent();
        Files.writeString(attemptFolder.resolve("scratch.txt"), "half done");
        Files.writeString(attemptFolder.resolve("output/partial.txt"), "half a result");
        Path superseded = Files.createDirectories(ws.resolve("att_superseded_earlier/output"));
        clock.advance(Duration.ofSeconds(10));

        TickReport first = supervisorEngine.supervisor().tick();

        assertThat(first.recovered()).singleElement().satisfies(r -> {
            assertThat(r.assignmentId()).isEqualTo(abandoned.assignmentId());
            assertThat(r.attemptToken()).isEqualTo(abandoned.token());
            assertThat(r.lostProcess()).isEqualTo(worker.processIdentity());
        });
        Assignment failed = worker.runs().get(abandoned.assignmentId()).orElseThrow();
        assertThat(failed.state()).isEqualTo(AssignmentState.FAILED);
        assertThat(failed.currentAttempt()).isNull();
        Receipt receipt = worker.runs().receipt(abandoned.assignmentId()).orElseThrow();
        assertThat(receipt.status()).isEqualTo(Outcome.FAILED);
        assertThat(receipt.failureCategory()).isEqualTo("worker_lost");
        assertThat(receipt.outcomeKnown()).isFalse();
        assertThat(receipt.attemptId()).isEqualTo(abandoned.id());
        assertThat(receipt.attemptToken()).isEqualTo(abandoned.token());
        assertThat(worker.runs().attempts(abandoned.assignmentId()))
                .extracting(Attempt::state)
                .containsExactly(AttemptState.RECOVERED);
        // reclaimed by the temporary policy only after the commit; the receipt file is kept
        assertThat(attemptFolder.resolve("scratch.txt")).doesNotExist();
        assertThat(attemptFolder.resolve("output/partial.txt")).exists(); // the recovered attempt's own output
        assertThat(superseded).doesNotExist(); // another attempt's folder never stays beside it
        assertThat(ws.resolve(abandoned.id() + ".receipt.json")).exists();

        long events = supervisorEngine.journal().lastSeq();
        TickReport second = supervisorEngine.supervisor().tick();
        assertThat(second.recovered()).isEmpty();
        assertThat(second.failures()).isEmpty();
        assertThat(count(supervisorEngine, "receipts")).isEqualTo(1);
        assertThat(supervisorEngine.journal().lastSeq()).isEqualTo(events);
    }

    @Test
    void twoSupervisorsRacingOverManyAbandonedRunsLeaveExactlyOneReceiptEach() throws Exception {
        int n = 12;
        List<String> assignments = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            worker.actors().add("actor-" + i);
            assignments.add(abandonedRun(worker, "actor-" + i, 5_000).assignmentId());
        }
        clock.advance(Duration.ofSeconds(5));
        Engine other = temp.open(clock);
        List<TickReport> reports = Together.run(List.of(
                () -> supervisorEngine.supervisor().tick(),
                () -> other.supervisor().tick()));
        TickReport r1 = reports.get(0);
        TickReport r2 = reports.get(1);

        assertThat(r1.failures()).isEmpty();
        assertThat(r2.failures()).isEmpty();
        assertThat(r1.recovered().size() + r2.recovered().size()).isEqualTo(n);
        assertThat(count(worker, "receipts")).isEqualTo(n);
        for (String id : assignments) {
            assertThat(worker.runs().get(id))
                    .get()
                    .extracting(Assignment::state)
                    .isEqualTo(AssignmentState.FAILED);
        }
        assertThat(worker.journal().since(0, 10_000))
                .filteredOn(e -> e.kind() == EventKind.ATTEMPT_RECOVERED)
                .hasSize(n);
        assertThat(supervisorEngine.supervisor().tick().recovered()).isEmpty();
    }

    @Test
    void aFailingItemIsRecordedAndTheTickGoesOnWithTheOthers() {
        worker.actors().add("first");
        worker.actors().add("second");
        Attempt broken = abandonedRun(worker, "first", 5_000);
        Attempt fine = abandonedRun(worker, "second", 6_000);
        // corrupt the first item: a receipt already exists for its assignment, so its recovery cannot insert one.
        // The schema refuses such a receipt (V0003), so the corruption goes around its guard, as a damaged
        // file would, and puts the guard back in the same transaction.
        Sqlite.database(worker).write(tx -> {
            String guard = tx.one(
                            "SELECT sql FROM sqlite_master WHERE name = 'receipts_only_from_the_ending_attempt'",
                            rs -> rs.getString(1))
                    .orElseThrow();
            tx.update("DROP TRIGGER receipts_only_from_the_ending_attempt");
            tx.update(
                    "INSERT INTO receipts (assignment_id, attempt_id, attempt_token, process_identity, status,"
                            + " outcome_known, created_at) VALUES (?, ?, ?, ?, 'failed', 0, ?)",
                    broken.assignmentId(),
                    broken.id(),
                    broken.token(),
                    worker.processIdentity(),
                    tx.now());
            tx.update(guard);
            return null;
        });
        clock.advance(Duration.ofSeconds(6));

        TickReport report = supervisorEngine.supervisor().tick();

        assertThat(report.failures())
                .singleElement()
                .satisfies(f -> assertThat(f.item()).contains(broken.id()));
        assertThat(report.recovered())
                .singleElement()
                .satisfies(r -> assertThat(r.assignmentId()).isEqualTo(fine.assignmentId()));
        assertThat(worker.runs().get(broken.assignmentId()))
                .get()
                .extracting(Assignment::state)
                .isEqualTo(AssignmentState.RUNNING); // its transaction rolled back whole
        assertThat(supervisorEngine.supervisor().lastTick()).get().satisfies(t -> {
            assertThat(t.failures()).isEqualTo(1);
            assertThat(t.recovered()).isEqualTo(1);
        });
    }

    @Test
    void aStolenFenceIsRecoveredAsWorkerLostOnlyAfterItsAttemptExpired() {
        worker.actors().add("operator");
        Attempt victim = abandonedRun(worker, "operator", 10_000);
        worker.runs().stealFence(victim.assignmentId());

        assertThat(supervisorEngine.supervisor().tick().recovered()).isEmpty();

        clock.advance(Duration.ofSeconds(10));
        TickReport report = supervisorEngine.supervisor().tick();

        assertThat(report.recovered())
                .singleElement()
                .satisfies(r -> assertThat(r.fenceWasStolen()).isTrue());
        assertThat(worker.runs().get(victim.assignmentId()))
                .get()
                .extracting(Assignment::state)
                .isEqualTo(AssignmentState.FAILED);
        assertThat(worker.runs().receipt(victim.assignmentId())).get().satisfies(r -> {
            assertThat(r.failureCategory()).isEqualTo("worker_lost");
            assertThat(r.outcomeKnown()).isFalse();
            assertThat(r.attemptId()).isEqualTo(victim.id());
        });
        assertThat(supervisorEngine.supervisor().tick().recovered()).isEmpty();
    }

    @Test
    void anExpiredAttemptThatIsNoLongerCurrentIsRetiredWithoutAReceipt() {
        // Only a fault (the terminal fence switched off) can end an assignment under another live attempt,
        // and only on a lab sandbox: on any other ledger the schema refuses it (DatabaseEnforcedFenceTest).
        Path sandbox = temp.dir().resolve("sandbox.db");
        worker = temp.open(EngineConfig.forDatabase(sandbox)
                .clock(clock)
                .heartbeat(false)
                .createAsLabSandbox(true)
                .build());
        supervisorEngine = temp.open(
                EngineConfig.forDatabase(sandbox).clock(clock).heartbeat(false).build());
        assertThat(worker.isLabSandbox()).isTrue();
        worker.actors().add("operator");
        Attempt stale = abandonedRun(worker, "operator", 5_000);
        clock.advance(Duration.ofSeconds(5));
        Engine taker = temp.open(
                EngineConfig.forDatabase(sandbox).clock(clock).heartbeat(false).build());
        Lease lease = taker.leases().acquire("operator", Duration.ofSeconds(5));
        Attempt current = Port.runs(taker).startAttempt(stale.assignmentId(), lease.token(), 5_000);
        SqliteLedger.runStore(Sqlite.database(worker), true)
                .finish(stale, Outcome.COMPLETED, null, true, "FAULT: unfenced");
        clock.advance(Duration.ofSeconds(5));

        TickReport report = supervisorEngine.supervisor().tick();

        assertThat(report.recovered()).isEmpty();
        assertThat(report.retired()).singleElement().satisfies(r -> {
            assertThat(r.attemptId()).isEqualTo(current.id());
            assertThat(r.state()).isEqualTo("LOST");
        });
        assertThat(supervisorEngine.supervisor().tick().retired()).isEmpty();
        assertThat(supervisorEngine.journal().forResource("attempt", current.id()))
                .extracting(FenceEvent::kind)
                .endsWith(EventKind.ATTEMPT_SUPERSEDED);
    }
}
