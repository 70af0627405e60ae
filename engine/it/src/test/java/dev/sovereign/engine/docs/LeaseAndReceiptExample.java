package dev.sovereign.engine.docs;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.base.Refusal;
import dev.sovereign.engine.base.RefusalCategory;
import dev.sovereign.engine.lease.Lease;
import dev.sovereign.engine.run.Receipt;
import java.time.Duration;

/** Holding an actor's lease directly, and reading the receipt that says how a run ended. */
public final class LeaseAndReceiptExample {
    private LeaseAndReceiptExample() {}

    /** Hosts actor "reporter" for one piece of work, fenced by the lease's token. */
    public static String hostOnce(Engine engine) {
        Lease lease;
        try {
            lease = engine.leases().acquire("reporter", Duration.ofSeconds(30));
        } catch (Refusal refusal) {
            if (refusal.category() == RefusalCategory.ACTOR_LEASE_HELD) {
                // Contention is normal: another process hosts it; its token is in the refusal.
                return "hosted elsewhere with token " + refusal.currentToken();
            }
            throw refusal;
        }
        try {
            // The engine's heartbeat renews the lease while we work. Hand lease.token() to anything
            // that must refuse a stale writer (a fencing token only ever grows).
            return "hosted with token " + lease.token() + " until " + lease.expiresAt();
        } finally {
            engine.leases().release("reporter", lease.token()); // compare-and-set: never a newer holder's
        }
    }

    /** How an assignment ended, from its receipt: the only proof of completion. */
    public static String outcome(Engine engine, String assignmentId) {
        return engine.runs()
                .receipt(assignmentId)
                .map(LeaseAndReceiptExample::describe)
                .orElseGet(() -> "no receipt yet, the assignment is "
                        + engine.runs()
                                .get(assignmentId)
                                .map(a -> a.state().name())
                                .orElse("missing"));
    }

    private static String describe(Receipt r) {
        return r.status().code()
                + (r.failureCategory() == null ? "" : " (" + r.failureCategory() + ")")
                + " by attempt " + r.attemptId() + " with token " + r.attemptToken()
                + (r.outcomeKnown() ? "" : "; the outcome is unknown (the worker was lost)");
    }
}
