package dev.sovereign.engine.base;

import java.nio.file.Path;

/**
 * The database file could not be used: busy past the bound, not a Sovereign file, a schema newer
 * than this code, corrupt, missing, read-only, or an I/O failure. The message is one sentence that
 * names the file. This is the only exception family the storage layer lets out; JDBC exceptions are
 * wrapped once, at the boundary.
 */
public class StorageException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** What went wrong with the file, for callers that map it (the CLI maps every kind to exit 3). */
    public enum Problem {
        BUSY,
        NOT_OURS,
        SCHEMA_TOO_NEW,
        CORRUPT,
        MISSING_DIRECTORY,
        MISSING_FILE,
        READ_ONLY,
        IO,
        /**
         * The connection to a database server was lost while its COMMIT was in flight, so this process cannot
         * know whether the write took effect: the ledger decides, and reading it (the lease, the attempt, the
         * journal's rows for the resource) says which; never assume success or failure.
         */
        COMMIT_OUTCOME_UNKNOWN,
        /**
         * The ledger was moved to another one by {@code sovereign copy} and takes no more writes (decision 0915):
         * point the process at the ledger it was moved to.
         */
        RETIRED,
        /**
         * The ledger went backwards: its token counter is below a token an engine had seen (the file or database
         * was put back without {@code sovereign restore}). It issues no token until an operator runs
         * {@code sovereign fence bump} (decision 0605).
         */
        WENT_BACKWARDS,
        /** The counter has issued every token of its epoch: {@code sovereign fence bump} starts the next (decision 0603). */
        EPOCH_EXHAUSTED,
        /** The file is a copy made by {@code sovereign backup}: it becomes a ledger only through {@code sovereign restore}. */
        A_BACKUP
    }

    private final Problem problem;
    private final transient Path file;

    public StorageException(Problem problem, Path file, String message, Throwable cause) {
        super(message, cause);
        this.problem = problem;
        this.file = file;
    }

    public Problem problem() {
        return problem;
    }

    public Path file() {
        return file;
    }
}
