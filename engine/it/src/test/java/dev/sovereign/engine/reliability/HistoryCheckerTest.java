package dev.sovereign.engine.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sovereign.engine.reliability.HistoryChecker.Rule;
import dev.sovereign.engine.reliability.HistoryOp.Outcome;
import dev.sovereign.engine.reliability.Ledger.AssignmentRow;
import dev.sovereign.engine.reliability.Ledger.AttemptRow;
import dev.sovereign.engine.reliability.Ledger.Event;
import dev.sovereign.engine.reliability.Ledger.MessageRow;
import dev.sovereign.engine.reliability.Ledger.ReceiptRow;
import dev.sovereign.engine.run.RunFolders;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The checker on hand-made histories: a good one it accepts, and one bad history per guarantee, each
 * a small tampering of the good one, that it must catch under the right rule.
 */
class HistoryCheckerTest {
    private static final String P1 = "proc_one";
    private static final String P2 = "proc_two";
    private static final String SUPERVISOR = "proc_supervisor";
    private static final long FINAL_NOW = 1_000_000;

    /** A journal row before it has a seq: the seq is its position when the ledger is built. */
    private record Row(
            String kind,
            String type,
            String id,
            String actor,
            String process,
            Long token,
            Long presented,
            Long current,
            String category) {}

    private final List<Row> journal = new ArrayList<>();
    private final List<HistoryOp> ops = new ArrayList<>();
    private final List<MessageRow> messages = new ArrayList<>();
    private final List<AssignmentRow> assignments = new ArrayList<>();
    private final List<AttemptRow> attempts = new ArrayList<>();
    private final List<ReceiptRow> receipts = new ArrayList<>();
    private long lastToken;
    private long time = 1_000;

    /**
     * The good history. P1 hosts actor a (token 1), sends, claims (2) and completes message m, runs
     * assignment x (attempt token 3 under lease 1) to COMPLETED and releases a; P2, refused while P1
     * held a, then acquires it (4) and starts running assignment y (attempt 5), and is killed; P1's late
     * renewal with token 1 is refused and journalled; the final supervisor recovers y as worker_lost.
     */
    @BeforeEach
    void goodHistory() {
        ok(P1, "acquire", args("actor", "a", "ttl_ms", 1000), args("token", 1));
        row("LEASE_ACQUIRED", "actor", "a", "a", P1, 1L);
        ok(P1, "send", args("sender", "w0", "recipient", "a", "max_retries", 1), args("message", "m"));
        row("MESSAGE_SENT", "message", "m", "a", P1, null);
        ok(P1, "claim", args("message", "m", "actor", "a", "ttl_ms", 1000), args("token", 2));
        row("CLAIM_GRANTED", "message", "m", "a", P1, 2L);
        fail(P2, "acquire", args("actor", "a", "ttl_ms", 1000), "actor_lease_held", "actor", "a", null, 1L);
        rejected("actor", "a", P2, "actor_lease_held", null, 1L);
        ok(P1, "complete", args("message", "m", "token", 2), args("state", "DONE"));
        row("MESSAGE_DONE", "message", "m", "a", P1, 2L);
        messages.add(new MessageRow("m", "a", "DONE", "a", P1, 2L, 5_000L, 0, 1));

        ok(P1, "assign", args("actor", "a", "provider", "scripted:ms=0"), args("assignment", "x"));
        row("ASSIGNMENT_CREATED", "assignment", "x", "a", P1, null);
        attempts.add(new AttemptRow("att_x", "x", "a", P1, 3, 1, "DONE", 9_000));
        ok(
                P1,
                "run",
                args("assignment", "x", "actor", "a", "ttl_ms", 1000),
                args(
                        "state",
                        "COMPLETED",
                        "attempt",
                        "att_x",
                        "attempt_token",
                        3,
                        "lease_token",
                        1,
                        "receipt",
                        1,
                        "status",
                        "completed"));
        row("ATTEMPT_STARTED", "attempt", "att_x", "a", P1, 3L);
        row("ATTEMPT_DONE", "attempt", "att_x", "a", P1, 3L);
        receipts.add(new ReceiptRow(1, "x", "att_x", 3, P1, "completed", null, true));
        assignments.add(new AssignmentRow("x", "a", "COMPLETED", null, null, null));
        ok(P1, "release", args("actor", "a", "token", 1), args("released", true));
        row("LEASE_RELEASED", "actor", "a", "a", P1, 1L);

        ok(P2, "acquire", args("actor", "a", "ttl_ms", 1000), args("token", 4));
        row("LEASE_ACQUIRED", "actor", "a", "a", P2, 4L);
        fail(P1, "renew", args("actor", "a", "token", 1), "actor_lease_lost", "actor", "a", 1L, 4L);
        rejected("actor", "a", P1, "actor_lease_lost", 1L, 4L);
        assignments.add(new AssignmentRow("y", "a", "FAILED", null, null, null));
        attempts.add(new AttemptRow("att_y", "y", "a", P2, 5, 4, "RECOVERED", 20_000));
        unknown(P2, "run", args("assignment", "y", "actor", "a", "ttl_ms", 1000));
        row("ATTEMPT_STARTED", "attempt", "att_y", "a", P2, 5L);
        row("ATTEMPT_RECOVERED", "attempt", "att_y", "a", SUPERVISOR, 5L);
        receipts.add(new ReceiptRow(2, "y", "att_y", 5, P2, "failed", "worker_lost", false));
        lastToken = 5;
    }

