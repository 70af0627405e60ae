package dev.sovereign.engine.admin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.Ledgers;
import dev.sovereign.engine.base.Refusal;
import dev.sovereign.engine.base.StorageException;
import dev.sovereign.engine.journal.EventKind;
import dev.sovereign.engine.lease.Lease;
import dev.sovereign.engine.lease.LeaseKeeping;
import dev.sovereign.engine.provider.ProviderResult;
import dev.sovereign.engine.run.Assignment;
import dev.sovereign.engine.run.Attempt;
import dev.sovereign.engine.spi.RunStore;
import dev.sovereign.engine.testing.Port;
import dev.sovereign.engine.testing.SettableClock;
import dev.sovereign.engine.testing.Sqlite;
import dev.sovereign.engine.testing.TempDatabase;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class AdminReaderTest {
    @RegisterExtension
    final TempDatabase temp = new TempDatabase();

    private final SettableClock clock = new SettableClock();
    private AdminReader reader;

    @AfterEach
    void closeReader() {
        if (reader != null) {
            reader.close();
        }
    }

    private AdminReader reader() {
        reader = Ledgers.openReader(temp.file(), clock, ZoneOffset.UTC);
        return reader;
    }

    private static String hms(long epochMs) {
        return DateTimeFormatter.ofPattern("HH:mm:ss").withZone(ZoneOffset.UTC).format(Instant.ofEpochMilli(epochMs));
    }

    /** Decision 0019: the repeats of a refused acquire are counted, and the refusal's sentence says how often. */
    @Test
    void aRefusalRepeatedInItsWindowSaysHowOftenAndUntilWhen() {
        Engine a = temp.open(clock);
        Engine b = temp.open(clock);
        a.actors().add("x");
        a.leases().acquire("x", Duration.ofDays(1));
        clock.set(clock.millis() - Math.floorMod(clock.millis(), 600_000L) + 600_000L); // a window's start
        assertThat(b.leases().tryAcquire("x", Duration.ofSeconds(5))).isEmpty();
        assertThat(reader().recentRejections(1).get(0).sentence()).doesNotContain("Refused");
        reader.close();
        for (int i = 0; i < 4; i++) {
            clock.advance(Duration.ofSeconds(30));
            assertThat(b.leases().tryAcquire("x", Duration.ofSeconds(5))).isEmpty();
        }
        List<JournalEntry> rejections = reader().recentRejections(10);
        assertThat(rejections).hasSize(1);
        assertThat(rejections.get(0).sentence())
                .endsWith(" Refused 5 times in this ten-minute window, the last at " + hms(clock.millis())
                        + " (the repeats are counted, not journalled).");
    }

    @Test
    void aLeaseHeldByAnotherEngineShowsItsHolderTokenAndRealTtl() {
        Engine a = temp.open(temp.config(clock).processLabel("worker A").build());
        a.actors().add("operator");
        a.actors().add("reviewer");
        Lease lease = a.leases().acquire("operator", Duration.ofSeconds(9));

        AdminSnapshot s = reader().snapshot();

        assertThat(s.leases()).extracting(LeaseRow::actor).containsExactly("operator", "reviewer");
        LeaseRow row = s.leases().get(0);
        assertThat(row.holder().identity()).isEqualTo(a.processIdentity());
        assertThat(row.holder().label()).isEqualTo("worker A");
        assertThat(row.holder().pid()).isEqualTo(ProcessHandle.current().pid());
        assertThat(row.token()).isEqualTo(lease.token());
        assertThat(row.ttlMs()).isEqualTo(9_000);
        assertThat(row.stateAt(clock.millis())).isEqualTo(LeaseState.LIVE);
        assertThat(row.stateAt(clock.millis() + 6_001)).isEqualTo(LeaseState.EXPIRING);
        assertThat(row.stateAt(clock.millis() + 9_000)).isEqualTo(LeaseState.EXPIRED);
        assertThat(s.leases().get(1).stateAt(clock.millis())).isEqualTo(LeaseState.FREE);
        assertThat(s.lastToken()).isEqualTo(lease.token());
    }

    @Test
    void aProcessTurnsStaleAgainstItsOwnHeartbeatInterval() {
        Engine fast = temp.open(
                temp.config(clock).heartbeatInterval(Duration.ofMillis(200)).build());
        Engine slow = temp.open(
                temp.config(clock).heartbeatInterval(Duration.ofSeconds(5)).build());
        clock.advance(Duration.ofSeconds(1));

        AdminSnapshot s = reader().snapshot();
        long now = clock.millis();

        assertThat(row(s, fast).stateAt(now)).isEqualTo(ProcessState.STALE);
        assertThat(row(s, slow).stateAt(now)).isEqualTo(ProcessState.LIVE);
        slow.close();
        assertThat(row(reader.snapshot(), slow).stateAt(now)).isEqualTo(ProcessState.STOPPED);
    }

    private static ProcessRow row(AdminSnapshot s, Engine e) {
        return s.processes().stream()
                .filter(p -> p.process().identity().equals(e.processIdentity()))
                .findFirst()
                .orElseThrow();
    }

    @Test
    void aStaleRenewIsExplainedWithTheTakeoverThatMadeItStale() {
        Engine a = temp.open(temp.config(clock).processLabel("worker A").build());
        Engine b = temp.open(temp.config(clock).processLabel("worker B").build());
        a.actors().add("operator");
        Lease old = a.leases().acquire("operator", Duration.ofSeconds(5));
        clock.advance(Duration.ofSeconds(6));
        Lease taken = b.leases().acquire("operator", Duration.ofSeconds(5));
        long takeoverAt = clock.millis();
        clock.advance(Duration.ofSeconds(1));
        assertThatThrownBy(() -> a.leases().renew("operator", old.token())).isInstanceOf(Refusal.class);

        List<JournalEntry> rejections = reader().recentRejections(10);

        assertThat(rejections).singleElement().satisfies(r -> {
            assertThat(r.presentedToken()).isEqualTo(old.token());
            assertThat(r.currentToken()).isEqualTo(taken.token());
            assertThat(r.process().identity()).isEqualTo(a.processIdentity());
            assertThat(r.sentence())
                    .isEqualTo("Worker A (" + r.process().shortId() + ") presented token "
                            + old.token() + " for actor operator, but " + taken.token()
                            + " is current: its lease was taken over by worker B ("
                            + new ProcessRef(b.processIdentity(), null, null, null).shortId() + ") at "
                            + hms(takeoverAt) + ".");
        });
    }

    @Test
    void aStolenFenceIsExplainedAsTheStealAndItsRecoveryReceiptSaysSo() {
        Engine a = temp.open(temp.config(clock).processLabel("worker A").build());
        Engine desk = temp.open(temp.config(clock).processLabel("operator desk").build());
        a.actors().add("operator");
        a.providers().register("thief", arg -> job -> {
            desk.runs().stealFence(job.assignmentId()); // an operator clears the pointer while the work runs
            return ProviderResult.completed("finished, but too late");
        });
        Assignment x = a.runs().assign("operator", "thief");
        assertThatThrownBy(() -> a.runs().runAssignment(x.id())).isInstanceOf(Refusal.class);
        Attempt attempt = a.runs().attempts(x.id()).get(0);

        JournalEntry r = reader().recentRejections(1).get(0);

        assertThat(r.sentence())
                .isEqualTo("Worker A (" + r.process().shortId() + ") presented token "
                        + attempt.token() + " for assignment " + x.id() + ", but no token is current: an operator stole"
                        + " its fence at " + hms(clock.millis()) + ", through operator desk ("
                        + new ProcessRef(desk.processIdentity(), null, null, null).shortId() + "), so attempt "
                        + attempt.id() + " can no longer commit it.");

        clock.advance(Duration.ofHours(1));
        assertThat(desk.supervisor().tick().recovered()).hasSize(1);
        ReceiptRow receipt = reader.snapshot().assignments().get(0).receipt();
        assertThat(receipt.isWorkerLost()).isTrue();
        assertThat(receipt.fenceStolen())
                .as("recovered after an operator stole its fence")
                .isTrue();
    }

    @Test
    void aContestedAcquireNamesTheHolder() {
        Engine a = temp.open(temp.config(clock).processLabel("worker A").build());
        Engine b = temp.open(temp.config(clock).processLabel("worker B").build());
        a.actors().add("operator");
        Lease held = a.leases().acquire("operator", Duration.ofSeconds(5));
        assertThatThrownBy(() -> b.leases().acquire("operator", Duration.ofSeconds(5)))
                .isInstanceOf(Refusal.class);

        JournalEntry r = reader().recentRejections(1).get(0);

        assertThat(r.sentence())
                .startsWith("Worker B (")
                .contains("asked for actor operator, but worker A (")
                .contains("holds it with token " + held.token() + " since " + hms(held.acquiredAt()));
    }

    @Test
    void aReleasedLeaseExplainsWhyNothingIsCurrent() {
        Engine a = temp.open(temp.config(clock).build());
        a.actors().add("operator");
        Lease l = a.leases().acquire("operator", Duration.ofSeconds(5));
        a.leases().release("operator", l.token());
        assertThatThrownBy(() -> a.leases().renew("operator", l.token())).isInstanceOf(Refusal.class);

        assertThat(reader().recentRejections(1).get(0).sentence())
                .contains("presented token " + l.token() + " for actor operator, but no token is current:"
                        + " the lease was released at " + hms(clock.millis()));
    }

    @Test
    void theJournalIsReadIncrementallyBySeq() {
        Engine a = temp.open(temp.config(clock).build());
        a.actors().add("operator");
        Lease l = a.leases().acquire("operator", Duration.ofSeconds(5));
        AdminReader r = reader();
        List<JournalEntry> first = r.eventsSince(0, 100);
        long last = first.get(first.size() - 1).seq();

        a.leases().release("operator", l.token());
        List<JournalEntry> next = r.eventsSince(last, 100);

        assertThat(next).singleElement().satisfies(e -> {
            assertThat(e.kind()).isEqualTo("LEASE_RELEASED");
            assertThat(e.seq()).isGreaterThan(last);
            assertThat(e.sentence()).endsWith("released actor operator with token " + l.token() + ".");
        });
        assertThat(r.eventsSince(next.get(0).seq(), 100)).isEmpty();
    }

    @Test
    void dataVersionMovesOnlyWhenSomeoneElseCommits() {
        Engine a = temp.open(temp.config(clock).build());
        AdminReader r = reader();
        long v0 = r.changeMarker();
        r.snapshot();
        r.eventsSince(0, 10);
        assertThat(r.changeMarker()).isEqualTo(v0);

        a.actors().add("operator");

        long v1 = r.changeMarker();
        assertThat(v1).isNotEqualTo(v0);
        assertThat(r.snapshot().changeMarker()).isEqualTo(v1);
    }

    @Test
    void aMissingFileIsRefusedAndNotCreated() {
        Path missing = temp.dir().resolve("nope.db");
        assertThatThrownBy(() -> Ledgers.openReader(missing))
                .isInstanceOfSatisfying(
                        StorageException.class,
                        e -> assertThat(e.problem()).isEqualTo(StorageException.Problem.MISSING_FILE));
        assertThat(missing).doesNotExist();
    }

    @Test
    void aForeignSqliteFileIsRefusedAndLeftUntouched() throws Exception {
        Path foreign = temp.dir().resolve("other.db");
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + foreign);
                Statement s = c.createStatement()) {
            s.execute("CREATE TABLE notes (body TEXT)");
        }
        byte[] before = Files.readAllBytes(foreign);

        assertThatThrownBy(() -> Ledgers.openReader(foreign)).isInstanceOfSatisfying(StorageException.class, e -> {
            assertThat(e.problem()).isEqualTo(StorageException.Problem.NOT_OURS);
            assertThat(e.getMessage()).contains(foreign.toString()).contains("did not create");
        });
        assertThat(Files.readAllBytes(foreign)).isEqualTo(before);
    }

    @Test
    void aFileThatIsNotSqliteIsRefused() throws Exception {
        Path text = temp.dir().resolve("notes.db");
        Files.writeString(text, "this is not a database, it is a shopping list ".repeat(100));
        assertThatThrownBy(() -> Ledgers.openReader(text))
                .isInstanceOfSatisfying(
                        StorageException.class,
                        e -> assertThat(e.problem()).isEqualTo(StorageException.Problem.NOT_OURS));
    }

    @Test
    void aNewerSchemaIsRefused() throws Exception {
        temp.open(temp.config(clock).build()).close();
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + temp.file());
                Statement s = c.createStatement()) {
            s.execute("PRAGMA user_version = 99");
        }
        assertThatThrownBy(this::reader).isInstanceOfSatisfying(StorageException.class, e -> {
            assertThat(e.problem()).isEqualTo(StorageException.Problem.SCHEMA_TOO_NEW);
            assertThat(e.getMessage()).contains("schema version 99");
        });
    }

    @Test
    void aWorkerLostAssignmentNeedsAnOperatorUntilRetried() {
        Engine a = temp.open(temp.config(clock).build());
        a.actors().add("operator");
        // a run whose worker dies, recovered by the supervisor (the schema refuses a forged one)
        Assignment lostRun = a.runs().assign("operator", "scripted:ms=1");
        Lease l = a.leases().acquire("operator", Duration.ofSeconds(5));
        Port.runs(a).startAttempt(lostRun.id(), l.token(), 5_000);
        clock.advance(Duration.ofSeconds(6));
        assertThat(a.supervisor().tick().recovered()).hasSize(1);
        AdminReader r = reader();
        AssignmentRow lost = r.snapshot().assignments().get(0);
        assertThat(lost.id()).isEqualTo(lostRun.id());
        assertThat(lost.isWorkerLost()).isTrue();
        assertThat(lost.needsOperator()).isTrue();
        assertThat(lost.receipt().outcomeKnown()).isFalse();
        assertThat(lost.receipt().fenceStolen())
                .as("its worker died; nobody stole its fence")
                .isFalse();
        assertThat(lost.receipt().outputDir())
                .as("the recovered attempt's own output folder, derived")
                .isEqualTo(a.config()
                        .dataDirectory()
                        .resolve("runs")
                        .resolve(lostRun.id())
                        .resolve(lost.receipt().attemptId())
                        .resolve("output"));
        assertThat(r.snapshot().attempts())
                .singleElement()
                .satisfies(x -> assertThat(x.state()).isEqualTo("RECOVERED"));

        Assignment retry = a.runs().retry(lostRun.id());

        AssignmentRow retried = r.snapshot().assignments().stream()
                .filter(x -> x.id().equals(lostRun.id()))
                .findFirst()
                .orElseThrow();
        assertThat(retried.retriedBy()).isEqualTo(retry.id());
        assertThat(retried.needsOperator()).isFalse();
    }

    @Test
    void countsComeFromTheDatabaseAndRunsNeedingAnOperatorAreNeverDroppedPastTheCap() {
        Engine a = temp.open(temp.config(clock).build());
        a.actors().add("operator");
        a.actors().add("reviewer");
        // 12 worker-lost runs first, so 318 newer runs push them out of the 300 most recent
        RunStore runs = Port.runs(a);
        for (int i = 0; i < 12; i++) {
            Assignment lostRun = a.runs().assign("operator", "scripted:ms=1");
            Lease l = a.leases().acquire("operator", Duration.ofSeconds(5));
            runs.startAttempt(lostRun.id(), l.token(), 5_000);
            clock.advance(Duration.ofSeconds(6));
            assertThat(a.supervisor().tick().recovered()).hasSize(1);
        }
        for (int i = 0; i < 318; i++) {
            clock.advance(Duration.ofMillis(1));
            a.runs().assign("operator", "scripted:ms=1");
        }
        a.leases().acquire("reviewer", Duration.ofHours(1));
        for (int i = 0; i < 366; i++) {
            var m = a.mailbox().send("feeder", "reviewer", "job " + i, null);
            if (i < 364) {
                a.mailbox()
                        .complete(m.id(), a.mailbox().claim(m.id(), "reviewer").token());
            }
        }

        Engine other = temp.open(temp.config(clock).build());
        for (int i = 0; i < 3; i++) { // reviewer is held by the first engine: three refused writes
            assertThatThrownBy(() -> other.leases().acquire("reviewer", Duration.ofSeconds(5)))
                    .isInstanceOf(Refusal.class);
        }

        AdminSnapshot s = reader().snapshot();

        assertThat(s.counts().rejections()).isEqualTo(3);
        assertThat(s.counts().assignments()).isEqualTo(330);
        assertThat(s.counts().needsOperator()).isEqualTo(12);
        assertThat(s.counts().running()).isZero();
        assertThat(s.counts().messagesDone()).isEqualTo(364);
        assertThat(s.counts().messagesNew()).isEqualTo(2);
        assertThat(s.counts().messages()).isEqualTo(366);
        assertThat(s.assignments().stream().filter(AssignmentRow::needsOperator))
                .as("every run waiting for an operator is in the snapshot, however old")
                .hasSize(12);
        assertThat(s.assignments()).hasSize(AdminReader.FINISHED_ROWS_SHOWN + 12);
        assertThat(s.messages()).hasSize(AdminReader.FINISHED_ROWS_SHOWN + 2);
        // per state and per category, for the console's filters (issue 17, item 6)
        assertThat(s.counts().assignmentsByState())
                .containsOnlyKeys("CREATED", "FAILED")
                .containsEntry("FAILED", 12L)
                .containsEntry("CREATED", 318L);
        assertThat(s.counts().rejectionsByCategory()).hasSize(1);
        String category = s.counts().rejectionsByCategory().keySet().iterator().next();
        assertThat(s.counts().rejectionsOf(category)).isEqualTo(3);

        // counted again after one more refusal: only the new one is read, the total stays right
        assertThatThrownBy(() -> other.leases().acquire("reviewer", Duration.ofSeconds(5)))
                .isInstanceOf(Refusal.class);
        AdminSnapshot next = reader.snapshot(); // the same reader: its second count is incremental
        assertThat(next.counts().rejectionsOf(category)).isEqualTo(4);
        assertThat(next.counts().rejections()).isEqualTo(4);
    }

    @Test
    void theJournalExportsAsRfc4180Csv() throws Exception {
        Engine a = temp.open(temp.config(clock).build());
        Sqlite.database(a).write(tx -> {
            tx.journal(
                    EventKind.PROCESS_STARTED,
                    "process",
                    a.processIdentity(),
                    null,
                    null,
                    "says \"hello\", then\r\nleaves");
            return null;
        });
        Path out = temp.dir().resolve("journal.csv");
        long[] progress = new long[2];

        long n = reader().exportJournalCsv(out, (done, total) -> {
            progress[0] = done;
            progress[1] = total;
        });

        String csv = Files.readString(out, StandardCharsets.UTF_8);
        assertThat(n).isEqualTo(1);
        assertThat(progress).containsExactly(1, 1);
        assertThat(csv).startsWith(String.join(",", JournalCsv.COLUMNS) + "\r\n");
        assertThat(csv).contains(",\"says \"\"hello\"\", then\r\nleaves\",");
        assertThat(csv).endsWith("\r\n");
        assertThat(Files.list(temp.dir()).filter(p -> p.toString().endsWith(".part")))
                .isEmpty();
    }

    @Test
    void csvQuotesOnlyWhatNeedsQuoting() {
        assertThat(JournalCsv.quote("plain")).isEqualTo("plain");
        assertThat(JournalCsv.quote("a,b")).isEqualTo("\"a,b\"");
        assertThat(JournalCsv.quote("say \"x\"")).isEqualTo("\"say \"\"x\"\"\"");
        assertThat(JournalCsv.quote("line\nbreak")).isEqualTo("\"line\nbreak\"");
        assertThat(JournalCsv.quote("")).isEmpty();
    }

    @Test
    void aReleaseThatKeepsItsLeaseUntilATimeIsToldAsThatAndNotAsARenewal() {
        Engine a = temp.open(temp.config(clock).processLabel("nightly job").build());
        a.actors().add("report");
        Lease lock = a.leases().acquire("report", Duration.ofMinutes(10), LeaseKeeping.TTL);
        clock.advance(Duration.ofSeconds(5));
        long until = clock.millis() + 60_000;
        assertThat(a.leases().releaseKeepingUntil("report", lock.token(), Instant.ofEpochMilli(until)))
                .isTrue();
        a.leases().extend("report", lock.token(), Duration.ofMinutes(2));
        List<JournalEntry> events = reader().eventsSince(0, 100);
        assertThat(events.get(events.size() - 2).sentence())
                .startsWith("Nightly job (")
                .endsWith(" released actor report with token " + lock.token() + " but keeps it until " + hms(until)
                        + " (a minimum hold); nobody else can take it before then.");
        assertThat(events.get(events.size() - 1).sentence())
                .endsWith(" renewed actor report with token " + lock.token() + ".");
    }
}
