package dev.sovereign.engine.reliability.fuzz;

/**
 * What one fuzzed call did, as its target judged it.
 *
 * @param call          the call, for the failure message (inputs shortened)
 * @param maxRejections for REFUSED: how many {@code REJECTED} journal rows the refusal may add (1 for a
 *                      fencing refusal, which the engine journals; 0 otherwise)
 */
public record Verdict(String call, Kind kind, String detail, int maxRejections) {
    public enum Kind {
        /** A write that succeeded: the ledger may change. */
        ACCEPTED,
        /** A read that succeeded: the ledger must not change. */
        READ,
        /** A clear refusal: the ledger must not change (apart from its REJECTED row). */
        REFUSED,
        /** Anything else: an exception that is not a refusal, a stack trace, a wrong exit code. */
        CRASHED
    }

    public static Verdict accepted(String call) {
        return new Verdict(call, Kind.ACCEPTED, "", 0);
    }

    public static Verdict read(String call) {
        return new Verdict(call, Kind.READ, "", 0);
    }

    public static Verdict refused(String call, String why, int maxRejections) {
        return new Verdict(call, Kind.REFUSED, why, maxRejections);
    }

    public static Verdict crashed(String call, String what) {
        return new Verdict(call, Kind.CRASHED, what, 0);
    }
}