    private HistoryChecker.Result check() {
        return check(OutputFolders.NONE);
    }

    private Ledger ledger() {
        List<Event> events = new ArrayList<>();
        for (int i = 0; i < journal.size(); i++) {
            Row r = journal.get(i);
            events.add(new Event(
                    i + 1,
                    0,
                    r.kind(),
                    r.type(),
                    r.id(),
                    r.actor(),
                    r.process(),
                    r.token(),
                    r.presented(),
                    r.current(),
                    r.category(),
                    null));
        }
        return new Ledger(events, List.of(), messages, assignments, attempts, receipts, lastToken);
    }

    private HistoryChecker.Result check(OutputFolders outputs) {
        return HistoryChecker.check(ledger(), ops, FINAL_NOW, outputs);
    }

    @Test
    void aGoodHistoryHasNoViolations() {
        assertThat(check().violations()).isEmpty();
    }

    /** Writes {@code text} into {@code result.txt} of the output folder of {@code attempt} of {@code assignment}. */
    private static void writeOutput(Path data, String assignment, String attempt, String text) throws Exception {
        Path dir = Files.createDirectories(RunFolders.output(data, assignment, attempt));
        Files.writeString(dir.resolve("result.txt"), text);
    }

    @Test
    void canonicalOutputFoldersHoldingOnlyTheirOwnAttemptsResultsAreClean(@TempDir Path data) throws Exception {
        writeOutput(data, "x", "att_x", "attempt=att_x token=3\nattempt=att_x token=3\n");
        writeOutput(data, "y", "att_y", "attempt=att_y token=5\n"); // the recovered attempt's own partial work
        writeOutput(data, "x", "att_stale", "attempt=att_stale token=2\n"); // a stale attempt's own folder

        OutputFolders outputs = OutputFolders.read(data, ledger());

        assertThat(outputs.folders()).hasSize(2).allMatch(OutputFolders.Folder::exists);
        assertThat(outputs.markCount()).isEqualTo(3);
        assertThat(check(outputs).violations()).isEmpty();
    }

    @Test
    void aStaleAttemptsResultInTheFolderACanonicalReceiptNamesIsCaught(@TempDir Path data) throws Exception {
        // the bug of issue 13: every attempt shared one folder, and the stale one wrote last
        writeOutput(data, "x", "att_x", "attempt=att_x token=3\nattempt=att_stale token=2\n");
        writeOutput(data, "y", "att_y", "attempt=att_y token=4\n"); // right attempt id, wrong token

        HistoryChecker.Result result = check(OutputFolders.read(data, ledger()));

        assertThat(result.count(Rule.FOREIGN_OUTPUT)).isEqualTo(2);
        assertThat(result.violations())
                .filteredOn(v -> v.rule() == Rule.FOREIGN_OUTPUT)
                .anySatisfy(v -> assertThat(v.what()).contains("receipt 1").contains("att_stale (token 2)"))
                .anySatisfy(v -> assertThat(v.what()).contains("receipt 2").contains("att_y (token 4)"));
        assertThat(result.violations()).allMatch(v -> v.rule() == Rule.FOREIGN_OUTPUT); // the ledger is fine
    }

