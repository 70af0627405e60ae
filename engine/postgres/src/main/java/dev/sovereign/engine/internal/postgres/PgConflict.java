package dev.sovereign.engine.internal.postgres;

/**
 * A compare-and-set matched no row although the rows it depends on were locked and read in the same
 * transaction: another transaction changed them in a way the lock order did not exclude. Not a refusal
 * and not a broken ledger: {@link PgDatabase#write} rolls back and runs the whole transaction again,
 * re-reading everything (as on a deadlock), within its bound. Immutable.
 */
final class PgConflict extends RuntimeException {
    private static final long serialVersionUID = 1L;

    PgConflict(String what) {
        super(what, null, false, false);
    }
}
