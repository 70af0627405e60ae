package dev.sovereign.engine.internal.jdbc;

import dev.sovereign.engine.base.Refusal;

/**
 * A backend's door as the shared stores use it: one write transaction or one read at a time, under this engine's
 * process identity. The backend decides how (SQLite's group commit and busy retries, PostgreSQL's row locks and
 * serialisation retries); a store states only what one transaction does. Thread-safe.
 */
public interface Transactions {
    /** Runs {@code work} in one write transaction; a {@link Refusal} it throws rolls the work back and is rethrown. */
    <T> T write(TxWork<T> work);

    /** Runs a read (each statement sees the latest committed state). */
    <T> T read(TxWork<T> work);

    /** This engine's process identity. */
    String processIdentity();

    /** Sets the identity this engine writes as, once its process row is registered (or claimed). */
    void setProcessIdentity(String identity);

    /**
     * Refuses, rolling back the transaction it runs in, a token counter read at {@code counter} that is below a
     * token this engine saw committed: the ledger went backwards (decision 0605). The heartbeat reads the counter
     * with its session row, so an engine that only beats still finds out.
     */
    void requireCounterNotBelowSeen(long counter);

    /** Journals a refusal as a {@code REJECTED} fence event in its own transaction. */
    void journalRejection(Refusal r);

    /**
     * Journals a refusal, but a storage failure of that journal write does not replace the refusal: it comes back
     * carrying a warning that its row is missing (decision 0109).
     */
    Refusal journalRejectionOrWarn(Refusal r);

    /** Whether this ledger was created as a lab sandbox (the lab's broken-fence switch is honoured only there). */
    boolean isLabSandbox();

    /** Runs {@code registration} inside this engine's first write that commits, before its own statements (0304). */
    void registerWithFirstWrite(TxWork<?> registration);

    /** Whether this process's row is written (always, for an engine that registered when it opened). */
    boolean isRegistered();

    /** The claim this engine acts under (decision 0802), or null. */
    IdentityClaim claim();

    /** From now on this engine acts under {@code claim} (decision 0802); the claim is journalled with its first change. */
    void setClaim(IdentityClaim claim);
}
