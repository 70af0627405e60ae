package dev.sovereign.engine.base;

import java.util.Arrays;
import java.util.Locale;
import java.util.Optional;

/**
 * The closed set of reasons the engine refuses an operation. The wire name ({@link #code()})
 * is part of the CLI and JSON contract and never changes.
 *
 * <p>Categories marked {@linkplain #isFencing() fencing} are caused by a stale, missing or
 * contested token or pointer (or, for {@code not_hosting}, a missing lease; for
 * {@code command_not_allowed}, a command outside the process's allow-list): the engine journals each of them as a {@code REJECTED} fence
 * event in its own transaction, after the refused transaction rolled back.
 */
public enum RefusalCategory {
    ACTOR_LEASE_HELD(true),
    ACTOR_LEASE_LOST(true),
    EXECUTION_ATTEMPT_HELD(true),
    EXECUTION_ATTEMPT_LOST(true),
    FENCING_TOKEN_STALE(true),
    MESSAGE_CLAIMED(true),
    CORRUPT_LEASE_STATE(true),
    NOT_RECIPIENT(false),
    /** Journalled too: a claim is a write that presents "I host this actor", and it was refused (0005). */
    NOT_HOSTING(true),
    MESSAGE_MISSING(false),
    MESSAGE_FINISHED(false),
    ASSIGNMENT_MISSING(false),
    ASSIGNMENT_NOT_RUNNABLE(false),
    ASSIGNMENT_NOT_RETRYABLE(false),
    UNKNOWN_ACTOR(false),
    ACTOR_EXISTS(false),
    UNKNOWN_PROCESS(false),
    /** An operator asked to stop a process the registry already shows stopped ({@code sovereign process stop}). */
    PROCESS_STOPPED(false),
    UNKNOWN_WORKSPACE_POLICY(false),
    UNKNOWN_PROVIDER(false),
    SYMLINKED_WORKSPACE(false),
    WORKSPACE_NOT_DIRECTORY(false),
    INVALID_ARGUMENT(false),
    /**
     * Journalled too: a {@code command:} assignment asked this process to run a shell command that is not
     * on its allow-list; the run is refused before anything is written and the assignment stays CREATED
     * (docs/decisions/0800). Not about a token, but a trace an operator must see in the rejection feed.
     */
    COMMAND_NOT_ALLOWED(true);

    private final boolean fencing;

    RefusalCategory(boolean fencing) {
        this.fencing = fencing;
    }

    /** The stable snake_case name used in the journal, the CLI and JSON. */
    public String code() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** Whether a refusal of this category is journalled as a {@code REJECTED} fence event. */
    public boolean isFencing() {
        return fencing;
    }

    /**
     * Whether a refusal of this category says "what you typed names nothing" rather than "the ledger said
     * no": retrying the same input cannot succeed. The CLI and the lab's worker exit 2 for these, 1 for the
     * rest (docs/decisions/0300).
     */
    public boolean isBadInput() {
        return switch (this) {
            case INVALID_ARGUMENT,
                    UNKNOWN_ACTOR,
                    UNKNOWN_PROCESS,
                    UNKNOWN_WORKSPACE_POLICY,
                    UNKNOWN_PROVIDER,
                    MESSAGE_MISSING,
                    ASSIGNMENT_MISSING -> true;
            default -> false;
        };
    }

    public static Optional<RefusalCategory> fromCode(String code) {
        return Arrays.stream(values()).filter(c -> c.code().equals(code)).findFirst();
    }
}
