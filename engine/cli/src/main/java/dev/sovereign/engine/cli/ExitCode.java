package dev.sovereign.engine.cli;

import dev.sovereign.engine.base.RefusalCategory;

/**
 * The exit codes of {@code sovereign}. They are part of the CLI contract (contract §11); scripts
 * branch on them. See docs/decisions/0300-cli-exit-codes-for-refusals.md.
 */
public final class ExitCode {
    /** The command did what was asked. */
    public static final int OK = 0;
    /** The ledger refused: a live lease, a stale token, a finished message. The category is printed. */
    public static final int REFUSED = 1;
    /** Bad usage or bad input: a typo, a malformed value, a name that does not exist. */
    public static final int BAD_INPUT = 2;
    /** The database file could not be used: busy past the bound, not ours, too new, corrupt, missing. */
    public static final int STORAGE = 3;
    /** A bug in Sovereign (outside the contract): the sentence asks for --debug. */
    public static final int INTERNAL = 70;
    /** Interrupted (128 + SIGINT). */
    public static final int INTERRUPTED = 130;

    private ExitCode() {}

    /** The exit code for a refusal of {@code category}. */
    public static int forRefusal(RefusalCategory category) {
        return category.isBadInput() ? BAD_INPUT : REFUSED;
    }
}
