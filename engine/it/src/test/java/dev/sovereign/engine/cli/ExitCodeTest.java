package dev.sovereign.engine.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import dev.sovereign.engine.base.RefusalCategory;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Every refusal category has a deliberate exit code (docs/decisions/0300). A category added later
 * fails here until someone decides whether it is "the ledger said no" (1) or "that names nothing" (2).
 */
class ExitCodeTest {

    @ParameterizedTest
    @EnumSource(RefusalCategory.class)
    void everyRefusalCategoryHasADecidedExitCode(RefusalCategory category) {
        assertThat(ExitCode.forRefusal(category)).isEqualTo(decided(category));
    }

    private static int decided(RefusalCategory category) {
        switch (category) {
            case ACTOR_LEASE_HELD:
            case ACTOR_LEASE_LOST:
            case EXECUTION_ATTEMPT_HELD:
            case EXECUTION_ATTEMPT_LOST:
            case FENCING_TOKEN_STALE:
            case MESSAGE_CLAIMED:
            case CORRUPT_LEASE_STATE:
            case NOT_RECIPIENT:
            case NOT_HOSTING:
            case MESSAGE_FINISHED:
            case ASSIGNMENT_NOT_RUNNABLE:
            case ASSIGNMENT_NOT_RETRYABLE:
            case ACTOR_EXISTS:
            case SYMLINKED_WORKSPACE:
            case WORKSPACE_NOT_DIRECTORY:
            case COMMAND_NOT_ALLOWED:
            case PROCESS_STOPPED:
                return ExitCode.REFUSED;
            case UNKNOWN_ACTOR:
            case UNKNOWN_PROCESS:
            case UNKNOWN_WORKSPACE_POLICY:
            case UNKNOWN_PROVIDER:
            case MESSAGE_MISSING:
            case ASSIGNMENT_MISSING:
            case INVALID_ARGUMENT:
                return ExitCode.BAD_INPUT;
            default:
                return fail("decide the exit code of the new category " + category.code()
                        + " in ExitCode.BAD_INPUT_CATEGORIES and record it in docs/decisions/0300");
        }
    }
}
