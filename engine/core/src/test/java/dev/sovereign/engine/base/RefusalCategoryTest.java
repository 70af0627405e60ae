package dev.sovereign.engine.base;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** The closed set of refusal categories: their wire names, which are journalled, which are bad input. */
class RefusalCategoryTest {
    @Test
    void the_wire_names_are_the_contract_s_and_never_change() {
        assertThat(Arrays.stream(RefusalCategory.values()).map(RefusalCategory::code))
                .containsExactly(
                        "actor_lease_held",
                        "actor_lease_lost",
                        "execution_attempt_held",
                        "execution_attempt_lost",
                        "fencing_token_stale",
                        "message_claimed",
                        "corrupt_lease_state",
                        "not_recipient",
                        "not_hosting",
                        "message_missing",
                        "message_finished",
                        "assignment_missing",
                        "assignment_not_runnable",
                        "assignment_not_retryable",
                        "unknown_actor",
                        "actor_exists",
                        "unknown_process",
                        "process_stopped",
                        "unknown_workspace_policy",
                        "unknown_provider",
                        "symlinked_workspace",
                        "workspace_not_directory",
                        "invalid_argument",
                        "command_not_allowed");
    }

    @Test
    void every_code_names_its_category_and_nothing_else_names_one() {
        for (RefusalCategory c : RefusalCategory.values()) {
            assertThat(RefusalCategory.fromCode(c.code())).contains(c);
        }
        assertThat(RefusalCategory.fromCode("ACTOR_LEASE_HELD")).isEmpty();
        assertThat(RefusalCategory.fromCode("")).isEmpty();
        assertThat(RefusalCategory.fromCode(null)).isEmpty();
    }

    @Test
    void the_journalled_categories_are_the_fence_s_and_the_refused_command() {
        Set<RefusalCategory> fencing = Arrays.stream(RefusalCategory.values())
                .filter(RefusalCategory::isFencing)
                .collect(Collectors.toCollection(() -> EnumSet.noneOf(RefusalCategory.class)));
        assertThat(fencing)
                .containsExactlyInAnyOrder(
                        RefusalCategory.ACTOR_LEASE_HELD,
                        RefusalCategory.ACTOR_LEASE_LOST,
                        RefusalCategory.EXECUTION_ATTEMPT_HELD,
                        RefusalCategory.EXECUTION_ATTEMPT_LOST,
                        RefusalCategory.FENCING_TOKEN_STALE,
                        RefusalCategory.MESSAGE_CLAIMED,
                        RefusalCategory.CORRUPT_LEASE_STATE,
                        RefusalCategory.NOT_HOSTING,
                        RefusalCategory.COMMAND_NOT_ALLOWED);
    }

    @Test
    void bad_input_is_what_names_nothing_and_no_fence_refusal_is_bad_input() {
        List<RefusalCategory> bad = Arrays.stream(RefusalCategory.values())
                .filter(RefusalCategory::isBadInput)
                .toList();
        assertThat(bad)
                .containsExactlyInAnyOrder(
                        RefusalCategory.INVALID_ARGUMENT,
                        RefusalCategory.UNKNOWN_ACTOR,
                        RefusalCategory.UNKNOWN_PROCESS,
                        RefusalCategory.UNKNOWN_WORKSPACE_POLICY,
                        RefusalCategory.UNKNOWN_PROVIDER,
                        RefusalCategory.MESSAGE_MISSING,
                        RefusalCategory.ASSIGNMENT_MISSING);
        assertThat(bad).noneMatch(RefusalCategory::isFencing);
    }

    @Test
    void a_refusal_carries_what_it_was_built_with_and_warnings_are_added_to_a_copy() {
        Refusal r = Refusal.of(RefusalCategory.ACTOR_LEASE_LOST, "Cannot renew actor a1 with token 7.")
                .resource("actor", "a1")
                .actor("a1")
                .presented(7L)
                .current(9L)
                .build();
        assertThat(r.category()).isEqualTo(RefusalCategory.ACTOR_LEASE_LOST);
        assertThat(r.getMessage()).isEqualTo("Cannot renew actor a1 with token 7.");
        assertThat(r.resourceType()).isEqualTo("actor");
        assertThat(r.resourceId()).isEqualTo("a1");
        assertThat(r.actorId()).isEqualTo("a1");
        assertThat(r.presentedToken()).isEqualTo(7L);
        assertThat(r.currentToken()).isEqualTo(9L);
        assertThat(r.warnings()).isEmpty();
        assertThat(r.getStackTrace()).isEmpty(); // an expected "no", not a bug: no stack to fill
        Refusal warned = r.withWarning("the REJECTED row could not be written").withWarning("second");
        assertThat(warned).isNotSameAs(r);
        assertThat(r.warnings()).isEmpty();
        assertThat(warned.warnings()).containsExactly("the REJECTED row could not be written", "second");
        assertThat(warned.getMessage()).isEqualTo(r.getMessage());
        assertThat(warned.category()).isEqualTo(r.category());
        assertThat(warned.presentedToken()).isEqualTo(7L);
        assertThat(warned.currentToken()).isEqualTo(9L);
        assertThat(warned.resourceId()).isEqualTo("a1");
        assertThatThrownBy(() -> warned.warnings().add("x")).isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(() -> r.withWarning(null)).isInstanceOf(NullPointerException.class);
    }

    @Test
    void a_refusal_has_a_category_and_a_sentence() {
        assertThatThrownBy(() -> Refusal.of(null, "x")).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> Refusal.of(RefusalCategory.INVALID_ARGUMENT, null))
                .isInstanceOf(NullPointerException.class);
    }
}