    @Test
    void overlappingHoldersInTheJournalAreCaught() {
        // P2 was granted a while P1 still held it: P1's release comes after P2's grant
        int release = indexOf("LEASE_RELEASED", "a");
        Row r = journal.remove(release);
        journal.add(indexOf("LEASE_ACQUIRED", "a", P2) + 1, r);

        assertThat(check().count(Rule.ACTOR_ORDER)).isPositive();
    }

    @Test
    void aStaleHolderWhoseWriteSucceededAfterANewerTokenWasGrantedIsCaughtInRealTimeOrder() {
        // P1's renew with token 1 "succeeded" after P2's acquire of token 4 had returned
        ops.removeIf(o -> o.op().equals("renew"));
        journal.removeIf(r -> r.kind().equals("REJECTED") && P1.equals(r.process()));
        ok(P1, "renew", args("actor", "a", "token", 1), args("token", 1));
        row("LEASE_RENEWED", "actor", "a", "a", P1, 1L);

        HistoryChecker.Result result = check();
        assertThat(result.violations()).anySatisfy(v -> {
            assertThat(v.rule()).isEqualTo(Rule.ACTOR_ORDER);
            assertThat(v.what()).contains("renew").contains("had already ended with token 4");
        });
    }

    @Test
    void aLostAcknowledgementIsCaught() {
        // P1 was told its completion committed, but the ledger does not have it
        journal.removeIf(r -> r.kind().equals("MESSAGE_DONE"));
        messages.set(0, new MessageRow("m", "a", "CLAIMED", "a", P1, 2L, 5_000L, 0, 1));

        assertThat(check().count(Rule.LOST_ACK)).isEqualTo(2); // no MESSAGE_DONE, and the row is not DONE
    }

    @Test
    void aDoubleCompletionIsCaught() {
        journal.add(
                indexOf("MESSAGE_DONE", "m") + 1,
                new Row("MESSAGE_DONE", "message", "m", "a", P1, 2L, null, null, null));

        assertThat(check().count(Rule.MESSAGE_FINISHED_TWICE)).isEqualTo(1);
    }

    @Test
    void aCompletionByAProcessThatDidNotHoldTheClaimIsCaught() {
        int done = indexOf("MESSAGE_DONE", "m");
        journal.set(done, new Row("MESSAGE_DONE", "message", "m", "a", P2, 2L, null, null, null));
        messages.set(0, new MessageRow("m", "a", "DONE", "a", P2, 2L, 5_000L, 0, 1));

        assertThat(check().count(Rule.MESSAGE_FINISHED_BY_NON_HOLDER)).isEqualTo(1);
    }

    @Test
    void aRefusedStaleWriteWithoutItsRejectionRowIsCaught() {
        journal.removeIf(r -> r.kind().equals("REJECTED") && P1.equals(r.process()));

        assertThat(check().violations()).singleElement().satisfies(v -> {
            assertThat(v.rule()).isEqualTo(Rule.MISSING_REJECTION);
            assertThat(v.what()).contains("renew").contains("actor_lease_lost");
        });
    }

    @Test
    void aRefusalThatReportedItsMissingRejectionRowIsNotAViolationButASilentOneIs() {
        journal.removeIf(r -> r.kind().equals("REJECTED") && P1.equals(r.process()));
        int renew = -1;
        for (int i = 0; i < ops.size(); i++) {
            if (ops.get(i).op().equals("renew")) {
                renew = i;
            }
        }
        HistoryOp silent = ops.get(renew);
        Map<String, Object> reported = new LinkedHashMap<>(silent.detail());
        reported.put("journal_missing", true);
        ops.set(
                renew,
                new HistoryOp(
                        silent.worker(),
                        silent.process(),
                        silent.id(),
                        silent.op(),
                        silent.args(),
                        silent.invokedUs(),
                        silent.outcome(),
                        reported,
                        silent.completedUs()));

        assertThat(check().violations()).isEmpty();
    }

    @Test
    void aRefusalThatReportedItsRowMissingDoesNotTakeTheRowOfALaterRefusalWithTheSameKey() {
        // P1 is refused twice alike; the first said its REJECTED row could not be written, the second has its row
        fail(P1, "acquire", args("actor", "a", "ttl_ms", 1000), "actor_lease_held", "actor", "a", null, 4L);
        HistoryOp first = ops.get(ops.size() - 1);
        Map<String, Object> reported = new LinkedHashMap<>(first.detail());
        reported.put("journal_missing", true);
        ops.set(
                ops.size() - 1,
                new HistoryOp(
                        first.worker(),
                        first.process(),
                        first.id(),
                        first.op(),
                        first.args(),
                        first.invokedUs(),
                        first.outcome(),
                        reported,
                        first.completedUs()));
        fail(P1, "acquire", args("actor", "a", "ttl_ms", 1000), "actor_lease_held", "actor", "a", null, 4L);
        rejected("actor", "a", P1, "actor_lease_held", null, 4L);

        assertThat(check().violations()).isEmpty();
    }

