package dev.sovereign.engine.cli;

import dev.sovereign.engine.RefusalCategory;
import java.util.EnumSet;
import java.util.Set;

/**
 * The exit codes of {@code sovereign}. They are part of the CLI contract (SPEC section 11); scripts
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

    /**
     * Refusals that say "what you typed names nothing" rather than "the ledger said no": retrying the
     * same command cannot succeed until the input changes, so they exit {@link #BAD_INPUT}. Every
     * other category is a refusal by the ledger and exits {@link #REFUSED}.
     */
    static final Set<RefusalCategory> BAD_INPUT_CATEGORIES = EnumSet.of(
            RefusalCategory.INVALID_ARGUMENT,
            RefusalCategory.UNKNOWN_ACTOR,
            RefusalCategory.UNKNOWN_PROCESS,
            RefusalCategory.UNKNOWN_WORKSPACE_POLICY,
            RefusalCategory.UNKNOWN_PROVIDER,
            RefusalCategory.MESSAGE_MISSING,
            RefusalCategory.ASSIGNMENT_MISSING);

    private ExitCode() {
    }

    /** The exit code for a refusal of {@code category}. */
    public static int forRefusal(RefusalCategory category) {
        return BAD_INPUT_CATEGORIES.contains(category) ? BAD_INPUT : REFUSED;
    }
}
