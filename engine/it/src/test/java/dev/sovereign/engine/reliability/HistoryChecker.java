package dev.sovereign.engine.reliability;

import dev.sovereign.engine.base.RefusalCategory;
import dev.sovereign.engine.reliability.HistoryOp.Outcome;
import dev.sovereign.engine.reliability.Ledger.AssignmentRow;
import dev.sovereign.engine.reliability.Ledger.AttemptRow;
import dev.sovereign.engine.reliability.Ledger.Event;
import dev.sovereign.engine.reliability.Ledger.MessageRow;
import dev.sovereign.engine.reliability.Ledger.ReceiptRow;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Holds what the processes saw (their histories) against what the ledger says (the fence journal in
 * commit order, and the tables), and lists every violation of the fencing guarantees:
 *
 * <ul>
 *   <li>{@link Rule#TOKEN_NOT_INCREASING}: a minted token not strictly greater than every token minted
 *       before it from the same row of the counter (by journal order, and by real time across the histories), or
 *       above the counter. SQLite has one row; PostgreSQL 64 (schema version 19, decision 0924), token {@code t}
 *       being row {@code t mod 64}'s, so there the order is owed per row: per actor, as the contract asks;</li>
 *   <li>{@link Rule#ACTOR_ORDER}, {@link Rule#ATTEMPT_ORDER}, {@link Rule#MESSAGE_ORDER}: accepted writes for
 *       one actor, attempt/assignment or message that interleave against token order — a write under a
 *       token that was no longer current (a second holder), by journal replay and by real time;</li>
 *   <li>{@link Rule#MESSAGE_FINISHED_TWICE}, {@link Rule#MESSAGE_FINISHED_BY_NON_HOLDER};</li>
 *   <li>{@link Rule#TWO_TERMINAL_WRITES}, {@link Rule#TWO_RECEIPTS}, {@link Rule#RECEIPT_MISMATCH};</li>
 *   <li>{@link Rule#LOST_ACK}: a call that returned OK whose write is not in the ledger;</li>
 *   <li>{@link Rule#MISSING_REJECTION}: a refused stale write without its {@code REJECTED} row;</li>
 *   <li>{@link Rule#UNEXPLAINED_WRITE}: a committed write its process was told was refused, or never
 *       asked for;</li>
 *   <li>{@link Rule#STUCK_RUN}, {@link Rule#LEFTOVER}: after the supervisor's final tick, an assignment
 *       still RUNNING without a live attempt, an attempt still ACTIVE, a claim not swept;</li>
 *   <li>{@link Rule#CRASH}: a call that ended with an exception other than a refusal or busy;</li>
 *   <li>{@link Rule#FOREIGN_OUTPUT}: the output folder a canonical receipt names holds the result of another
 *       attempt (a stale process's write landed in the canonical output; see {@link OutputFolders}).</li>
 * </ul>
 *
 * Busy errors and calls cut short by a kill are "info": their effect is unknown, so they are held to
 * no outcome, but they may explain a write. Stateless; {@link #check} is a pure function.
 */
public final class HistoryChecker {
    private HistoryChecker() {}

    /** The guarantees, each a kind of violation. */
    public enum Rule {
        TOKEN_NOT_INCREASING("a token did not strictly increase"),
        ACTOR_ORDER("writes for one actor interleaved against token order (two holders)"),
        ATTEMPT_ORDER("writes for one assignment's attempts interleaved against token order"),
        MESSAGE_ORDER("writes for one message interleaved against token order"),
        MESSAGE_FINISHED_TWICE("a message was finished twice"),
        MESSAGE_FINISHED_BY_NON_HOLDER("a message was finished by a process that did not hold its claim"),
        TWO_TERMINAL_WRITES("an assignment got two terminal writes"),
        TWO_RECEIPTS("an assignment got two canonical receipts"),
        RECEIPT_MISMATCH("a receipt, attempt and assignment disagree"),
        LEDGER_MISMATCH("a table disagrees with the journal"),
        LOST_ACK("a write acknowledged as ok is missing from the ledger"),
        MISSING_REJECTION("a refused stale write has no REJECTED journal row"),
        UNEXPLAINED_WRITE("the ledger holds a write its process was told was refused"),
        STUCK_RUN("an assignment was left RUNNING without a live attempt after the final tick"),
        LEFTOVER("an attempt or claim was left live after the final tick"),
        CRASH("a call ended with an unexpected exception"),
        FOREIGN_OUTPUT("a canonical receipt's output folder holds another attempt's result");

        private final String description;

        Rule(String description) {
            this.description = description;
        }

        public String description() {
            return description;
        }
    }

    public record Violation(Rule rule, String what) {
        @Override
        public String toString() {
            return rule + ": " + what;
        }
    }

    /** The violations found, in the order found. */
    public record Result(List<Violation> violations) {
        public boolean clean() {
            return violations.isEmpty();
        }

        public long count(Rule rule) {
            return violations.stream().filter(v -> v.rule() == rule).count();
        }

        public String summary(int max) {
            StringBuilder b = new StringBuilder(violations.size() + " violation(s)");
            violations.stream().limit(max).forEach(v -> b.append("\n  ").append(v));
            if (violations.size() > max) {
                b.append("\n  ... and ").append(violations.size() - max).append(" more");
            }
            return b.toString();
        }
    }

    /**
     * @param ledger  the ledger after every worker stopped and the final supervisor tick ran
     * @param ops     every process's calls
     * @param finalNow the clock of the final tick: an attempt or claim expiring after it counts as live
     */
    public static Result check(Ledger ledger, List<HistoryOp> ops, long finalNow) {
        return check(ledger, ops, finalNow, OutputFolders.NONE);
    }

    /** {@link #check(Ledger, List, long)}, and the files in the output folders the receipts name. */
    public static Result check(Ledger ledger, List<HistoryOp> ops, long finalNow, OutputFolders outputs) {
        return check(ledger, ops, finalNow, outputs, Set.of("busy"));
    }

    /**
     * {@link #check(Ledger, List, long, OutputFolders)} where an info call whose reason is in {@code expectedInfo}
     * is not a crash (on PostgreSQL a lost connection and an unknown commit outcome are, like busy, "info":
     * held to no outcome, allowed to explain writes).
     */
    public static Result check(
            Ledger ledger, List<HistoryOp> ops, long finalNow, OutputFolders outputs, Set<String> expectedInfo) {
        return check(ledger, ops, finalNow, outputs, expectedInfo, 1);
    }

    /** The same, for a counter of {@code tokenRows} rows, each minting the tokens equal to its id modulo their count. */
    public static Result check(
            Ledger ledger,
            List<HistoryOp> ops,
            long finalNow,
            OutputFolders outputs,
            Set<String> expectedInfo,
            int tokenRows) {
        return new Run(ledger, ops, finalNow, outputs, expectedInfo, tokenRows).check();
    }

    private static final class Run {
        private final Ledger ledger;
        private final List<HistoryOp> ops;
        private final long finalNow;
        private final OutputFolders outputs;
        private final Set<String> expectedInfo;
        private final List<Violation> violations = new ArrayList<>();
        private final Map<String, AttemptRow> attempts = new HashMap<>();
        private final Map<String, AssignmentRow> assignments = new HashMap<>();
        private final Map<String, MessageRow> messages = new HashMap<>();
        /** Replay state. */
        private final Map<String, Holder> holders = new HashMap<>();

        private final Map<String, MessageReplay> messageReplay = new HashMap<>();
        private final Map<String, AssignmentReplay> assignmentReplay = new HashMap<>();
        /** Per row of the counter: the greatest token minted so far and its seq. */
        private final Map<Long, long[]> maxMinted = new HashMap<>();

        private final int tokenRows;

        Run(
                Ledger ledger,
                List<HistoryOp> ops,
                long finalNow,
                OutputFolders outputs,
                Set<String> expectedInfo,
                int tokenRows) {
            this.tokenRows = tokenRows;
            this.expectedInfo = expectedInfo;
            this.ledger = ledger;
            this.ops = ops;
            this.finalNow = finalNow;
            this.outputs = outputs;
            ledger.attempts().forEach(a -> attempts.put(a.id(), a));
            ledger.assignments().forEach(a -> assignments.put(a.id(), a));
            ledger.messages().forEach(m -> messages.put(m.id(), m));
        }

        private record Holder(long token, String process, long seq) {}

        private static final class MessageReplay {
            Long claimToken;
            String claimProcess;
            String claimActor;
            long maxToken;
            String finishedAs;
            long finishedToken;
        }

        private static final class AssignmentReplay {
            String current;
            String stolen;
            long maxAttemptToken;
            String terminalAttempt;
            String terminalKind;
        }

        private void violation(Rule rule, String what) {
            violations.add(new Violation(rule, what));
        }

        Result check() {
            replayJournal();
            checkReceipts();
            checkFinalState();
            checkOutputs();
            checkHistories();
            checkRealTimeOrder();
            return new Result(List.copyOf(violations));
        }

        // ---- 1. the journal, replayed in commit order ----

        private void replayJournal() {
            for (Event e : ledger.events()) {
                if (e.token() != null && e.token() > ledger.lastToken()) {
                    violation(
                            Rule.TOKEN_NOT_INCREASING,
                            "seq " + e.seq() + " " + e.kind() + " carries token " + e.token()
                                    + ", above the counter's last token " + ledger.lastToken());
                }
                switch (e.kind()) {
                    case "LEASE_ACQUIRED", "LEASE_TAKEN_OVER" -> leaseGranted(e);
                    case "LEASE_RENEWED", "LEASE_RELEASED" -> leaseUsed(e);
                    case "ATTEMPT_STARTED" -> attemptStarted(e);
                    case "ATTEMPT_SUPERSEDED" -> attemptSuperseded(e);
                    case "ATTEMPT_STOLEN" -> attemptStolen(e);
                    case "ATTEMPT_DONE", "ATTEMPT_RECOVERED" -> attemptEnded(e);
                    case "MESSAGE_SENT" -> messageReplay.computeIfAbsent(e.resourceId(), k -> new MessageReplay());
                    case "CLAIM_GRANTED" -> claimGranted(e);
                    case "CLAIM_SWEPT" -> claimSwept(e);
                    case "MESSAGE_DONE", "MESSAGE_DEAD", "MESSAGE_RETRIED" -> messageFinished(e);
                    default -> {
                        // grants of no token (ASSIGNMENT_*, PROCESS_*) and REJECTED rows
                    }
                }
            }
        }

        private void mint(Event e) {
            if (e.token() == null) {
                violation(Rule.TOKEN_NOT_INCREASING, "seq " + e.seq() + " " + e.kind() + " granted no token");
                return;
            }
            long[] row = maxMinted.computeIfAbsent(Math.floorMod(e.token(), (long) tokenRows), k -> new long[2]);
            if (e.token() <= row[0]) {
                violation(
                        Rule.TOKEN_NOT_INCREASING,
                        "seq " + e.seq() + " " + e.kind() + " of " + e.resourceId()
                                + " minted token " + e.token() + ", not greater than token " + row[0]
                                + " minted at seq "
                                + row[1]);
            } else {
                row[0] = e.token();
                row[1] = e.seq();
            }
        }

        private void leaseGranted(Event e) {
            mint(e);
            String actor = e.resourceId();
            Holder h = holders.get(actor);
            if (e.kind().equals("LEASE_ACQUIRED") && h != null) {
                violation(
                        Rule.ACTOR_ORDER,
                        "seq " + e.seq() + ": actor " + actor + " was granted to " + e.process()
                                + " with token " + e.token() + " while " + h.process() + " still held it with token "
                                + h.token() + " (granted at seq " + h.seq() + ")");
            }
            if (e.kind().equals("LEASE_TAKEN_OVER") && h == null) {
                violation(
                        Rule.ACTOR_ORDER,
                        "seq " + e.seq() + ": actor " + actor + " was taken over by " + e.process()
                                + " although no lease existed");
            }
            if (h != null && e.token() != null && e.token() <= h.token()) {
                violation(
                        Rule.ACTOR_ORDER,
                        "seq " + e.seq() + ": actor " + actor + " was granted token " + e.token() + " after token "
                                + h.token());
            }
            holders.put(actor, new Holder(e.token() == null ? 0 : e.token(), e.process(), e.seq()));
        }

        private void leaseUsed(Event e) {
            String actor = e.resourceId();
            Holder h = holders.get(actor);
            if (h == null
                    || !Objects.equals(h.token(), e.token())
                    || !h.process().equals(e.process())) {
                violation(
                        Rule.ACTOR_ORDER,
                        "seq " + e.seq() + ": " + e.kind() + " of actor " + actor + " by " + e.process()
                                + " with token " + e.token() + " while the lease is " + describe(h));
            }
            if (e.kind().equals("LEASE_RELEASED")) {
                holders.remove(actor);
            }
        }

        private static String describe(Holder h) {
            return h == null ? "free" : "held by " + h.process() + " with token " + h.token();
        }

        private AttemptRow attempt(Event e) {
            AttemptRow a = attempts.get(e.resourceId());
            if (a == null) {
                violation(
                        Rule.LEDGER_MISMATCH,
                        "seq " + e.seq() + " " + e.kind() + " names attempt " + e.resourceId()
                                + ", which is not in execution_attempts");
            }
            return a;
        }

        private void attemptStarted(Event e) {
            mint(e);
            AttemptRow a = attempt(e);
            if (a == null) {
                return;
            }
            requireLease(e, a, "started");
            AssignmentReplay r = assignmentReplay.computeIfAbsent(a.assignment(), k -> new AssignmentReplay());
            if (r.terminalAttempt != null) {
                violation(
                        Rule.ATTEMPT_ORDER,
                        "seq " + e.seq() + ": attempt " + a.id() + " started on assignment " + a.assignment()
                                + " after it ended (" + r.terminalKind + " by " + r.terminalAttempt + ")");
            }
            if (r.current != null) {
                violation(
                        Rule.ATTEMPT_ORDER,
                        "seq " + e.seq() + ": attempt " + a.id() + " started on assignment " + a.assignment()
                                + " while attempt " + r.current + " was still its current attempt");
            }
            if (a.token() <= r.maxAttemptToken) {
                violation(
                        Rule.ATTEMPT_ORDER,
                        "seq " + e.seq() + ": attempt " + a.id() + " of assignment "
                                + a.assignment() + " has token " + a.token() + ", not above the earlier attempt token "
                                + r.maxAttemptToken);
            }
            r.maxAttemptToken = Math.max(r.maxAttemptToken, a.token());
            r.current = a.id();
        }

        /** The writer holds the lease the attempt is bound to: the same token and the same process. */
        private void requireLease(Event e, AttemptRow a, String what) {
            Holder h = holders.get(a.actor());
            if (h == null || h.token() != a.leaseToken() || !h.process().equals(e.process())) {
                violation(
                        Rule.ACTOR_ORDER,
                        "seq " + e.seq() + ": attempt " + a.id() + " (token " + a.token()
                                + ") was " + what + " by " + e.process() + " under lease token " + a.leaseToken()
                                + " of actor "
                                + a.actor() + " while the lease is " + describe(h));
            }
        }

        private void attemptSuperseded(Event e) {
            AttemptRow a = attempt(e);
            if (a == null) {
                return;
            }
            AssignmentReplay r = assignmentReplay.computeIfAbsent(a.assignment(), k -> new AssignmentReplay());
            if (a.id().equals(r.current)) {
                r.current = null;
            }
        }

        private void attemptStolen(Event e) {
            AttemptRow a = attempt(e);
            if (a == null) {
                return;
            }
            AssignmentReplay r = assignmentReplay.computeIfAbsent(a.assignment(), k -> new AssignmentReplay());
            if (!a.id().equals(r.current)) {
                violation(
                        Rule.ATTEMPT_ORDER,
                        "seq " + e.seq() + ": the fence of assignment " + a.assignment()
                                + " was stolen from attempt " + a.id() + ", which was not its current attempt ("
                                + r.current + ")");
            }
            r.current = null;
            r.stolen = a.id();
        }

        private void attemptEnded(Event e) {
            AttemptRow a = attempt(e);
            if (a == null) {
                return;
            }
            AssignmentReplay r = assignmentReplay.computeIfAbsent(a.assignment(), k -> new AssignmentReplay());
            boolean done = e.kind().equals("ATTEMPT_DONE");
            if (r.terminalAttempt != null) {
                violation(
                        Rule.TWO_TERMINAL_WRITES,
                        "seq " + e.seq() + ": " + e.kind() + " of assignment "
                                + a.assignment() + " by attempt " + a.id() + " after it already ended ("
                                + r.terminalKind
                                + " by attempt " + r.terminalAttempt + ")");
            }
            boolean current = a.id().equals(r.current) || (!done && r.current == null && a.id().equals(r.stolen));
            if (!current) {
                AttemptRow now = r.current == null ? null : attempts.get(r.current);
                violation(
                        Rule.ATTEMPT_ORDER,
                        "seq " + e.seq() + ": " + e.kind() + " of assignment " + a.assignment()
                                + " by attempt " + a.id() + " (token " + a.token() + ") while its current attempt is "
                                + (now == null ? "none" : now.id() + " (token " + now.token() + ")"));
            }
            if (done) {
                if (!a.process().equals(e.process())) {
                    violation(
                            Rule.ATTEMPT_ORDER,
                            "seq " + e.seq() + ": the terminal write of attempt " + a.id() + " of " + a.process()
                                    + " was made by " + e.process());
                }
                requireLease(e, a, "ended");
            }
            if (r.terminalAttempt == null) {
                r.terminalAttempt = a.id();
                r.terminalKind = e.kind();
            }
            r.current = null;
        }

        private void claimGranted(Event e) {
            MessageReplay m = messageReplay.computeIfAbsent(e.resourceId(), k -> new MessageReplay());
            Holder h = holders.get(e.actor());
            if (h == null || !h.process().equals(e.process())) {
                violation(
                        Rule.ACTOR_ORDER,
                        "seq " + e.seq() + ": message " + e.resourceId() + " was claimed for actor "
                                + e.actor() + " by " + e.process() + ", which does not host it (the lease is "
                                + describe(h)
                                + ")");
            }
            if (m.finishedAs != null) {
                violation(
                        Rule.MESSAGE_ORDER,
                        "seq " + e.seq() + ": message " + e.resourceId() + " was claimed after" + " it was finished ("
                                + m.finishedAs + ")");
            }
            if (m.claimToken != null && m.claimToken.equals(e.token())) {
                if (!e.process().equals(m.claimProcess)) {
                    violation(
                            Rule.MESSAGE_ORDER,
                            "seq " + e.seq() + ": " + e.process() + " re-claimed message " + e.resourceId()
                                    + " with token " + e.token() + " held by " + m.claimProcess);
                }
            } else {
                mint(e);
                if (e.token() != null && e.token() <= m.maxToken) {
                    violation(
                            Rule.MESSAGE_ORDER,
                            "seq " + e.seq() + ": message " + e.resourceId() + " was claimed with token " + e.token()
                                    + " after token " + m.maxToken);
                }
            }
            if (e.token() != null) {
                m.maxToken = Math.max(m.maxToken, e.token());
            }
            m.claimToken = e.token();
            m.claimProcess = e.process();
            m.claimActor = e.actor();
        }

        private void claimSwept(Event e) {
            MessageReplay m = messageReplay.computeIfAbsent(e.resourceId(), k -> new MessageReplay());
            if (m.claimToken == null || !m.claimToken.equals(e.token()) || m.finishedAs != null) {
                violation(
                        Rule.MESSAGE_ORDER,
                        "seq " + e.seq() + ": the sweep of message " + e.resourceId()
                                + " removed token " + e.token() + " while its claim is "
                                + (m.finishedAs != null ? "finished" : m.claimToken));
            }
            m.claimToken = null;
            m.claimProcess = null;
            m.claimActor = null;
        }

        private void messageFinished(Event e) {
            MessageReplay m = messageReplay.computeIfAbsent(e.resourceId(), k -> new MessageReplay());
            if (m.finishedAs != null) {
                violation(
                        Rule.MESSAGE_FINISHED_TWICE,
                        "seq " + e.seq() + ": message " + e.resourceId() + " got "
                                + e.kind() + " by " + e.process() + " with token " + e.token() + " after "
                                + m.finishedAs
                                + " with token " + m.finishedToken);
            } else if (m.claimToken == null
                    || !m.claimToken.equals(e.token())
                    || !e.process().equals(m.claimProcess)) {
                violation(
                        Rule.MESSAGE_FINISHED_BY_NON_HOLDER,
                        "seq " + e.seq() + ": message " + e.resourceId()
                                + " got " + e.kind() + " by " + e.process() + " with token " + e.token()
                                + " while its claim is "
                                + (m.claimToken == null ? "none" : "token " + m.claimToken + " of " + m.claimProcess));
            } else {
                Holder h = holders.get(m.claimActor);
                if (h == null || !h.process().equals(e.process())) {
                    violation(
                            Rule.MESSAGE_FINISHED_BY_NON_HOLDER,
                            "seq " + e.seq() + ": message " + e.resourceId()
                                    + " got " + e.kind() + " by " + e.process() + ", which no longer hosts actor "
                                    + m.claimActor + " (the lease is " + describe(h) + ")");
                }
            }
            if (e.kind().equals("MESSAGE_RETRIED")) {
                m.claimToken = null;
                m.claimProcess = null;
                m.claimActor = null;
            } else if (m.finishedAs == null) {
                m.finishedAs = e.kind();
                m.finishedToken = e.token() == null ? 0 : e.token();
            }
        }

        // ---- 2. receipts against attempts, assignments and the journal ----

        private void checkReceipts() {
            Map<String, List<ReceiptRow>> byAssignment = new LinkedHashMap<>();
            ledger.receipts()
                    .forEach(r -> byAssignment
                            .computeIfAbsent(r.assignment(), k -> new ArrayList<>())
                            .add(r));
            byAssignment.forEach((assignment, receipts) -> {
                if (receipts.size() > 1) {
                    violation(
                            Rule.TWO_RECEIPTS,
                            "assignment " + assignment + " has " + receipts.size() + " receipts: "
                                    + receipts.stream().map(ReceiptRow::attempt).toList());
                }
            });
            for (ReceiptRow r : ledger.receipts()) {
                AttemptRow a = attempts.get(r.attempt());
                AssignmentRow x = assignments.get(r.assignment());
                AssignmentReplay replay = assignmentReplay.get(r.assignment());
                if (a == null || x == null || !a.assignment().equals(r.assignment()) || a.token() != r.attemptToken()) {
                    violation(
                            Rule.RECEIPT_MISMATCH,
                            "receipt " + r.id() + " names assignment " + r.assignment() + " and attempt " + r.attempt()
                                    + " (token " + r.attemptToken() + "), which do not match");
                    continue;
                }
                boolean recovered = "worker_lost".equals(r.failureCategory()) && !r.outcomeKnown();
                String attemptState = recovered ? "RECOVERED" : "DONE";
                if (!a.state().equals(attemptState)) {
                    violation(
                            Rule.RECEIPT_MISMATCH,
                            "receipt " + r.id() + " of assignment " + r.assignment() + " names attempt " + a.id()
                                    + ", which is " + a.state() + ", not " + attemptState);
                }
                String state = r.status().toUpperCase(Locale.ROOT);
                if (!x.state().equals(state)) {
                    violation(
                            Rule.RECEIPT_MISMATCH,
                            "receipt " + r.id() + " says " + r.status() + " but assignment " + x.id() + " is "
                                    + x.state());
                }
                if (replay == null || !a.id().equals(replay.terminalAttempt)) {
                    violation(
                            Rule.RECEIPT_MISMATCH,
                            "receipt " + r.id() + " of assignment " + r.assignment()
                                    + " names attempt " + a.id() + " but the journal's terminal write is by "
                                    + (replay == null ? "none" : replay.terminalAttempt));
                }
            }
            for (AssignmentRow x : ledger.assignments()) {
                boolean terminal = Set.of("COMPLETED", "BLOCKED", "FAILED").contains(x.state());
                if (terminal && !byAssignment.containsKey(x.id())) {
                    violation(
                            Rule.RECEIPT_MISMATCH,
                            "assignment " + x.id() + " ended " + x.state() + " without a receipt");
                }
                AssignmentReplay replay = assignmentReplay.get(x.id());
                if (!terminal && replay != null && replay.terminalAttempt != null) {
                    violation(
                            Rule.LEDGER_MISMATCH,
                            "assignment " + x.id() + " is " + x.state() + " but the journal ended it ("
                                    + replay.terminalKind + ")");
                }
            }
        }

        // ---- 2b. the files: a canonical output folder holds only its own attempt's result ----

        private void checkOutputs() {
            for (OutputFolders.Folder f : outputs.folders()) {
                for (OutputFolders.Mark m : f.marks()) {
                    if (!m.attempt().equals(f.attempt()) || m.token() != f.attemptToken()) {
                        violation(
                                Rule.FOREIGN_OUTPUT,
                                "receipt " + f.receipt() + " of assignment " + f.assignment()
                                        + " names attempt " + f.attempt() + " (token " + f.attemptToken()
                                        + "), but its output"
                                        + " folder " + f.dir() + " holds, in " + m.file() + ", the result of attempt "
                                        + m.attempt() + " (token " + m.token() + ")");
                    }
                }
            }
        }

        // ---- 3. what the final supervisor tick must have left ----

        private void checkFinalState() {
            for (AssignmentRow x : ledger.assignments()) {
                if (!x.state().equals("RUNNING")) {
                    continue;
                }
                AttemptRow a = x.currentAttempt() == null ? null : attempts.get(x.currentAttempt());
                boolean live = a != null && a.state().equals("ACTIVE") && a.expiresAt() > finalNow;
                if (!live) {
                    violation(
                            Rule.STUCK_RUN,
                            "assignment " + x.id() + " is RUNNING with "
                                    + (a == null
                                            ? "no current attempt"
                                            : "attempt " + a.id() + " " + a.state() + " expiring at " + a.expiresAt())
                                    + " after the final tick at " + finalNow);
                }
            }
            for (AttemptRow a : ledger.attempts()) {
                if (a.state().equals("ACTIVE") && a.expiresAt() <= finalNow) {
                    violation(
                            Rule.LEFTOVER,
                            "attempt " + a.id() + " of assignment " + a.assignment()
                                    + " is still ACTIVE although it expired before the final tick");
                }
            }
            for (MessageRow m : ledger.messages()) {
                if (m.state().equals("CLAIMED") && m.claimExpiresAt() != null && m.claimExpiresAt() <= finalNow) {
                    violation(
                            Rule.LEFTOVER,
                            "message " + m.id() + " is still CLAIMED (token " + m.claimToken()
                                    + ") although its claim expired before the final tick");
                }
                MessageReplay replay = messageReplay.get(m.id());
                boolean finished = m.state().equals("DONE") || m.state().equals("DEAD");
                String replayed = replay == null ? null : replay.finishedAs;
                if (finished != (replayed != null)
                        || (finished && !("MESSAGE_" + m.state()).equals(replayed))
                        || (finished && !Objects.equals(m.claimToken(), replay.finishedToken))) {
                    violation(
                            Rule.LEDGER_MISMATCH,
                            "message " + m.id() + " is " + m.state() + " with token "
                                    + m.claimToken() + " but the journal says "
                                    + (replayed == null
                                            ? "unfinished"
                                            : replayed + " with token " + replay.finishedToken));
                }
            }
        }

        // ---- 4. every process's calls against the ledger ----

        private final Map<String, Integer> unconsumed = new HashMap<>();

        private static String key(Object... parts) {
            StringBuilder b = new StringBuilder();
            for (Object p : parts) {
                b.append(p).append('|');
            }
            return b.toString();
        }

        private boolean consume(String key) {
            Integer n = unconsumed.get(key);
            if (n == null || n == 0) {
                return false;
            }
            unconsumed.put(key, n - 1);
            return true;
        }

        private void checkHistories() {
            for (Event e : ledger.events()) {
                if (e.kind().equals("REJECTED")) {
                    unconsumed.merge(
                            key("REJECTED", e.resourceType(), e.resourceId(), e.process(), e.category(), e.presented()),
                            1,
                            Integer::sum);
                } else {
                    unconsumed.merge(key(e.kind(), e.resourceId(), e.token(), e.process()), 1, Integer::sum);
                    unconsumed.merge(key(e.kind(), e.resourceId(), "*", e.process()), 1, Integer::sum);
                }
            }
            // a refused acquire of a live lease beyond its window's first is counted, not journalled (decision
            // 0019): each counted refusal stands for the row it would have had
            for (Ledger.ContentionRow w : ledger.contention()) {
                if (w.refusals() > 1) {
                    unconsumed.merge(
                            key("REJECTED", "actor", w.actor(), w.process(), "actor_lease_held", null),
                            (int) (w.refusals() - 1),
                            Integer::sum);
                }
            }
            Map<String, Long> releasedUpTo = new HashMap<>();
            for (Event e : ledger.events()) {
                if (e.kind().equals("LEASE_RELEASED") && e.token() != null) {
                    releasedUpTo.merge(e.resourceId(), e.token(), Math::max);
                }
            }
            for (HistoryOp op : ops) {
                if (op.isCrash(expectedInfo)) {
                    violation(Rule.CRASH, op.toString());
                }
                if (op.outcome() == Outcome.OK) {
                    checkAcknowledged(op);
                } else if (op.outcome() == Outcome.FAIL && !isRefusedRelease(op) && !reportedJournalMissing(op)) {
                    checkRefused(op);
                }
            }
            // A refused release is journalled only when a lease row was left to protect, so it may not
            // claim a REJECTED row before every refusal that is always journalled has had its own.
            for (HistoryOp op : ops) {
                if (op.outcome() == Outcome.FAIL && isRefusedRelease(op)) {
                    checkRefusedRelease(op, releasedUpTo);
                }
            }
            // A refusal that said its REJECTED row could not be written claims a row last, if one is left (its
            // write may have committed although its outcome was unknown): taken earlier, it would take the row of
            // a later refusal with the same key (same process, resource, category, presented token), which would
            // then look silent. Found by the first long run on PostgreSQL (decision 0908).
            for (HistoryOp op : ops) {
                if (op.outcome() == Outcome.FAIL && !isRefusedRelease(op) && reportedJournalMissing(op)) {
                    checkRefused(op);
                }
            }
            checkExplained();
        }

        private void lost(HistoryOp op, String what) {
            violation(Rule.LOST_ACK, op + ": " + what);
        }

        private void checkAcknowledged(HistoryOp op) {
            String p = op.process();
            switch (op.op()) {
                case "acquire" -> {
                    Long token = op.resultLong("token");
                    if (!consume(key("LEASE_ACQUIRED", op.arg("actor"), token, p))
                            && !consume(key("LEASE_TAKEN_OVER", op.arg("actor"), token, p))) {
                        lost(op, "no LEASE_ACQUIRED or LEASE_TAKEN_OVER with token " + token);
                    }
                }
                case "renew" -> {
                    if (!consume(key("LEASE_RENEWED", op.arg("actor"), op.argLong("token"), p))) {
                        lost(op, "no LEASE_RENEWED");
                    }
                }
                case "release" -> {
                    if (!consume(key("LEASE_RELEASED", op.arg("actor"), op.argLong("token"), p))) {
                        lost(op, "no LEASE_RELEASED");
                    }
                }
                case "send" -> {
                    String m = op.result("message");
                    if (!messages.containsKey(m) || !consume(key("MESSAGE_SENT", m, null, p))) {
                        lost(op, "message " + m + " or its MESSAGE_SENT is missing");
                    }
                }
                case "claim" -> {
                    if (!consume(key("CLAIM_GRANTED", op.arg("message"), op.resultLong("token"), p))) {
                        lost(op, "no CLAIM_GRANTED with token " + op.resultLong("token"));
                    }
                }
                case "complete", "dead_letter" -> {
                    String m = op.arg("message");
                    String kind = op.op().equals("complete")
                            ? "MESSAGE_DONE"
                            : "DEAD".equals(op.result("state")) ? "MESSAGE_DEAD" : "MESSAGE_RETRIED";
                    if (!consume(key(kind, m, op.argLong("token"), p))) {
                        lost(op, "no " + kind);
                    }
                    MessageRow row = messages.get(m);
                    if (!kind.equals("MESSAGE_RETRIED")
                            && (row == null
                                    || !row.state().equals(kind.substring(8))
                                    || !Objects.equals(row.claimToken(), op.argLong("token")))) {
                        lost(
                                op,
                                "message " + m + " is "
                                        + (row == null ? "missing" : row.state() + " with token " + row.claimToken()));
                    }
                }
                case "assign" -> {
                    if (!assignments.containsKey(op.result("assignment"))) {
                        lost(op, "assignment " + op.result("assignment") + " is missing");
                    }
                }
                case "run" -> checkRunAcknowledged(op);
                case "retry" -> {
                    AssignmentRow x = assignments.get(op.result("assignment"));
                    if (x == null || !op.arg("assignment").equals(x.retryOf())) {
                        lost(op, "the retry " + op.result("assignment") + " is missing");
                    }
                }
                case "acknowledge" -> {
                    AssignmentRow x = assignments.get(op.arg("assignment"));
                    if (x == null || x.acknowledgedAt() == null) {
                        lost(op, "assignment " + op.arg("assignment") + " is not acknowledged");
                    }
                }
                case "steal" -> {
                    if (!consume(key("ATTEMPT_STOLEN", op.result("attempt"), op.resultLong("attempt_token"), p))) {
                        lost(op, "no ATTEMPT_STOLEN");
                    }
                }
                case "tick" -> {
                    @SuppressWarnings("unchecked")
                    List<Map<String, Object>> recovered =
                            (List<Map<String, Object>>) op.detail().getOrDefault("recovered", List.of());
                    for (Map<String, Object> r : recovered) {
                        if (!consume(key(
                                "ATTEMPT_RECOVERED", r.get("attempt"), HistoryOp.toLong(r.get("attempt_token")), p))) {
                            lost(op, "no ATTEMPT_RECOVERED of " + r.get("attempt"));
                        }
                    }
                    @SuppressWarnings("unchecked")
                    List<Object> swept = (List<Object>) op.detail().getOrDefault("swept", List.of());
                    for (Object m : swept) {
                        if (!consume(key("CLAIM_SWEPT", m, "*", p))) {
                            lost(op, "no CLAIM_SWEPT of " + m);
                        }
                    }
                }
                default -> {}
            }
        }

        private void checkRunAcknowledged(HistoryOp op) {
            String attempt = op.result("attempt");
            if (!consume(key("ATTEMPT_DONE", attempt, op.resultLong("attempt_token"), op.process()))) {
                lost(op, "no ATTEMPT_DONE of attempt " + attempt);
            }
            ReceiptRow receipt = ledger.receipts().stream()
                    .filter(r -> r.attempt().equals(attempt))
                    .findFirst()
                    .orElse(null);
            if (receipt == null || !receipt.status().equals(op.result("status"))) {
                lost(
                        op,
                        "the receipt of attempt " + attempt + " is "
                                + (receipt == null ? "missing" : receipt.status()));
            }
            AssignmentRow x = assignments.get(op.arg("assignment"));
            if (x == null || !x.state().equals(op.result("state"))) {
                lost(op, "assignment " + op.arg("assignment") + " is " + (x == null ? "missing" : x.state()));
            }
        }

        private static boolean isRefusedRelease(HistoryOp op) {
            return "lease_not_released".equals(op.category());
        }

        private void checkRefusedRelease(HistoryOp op, Map<String, Long> releasedUpTo) {
            String actor = op.arg("actor");
            Long token = op.argLong("token");
            boolean journalled = consume(key("REJECTED", "actor", actor, op.process(), "actor_lease_lost", token));
            // Not journalled only when there was no lease row left to protect: it had been released.
            boolean noRowLeft = releasedUpTo.getOrDefault(actor, Long.MIN_VALUE) >= token;
            if (!journalled && !noRowLeft) {
                violation(Rule.MISSING_REJECTION, op + ": a refused release with no REJECTED row");
            }
        }

        private static boolean reportedJournalMissing(HistoryOp op) {
            return "true".equals(op.result("journal_missing"));
        }

        private void checkRefused(HistoryOp op) {
            String category = op.category();
            String p = op.process();
            boolean fencing = RefusalCategory.fromCode(category)
                    .map(RefusalCategory::isFencing)
                    .orElse(false);
            if (!fencing) {
                return;
            }
            String type = op.result("resource_type") == null ? "actor" : op.result("resource_type");
            String id = op.result("resource_id") == null ? "?" : op.result("resource_id");
            if (!consume(key("REJECTED", type, id, p, category, op.resultLong("presented")))
                    && !"true".equals(op.result("journal_missing"))) {
                // A refusal that told its caller its REJECTED row could not be written (the database stayed
                // busy past the bound) is reported, not hidden (decision 0109); only a silent one is a violation.
                violation(
                        Rule.MISSING_REJECTION,
                        op + ": no REJECTED row (" + type + " " + id + ", " + category + ", presented "
                                + op.resultLong("presented") + ")");
            }
        }

        /**
         * Every message finish, claim, lease grant and terminal write by a process with a history is
         * explained by one of its calls that was not refused. A call refused (FAIL) must have written
         * nothing.
         */
        private void checkExplained() {
            Set<String> withHistory = new HashSet<>();
            Map<String, Integer> explainers = new HashMap<>();
            for (HistoryOp op : ops) {
                withHistory.add(op.process());
                String p = op.process();
                switch (op.op()) {
                    case "complete" -> {
                        if (op.mayHaveWritten()) {
                            explainers.merge(key("finish-done", op.arg("message"), p), 1, Integer::sum);
                        }
                    }
                    case "dead_letter" -> {
                        if (op.mayHaveWritten()) {
                            explainers.merge(key("finish-dead", op.arg("message"), p), 1, Integer::sum);
                        }
                    }
                    case "claim" -> {
                        if (op.mayHaveWritten()) {
                            explainers.merge(key("claim", op.arg("message"), p), 1, Integer::sum);
                        }
                    }
                    case "acquire" -> {
                        if (op.mayHaveWritten()) {
                            explainers.merge(key("lease", op.arg("actor"), p), 1, Integer::sum);
                        }
                    }
                    case "run" -> {
                        // a run takes the lease first and may be refused after that
                        explainers.merge(key("lease", op.arg("actor"), p), 1, Integer::sum);
                        if (op.mayHaveWritten()) {
                            explainers.merge(key("terminal", op.arg("assignment"), p), 1, Integer::sum);
                        }
                    }
                    case "steal" -> {
                        if (op.mayHaveWritten()) {
                            explainers.merge(key("steal", op.arg("assignment"), p), 1, Integer::sum);
                        }
                    }
                    default -> {}
                }
            }
            Map<String, Integer> writes = new LinkedHashMap<>();
            for (Event e : ledger.events()) {
                if (e.process() == null || !withHistory.contains(e.process())) {
                    continue;
                }
                String k = switch (e.kind()) {
                    case "MESSAGE_DONE" -> key("finish-done", e.resourceId(), e.process());
                    case "MESSAGE_DEAD", "MESSAGE_RETRIED" -> key("finish-dead", e.resourceId(), e.process());
                    case "CLAIM_GRANTED" -> key("claim", e.resourceId(), e.process());
                    case "LEASE_ACQUIRED", "LEASE_TAKEN_OVER" -> key("lease", e.resourceId(), e.process());
                    case "ATTEMPT_DONE" ->
                        attempts.containsKey(e.resourceId())
                                ? key("terminal", attempts.get(e.resourceId()).assignment(), e.process())
                                : null;
                    case "ATTEMPT_STOLEN" ->
                        attempts.containsKey(e.resourceId())
                                ? key("steal", attempts.get(e.resourceId()).assignment(), e.process())
                                : null;
                    default -> null;
                };
                if (k != null) {
                    writes.merge(k, 1, Integer::sum);
                }
            }
            writes.forEach((k, n) -> {
                int explained = explainers.getOrDefault(k, 0);
                if (n > explained) {
                    violation(
                            Rule.UNEXPLAINED_WRITE,
                            n + " write(s) " + k + " in the journal, but only " + explained
                                    + " call(s) of that process that were not refused");
                }
            });
        }

        // ---- 5. real time: a call that started after another ended sees its token or a newer one ----

        private record TokenUse(String key, Long token, HistoryOp op, boolean strict, Rule rule) {}

        /** The key of the counter row that minted {@code token}: the order of mints is owed per row. */
        private String minted(Long token) {
            return token == null ? "minted" : "minted on row " + Math.floorMod(token, (long) tokenRows);
        }

        private void checkRealTimeOrder() {
            List<TokenUse> uses = new ArrayList<>();
            for (HistoryOp op : ops) {
                if (op.outcome() != Outcome.OK) {
                    continue;
                }
                switch (op.op()) {
                    case "acquire" -> {
                        uses.add(new TokenUse(
                                "actor " + op.arg("actor"), op.resultLong("token"), op, false, Rule.ACTOR_ORDER));
                        uses.add(new TokenUse(
                                minted(op.resultLong("token")),
                                op.resultLong("token"),
                                op,
                                true,
                                Rule.TOKEN_NOT_INCREASING));
                    }
                    case "renew", "release" ->
                        uses.add(new TokenUse(
                                "actor " + op.arg("actor"), op.argLong("token"), op, false, Rule.ACTOR_ORDER));
                    case "claim" ->
                        uses.add(new TokenUse(
                                "message " + op.arg("message"), op.resultLong("token"), op, false, Rule.MESSAGE_ORDER));
                    case "complete", "dead_letter" ->
                        uses.add(new TokenUse(
                                "message " + op.arg("message"), op.argLong("token"), op, false, Rule.MESSAGE_ORDER));
                    case "run" -> {
                        uses.add(new TokenUse(
                                "actor " + op.arg("actor"), op.resultLong("lease_token"), op, false, Rule.ACTOR_ORDER));
                        uses.add(new TokenUse(
                                "assignment " + op.arg("assignment"),
                                op.resultLong("attempt_token"),
                                op,
                                false,
                                Rule.ATTEMPT_ORDER));
                        uses.add(new TokenUse(
                                minted(op.resultLong("attempt_token")),
                                op.resultLong("attempt_token"),
                                op,
                                true,
                                Rule.TOKEN_NOT_INCREASING));
                    }
                    case "steal" ->
                        uses.add(new TokenUse(
                                "assignment " + op.arg("assignment"),
                                op.resultLong("attempt_token"),
                                op,
                                false,
                                Rule.ATTEMPT_ORDER));
                    default -> {}
                }
            }
            Map<String, List<TokenUse>> byKey = new LinkedHashMap<>();
            uses.removeIf(u -> u.token() == null);
            uses.forEach(
                    u -> byKey.computeIfAbsent(u.key(), k -> new ArrayList<>()).add(u));
            for (List<TokenUse> list : byKey.values()) {
                List<TokenUse> byInvoke = new ArrayList<>(list);
                byInvoke.sort(Comparator.comparingLong(u -> u.op().invokedUs()));
                List<TokenUse> byCompletion = new ArrayList<>(list);
                byCompletion.sort(Comparator.comparingLong(u -> u.op().completedUs()));
                int next = 0;
                TokenUse highest = null;
                for (TokenUse b : byInvoke) {
                    while (next < byCompletion.size()
                            && byCompletion.get(next).op().completedUs() < b.op().invokedUs()) {
                        TokenUse a = byCompletion.get(next++);
                        if (highest == null || a.token() > highest.token()) {
                            highest = a;
                        }
                    }
                    long before = highest == null ? Long.MIN_VALUE : highest.token();
                    if (before > b.token() || (b.strict() && before == b.token())) {
                        violation(
                                b.rule(),
                                b.key() + ": " + b.op() + " used token " + b.token() + " although " + highest.op()
                                        + " had already ended with token " + highest.token());
                    }
                }
            }
        }
    }
}