    @Test
    void aTokenThatWentBackwardsInTheJournalIsCaught() {
        // P2's grant carries token 1 again instead of a fresh 4
        int grant = indexOf("LEASE_ACQUIRED", "a", P2);
        journal.set(grant, new Row("LEASE_ACQUIRED", "actor", "a", "a", P2, 1L, null, null, null));

        assertThat(check().count(Rule.TOKEN_NOT_INCREASING)).isPositive();
    }

    @Test
    void aTokenThatWentBackwardsAcrossProcessesInRealTimeIsCaught() {
        // P2's acquire returned token 6 before P1's next acquire began, yet P1 got 4
        ops.clear();
        ok(P2, "acquire", args("actor", "b", "ttl_ms", 1000), args("token", 6));
        ok(P1, "acquire", args("actor", "c", "ttl_ms", 1000), args("token", 4));

        assertThat(check().violations()).anySatisfy(v -> assertThat(v.rule()).isEqualTo(Rule.TOKEN_NOT_INCREASING));
    }

    /**
     * On PostgreSQL (64 rows of the counter, decision 0924) the order is owed per row: tokens of two rows in either
     * order are no violation, a token below one minted earlier on its own row still is, in real time as in the journal.
     */
    @Test
    void withStripesOfTheCounterTheOrderIsOwedPerRow() {
        ops.clear();
        ok(P2, "acquire", args("actor", "b", "ttl_ms", 1000), args("token", 6 + 64)); // row 6
        ok(P1, "acquire", args("actor", "c", "ttl_ms", 1000), args("token", 4 + 64)); // row 4: another row
        assertThat(HistoryChecker.check(ledger(), ops, FINAL_NOW, OutputFolders.NONE, java.util.Set.of("busy"), 64)
                        .count(Rule.TOKEN_NOT_INCREASING))
                .isZero();
        ok(P1, "acquire", args("actor", "d", "ttl_ms", 1000), args("token", 6)); // row 6, below 70
        assertThat(HistoryChecker.check(ledger(), ops, FINAL_NOW, OutputFolders.NONE, java.util.Set.of("busy"), 64)
                        .violations())
                .anySatisfy(v -> assertThat(v.rule()).isEqualTo(Rule.TOKEN_NOT_INCREASING));
    }

    @Test
    void aRunLeftRunningWithoutALiveAttemptAfterTheFinalTickIsCaught() {
        // the supervisor never recovered y: it is still RUNNING on an attempt that expired long ago
        journal.removeIf(r -> r.kind().equals("ATTEMPT_RECOVERED"));
        receipts.removeIf(r -> r.assignment().equals("y"));
        assignments.set(1, new AssignmentRow("y", "a", "RUNNING", "att_y", null, null));
        attempts.set(1, new AttemptRow("att_y", "y", "a", P2, 5, 4, "ACTIVE", 20_000));

        HistoryChecker.Result result = check();
        assertThat(result.count(Rule.STUCK_RUN)).isEqualTo(1);
        assertThat(result.violations()).allSatisfy(v -> assertThat(v.rule()).isIn(Rule.STUCK_RUN, Rule.LEFTOVER));
    }

    @Test
    void aStaleTerminalWriteAfterTheFenceWasStolenIsCaught() {
        // an operator stole x's fence while P1 ran; P1's terminal write still went through
        journal.add(
                indexOf("ATTEMPT_DONE", "att_x"),
                new Row("ATTEMPT_STOLEN", "attempt", "att_x", "a", P2, 3L, null, null, null));

        assertThat(check().count(Rule.ATTEMPT_ORDER)).isPositive();
    }

    @Test
    void twoTerminalWritesAndTwoReceiptsAreCaught() {
        journal.add(new Row("ATTEMPT_RECOVERED", "attempt", "att_x", "a", SUPERVISOR, 3L, null, null, null));
        receipts.add(new ReceiptRow(3, "x", "att_x", 3, P1, "failed", "worker_lost", false));

        HistoryChecker.Result result = check();
        assertThat(result.count(Rule.TWO_TERMINAL_WRITES)).isEqualTo(1);
        assertThat(result.count(Rule.TWO_RECEIPTS)).isEqualTo(1);
    }

