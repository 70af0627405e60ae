package dev.sovereign.engine.admin;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * True totals, counted by the database in the same read transaction as the snapshot's rows, so a
 * page never reports the size of its capped row list as the size of the ledger. Immutable.
 *
 * @param assignments   every assignment
 * @param running       assignments in state {@code RUNNING}
 * @param needsOperator runs that ended FAILED or BLOCKED that nobody retried or acknowledged
 *                      ({@link AssignmentRow#needsOperator()})
 * @param messagesNew   mailbox messages in state {@code NEW}; likewise claimed, done and dead
 * @param rejections    every {@code REJECTED} journal event (refused writes), or 0 where not counted
 * @param assignmentsByState  assignments per state ({@code CREATED}, {@code RUNNING}, ...), only the states
 *                            that occur; empty where not counted
 * @param rejectionsByCategory refused writes per refusal category ({@code fencing_token_stale}, ...), only
 *                            the categories that occur; empty where not counted
 * @param repeats       the refusals of a live lease repeated in their ten-minute window (decision 0019), by the seq
 *                      of the journal row that opened the window: the recent windows (the last day of them) whose
 *                      process was refused more than once; empty where not counted
 */
public record LedgerCounts(
        long assignments,
        long running,
        long needsOperator,
        long messagesNew,
        long messagesClaimed,
        long messagesDone,
        long messagesDead,
        long rejections,
        Map<String, Long> assignmentsByState,
        Map<String, Long> rejectionsByCategory,
        Map<Long, Repeat> repeats) {

    /** No rows at all. */
    public static final LedgerCounts NONE = new LedgerCounts(0, 0, 0, 0, 0, 0, 0, 0);

    /** How often one process was refused a live lease in one window, and the last time (epoch ms). */
    public record Repeat(long refusals, long lastAt) {}

    public LedgerCounts {
        assignmentsByState = Map.copyOf(assignmentsByState);
        rejectionsByCategory = Map.copyOf(rejectionsByCategory);
        repeats = Map.copyOf(repeats);
    }

    /** The totals and the per-state and per-category counts, without repeats (an adapter that does not count them). */
    public LedgerCounts(
            long assignments,
            long running,
            long needsOperator,
            long messagesNew,
            long messagesClaimed,
            long messagesDone,
            long messagesDead,
            long rejections,
            Map<String, Long> assignmentsByState,
            Map<String, Long> rejectionsByCategory) {
        this(
                assignments,
                running,
                needsOperator,
                messagesNew,
                messagesClaimed,
                messagesDone,
                messagesDead,
                rejections,
                assignmentsByState,
                rejectionsByCategory,
                Map.of());
    }

    /** Totals without the per-state and per-category counts (an adapter that does not count them). */
    public LedgerCounts(
            long assignments,
            long running,
            long needsOperator,
            long messagesNew,
            long messagesClaimed,
            long messagesDone,
            long messagesDead,
            long rejections) {
        this(
                assignments,
                running,
                needsOperator,
                messagesNew,
                messagesClaimed,
                messagesDone,
                messagesDead,
                rejections,
                Map.of(),
                Map.of());
    }

    /** Assignments in {@code state}, 0 when none (or not counted). */
    public long assignmentsIn(String state) {
        return assignmentsByState.getOrDefault(state, 0L);
    }

    /** Refused writes of {@code category}, 0 when none (or not counted). */
    public long rejectionsOf(String category) {
        return rejectionsByCategory.getOrDefault(category, 0L);
    }

    /**
     * Counted from rows that are known to be all there is (tests and benchmarks building snapshots by
     * hand); rejections are not among the rows, so they count 0.
     */
    public static LedgerCounts of(List<AssignmentRow> assignments, List<MessageRow> messages) {
        long[] m = new long[4];
        for (MessageRow r : messages) {
            switch (r.state()) {
                case "NEW" -> m[0]++;
                case "CLAIMED" -> m[1]++;
                case "DONE" -> m[2]++;
                case "DEAD" -> m[3]++;
                default -> {}
            }
        }
        Map<String, Long> byState = new TreeMap<>();
        assignments.forEach(a -> byState.merge(a.state(), 1L, Long::sum));
        return new LedgerCounts(
                assignments.size(),
                assignments.stream().filter(a -> a.state().equals("RUNNING")).count(),
                assignments.stream().filter(AssignmentRow::needsOperator).count(),
                m[0],
                m[1],
                m[2],
                m[3],
                0,
                byState,
                Map.of());
    }

    /** Every mailbox message. */
    public long messages() {
        return messagesNew + messagesClaimed + messagesDone + messagesDead;
    }
}
