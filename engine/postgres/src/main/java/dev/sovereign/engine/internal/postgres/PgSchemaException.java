package dev.sovereign.engine.internal.postgres;

/**
 * A PostgreSQL ledger that cannot be opened, with one sentence for the user (no stack trace is meant
 * for them). The adapter built on this module later turns it into the core's {@code StorageException}
 * with the same {@link Problem} names (exit code 3 in the CLI).
 */
public final class PgSchemaException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** What is wrong, as the core's {@code StorageException.Problem} names it where it has a name. */
    public enum Problem {
        /** The database holds no ledger yet (a reader never creates one). */
        MISSING,
        /** The schema holds tables, but not a Sovereign ledger. */
        NOT_OURS,
        /** The ledger was migrated by a newer Sovereign. */
        SCHEMA_TOO_NEW,
        /** A guard was dropped, disabled or replaced: the database no longer enforces the fence. */
        CORRUPT,
        /** Another process held the migration lock too long. */
        BUSY,
        /** The server refused or failed a statement the migration needs. */
        IO
    }

    private final Problem problem;

    public PgSchemaException(Problem problem, String sentence, Throwable cause) {
        super(sentence, cause);
        this.problem = problem;
    }

    public Problem problem() {
        return problem;
    }
}