    @Test
    void aWriteByACallThatWasToldItWasRefusedIsCaught() {
        // P1 was told its completion was refused (and the refusal was journalled), yet the message is DONE by P1
        ops.removeIf(o -> o.op().equals("complete"));
        fail(P1, "complete", args("message", "m", "token", 2), "fencing_token_stale", "message", "m", 2L, null);
        rejected("message", "m", P1, "fencing_token_stale", 2L, null);

        assertThat(check().violations())
                .singleElement()
                .satisfies(v -> assertThat(v.rule()).isEqualTo(Rule.UNEXPLAINED_WRITE));
    }

    @Test
    void aCallThatEndedWithAnUnexpectedExceptionIsACrashButBusyIsNot() {
        info(P1, "send", "busy");
        assertThat(check().violations()).isEmpty();

        info(P1, "send", "exception");
        assertThat(check().count(Rule.CRASH)).isEqualTo(1);
    }

    @Test
    void aLostConnectionOrAnUnknownCommitOutcomeIsInfoOnAServerButACrashOnAFile() {
        info(P1, "send", "storage_IO");
        info(P1, "complete", "storage_COMMIT_OUTCOME_UNKNOWN");
        Set<String> server = Set.of("busy", "storage_IO", "storage_COMMIT_OUTCOME_UNKNOWN");
        assertThat(HistoryChecker.check(ledger(), ops, FINAL_NOW, OutputFolders.NONE, server)
                        .violations())
                .isEmpty();
        assertThat(check().count(Rule.CRASH))
                .as("on SQLite neither is expected")
                .isEqualTo(2);

        info(P1, "send", "storage_CORRUPT");
        assertThat(HistoryChecker.check(ledger(), ops, FINAL_NOW, OutputFolders.NONE, server)
                        .count(Rule.CRASH))
                .as("a guard's refusal is a crash on a server too")
                .isEqualTo(1);
    }

    // ---- building histories ----

    private static Map<String, Object> args(Object... kv) {
        Map<String, Object> m = new LinkedHashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            m.put((String) kv[i], kv[i + 1]);
        }
        return m;
    }

    private void ok(String process, String op, Map<String, Object> args, Map<String, Object> result) {
        add(process, op, args, Outcome.OK, result);
    }

    private void fail(
            String process,
            String op,
            Map<String, Object> args,
            String category,
            String type,
            String id,
            Long presented,
            Long current) {
        Map<String, Object> refusal = new LinkedHashMap<>();
        refusal.put("category", category);
        refusal.put("resource_type", type);
        refusal.put("resource_id", id);
        refusal.put("presented", presented);
        refusal.put("current", current);
        add(process, op, args, Outcome.FAIL, refusal);
    }

    private void info(String process, String op, String reason) {
        add(process, op, args(), Outcome.INFO, args("reason", reason, "error", "..."));
    }

    private void unknown(String process, String op, Map<String, Object> args) {
        ops.add(new HistoryOp("w", process, ops.size() + 1, op, args, time, Outcome.UNKNOWN, Map.of(), Long.MAX_VALUE));
        time += 10;
    }

    private void add(String process, String op, Map<String, Object> args, Outcome outcome, Map<String, Object> detail) {
        ops.add(new HistoryOp("w", process, ops.size() + 1, op, args, time, outcome, detail, time + 5));
        time += 10;
    }

    private void row(String kind, String type, String id, String actor, String process, Long token) {
        journal.add(new Row(kind, type, id, actor, process, token, null, null, null));
    }

    private void rejected(String type, String id, String process, String category, Long presented, Long current) {
        journal.add(new Row("REJECTED", type, id, null, process, null, presented, current, category));
    }

    private int indexOf(String kind, String id) {
        return indexOf(kind, id, null);
    }

    private int indexOf(String kind, String id, String process) {
        for (int i = 0; i < journal.size(); i++) {
            Row r = journal.get(i);
            if (r.kind().equals(kind) && r.id().equals(id) && (process == null || process.equals(r.process()))) {
                return i;
            }
        }
        throw new AssertionError("no " + kind + " of " + id);
    }
}
