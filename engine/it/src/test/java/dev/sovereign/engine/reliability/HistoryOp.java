package dev.sovereign.engine.reliability;

import java.util.Map;
import java.util.Set;

/**
 * One call in a process's history, paired from its {@code invoke} line and its completion line.
 *
 * @param args        what was asked (the presented token among them)
 * @param detail      for OK the result; for FAIL the refusal (category, resource_type, resource_id,
 *                    presented, current); for INFO the reason and error; empty for UNKNOWN
 * @param invokedUs   real time before the call, epoch microseconds
 * @param completedUs real time after it, or {@link Long#MAX_VALUE} when it never completed (killed)
 */
public record HistoryOp(
        String worker,
        String process,
        long id,
        String op,
        Map<String, Object> args,
        long invokedUs,
        Outcome outcome,
        Map<String, Object> detail,
        long completedUs) {

    /** How a call ended, as its process saw it. */
    public enum Outcome {
        /** It returned: its write (if any) committed. */
        OK,
        /** It was refused: nothing it would have written was written. */
        FAIL,
        /** It ended with an error whose effect is unknown (busy past the bound, or something worse). */
        INFO,
        /** It never completed: the process was killed (or stopped) during the call. */
        UNKNOWN
    }

    public String arg(String key) {
        Object v = args.get(key);
        return v == null ? null : v.toString();
    }

    public Long argLong(String key) {
        return toLong(args.get(key));
    }

    public String result(String key) {
        Object v = detail.get(key);
        return v == null ? null : v.toString();
    }

    public Long resultLong(String key) {
        return toLong(detail.get(key));
    }

    /** For FAIL: the refusal category code. */
    public String category() {
        return result("category");
    }

    /** For INFO: busy is expected under a rogue lock; any other reason is a crash. */
    public boolean isCrash() {
        return isCrash(Set.of("busy"));
    }

    /**
     * For INFO: a crash unless its reason is one the run expects — busy always; on a server whose connections the
     * nemesis kills, also a lost connection ({@code storage_IO}) and a commit whose outcome is unknown
     * ({@code storage_COMMIT_OUTCOME_UNKNOWN}): the engine said it does not know, which is its contract (contract §15).
     */
    public boolean isCrash(Set<String> expectedReasons) {
        return outcome == Outcome.INFO && !expectedReasons.contains(result("reason"));
    }

    /** Whether the call may have written: it was not refused. */
    public boolean mayHaveWritten() {
        return outcome != Outcome.FAIL;
    }

    public boolean completedBefore(HistoryOp other) {
        return completedUs < other.invokedUs;
    }

    static Long toLong(Object v) {
        if (v == null) {
            return null;
        }
        if (v instanceof Number n) {
            return n.longValue();
        }
        return Long.parseLong(v.toString());
    }

    @Override
    public String toString() {
        return worker + "/" + process + "#" + id + " " + op + args + " -> " + outcome + detail;
    }
}
