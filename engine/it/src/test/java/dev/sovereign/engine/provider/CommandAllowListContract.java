package dev.sovereign.engine.provider;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.base.CommandAllowList;
import dev.sovereign.engine.base.Refusal;
import dev.sovereign.engine.base.RefusalCategory;
import dev.sovereign.engine.journal.FenceEvent;
import dev.sovereign.engine.run.Assignment;
import dev.sovereign.engine.run.AssignmentState;
import dev.sovereign.engine.testing.Contract;
import dev.sovereign.engine.testing.SettableClock;
import dev.sovereign.engine.testing.TempDatabase;
import dev.sovereign.engine.testing.TestBackend;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Commands from the ledger are not a remote shell (issue 19, decision 0800): an engine runs a
 * {@code command:} spec only when its allow-list matches it, on real SQLite files and real shells.
 */
@Contract
abstract class CommandAllowListContract {
    /** The backend this class's ledgers are on: each backend's module has its subclass (decision 0015). */
    protected abstract TestBackend backend();

    @RegisterExtension
    final TempDatabase temp = new TempDatabase(this::backend);

    private final SettableClock clock = new SettableClock();

    @Test
    void aWildcardMatchesOrdinaryArgumentsButNeverAShellOperatorOrExpansion() {
        CommandAllowList allow = CommandAllowList.of("./nightly.sh *", "echo ?");

        assertThat(allow.allows("./nightly.sh")).isFalse(); // the space is literal
        assertThat(allow.allows("./nightly.sh ")).isTrue();
        assertThat(allow.allows("./nightly.sh --full --date 2026-12-01 'quoted words'"))
                .isTrue();
        assertThat(allow.allows("echo a")).isTrue();
        assertThat(allow.allows("echo ab")).isFalse();
        for (String attack : List.of(
                "./nightly.sh; rm -rf ~",
                "./nightly.sh && curl evil",
                "./nightly.sh | sh",
                "./nightly.sh $(curl evil)",
                "./nightly.sh `id`",
                "./nightly.sh > /etc/passwd",
                "./nightly.sh < x",
                "./nightly.sh\nrm -rf ~",
                "./nightly.sh \\\nrm",
                "./nightly.sh & sleep 1",
                "echo ;",
                "echo $",
                "./nightly.sh (x)",
                "rm -rf ~")) {
            assertThat(allow.allows(attack)).as(attack).isFalse();
        }
    }

    @Test
    void everythingElseIsLiteralAndExactlyQuotesACommandWithWildcards() {
        String command = "ls *.txt; echo \"$HOME\" \\ done?";
        CommandAllowList allow = CommandAllowList.of(CommandAllowList.exactly(command));

        assertThat(allow.allows(command)).isTrue();
        assertThat(allow.allows("ls a.txt; echo \"$HOME\" \\ done?")).isFalse();
        assertThat(allow.allows(command + " ")).isFalse();
        assertThat(CommandAllowList.of("a.b").allows("axb")).isFalse(); // no regex hiding in a pattern
        assertThat(CommandAllowList.none().allows("true")).isFalse();
        assertThat(CommandAllowList.of(List.of())).isSameAs(CommandAllowList.none());
    }

    @Test
    void aBlankOrDanglingPatternIsRejectedByName() {
        assertThatThrownBy(() -> CommandAllowList.of(" "))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("must not be empty");
        assertThatThrownBy(() -> CommandAllowList.of("echo \\"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("lone \\");
    }

    @Test
    void anEngineWithoutAnAllowListRefusesACommandBeforeAnythingIsWrittenAndJournalsIt() {
        Path marker = temp.dir().resolve("ran");
        try (Engine e = temp.open(clock)) {
            e.actors().add("operator");
            Assignment x = e.runs().assign("operator", "command:touch " + marker);
            long eventsBefore = e.journal().since(0, 1_000).size();

            assertThatThrownBy(() -> e.runs().runAssignment(x.id())).isInstanceOfSatisfying(Refusal.class, r -> {
                assertThat(r.category()).isEqualTo(RefusalCategory.COMMAND_NOT_ALLOWED);
                assertThat(r.getMessage())
                        .contains(x.id())
                        .contains("touch " + marker)
                        .contains("without any --allow-command pattern")
                        .contains("stays CREATED");
            });

            assertThat(marker).doesNotExist(); // the shell never ran
            assertThat(e.runs().get(x.id()).orElseThrow().state()).isEqualTo(AssignmentState.CREATED);
            assertThat(e.runs().attempts(x.id())).isEmpty();
            assertThat(e.leases().current("operator")).isEmpty(); // refused before the lease was taken
            List<FenceEvent> after = e.journal().since(0, 1_000);
            assertThat(after).hasSize((int) eventsBefore + 1);
            FenceEvent rejected = after.get(after.size() - 1);
            assertThat(rejected.kind().name()).isEqualTo("REJECTED");
            assertThat(rejected.category()).isEqualTo("command_not_allowed");
            assertThat(rejected.resourceType()).isEqualTo("assignment");
            assertThat(rejected.resourceId()).isEqualTo(x.id());
            assertThat(rejected.actorId()).isEqualTo("operator");
            assertThat(rejected.processIdentity()).isEqualTo(e.processIdentity());
        }
    }

    @Test
    void aMatchingPatternRunsTheCommandANonMatchingOneRefusesAndScriptedWorkIsUnaffected() {
        Path marker = temp.dir().resolve("ran");
        try (Engine setup = temp.open(clock)) {
            setup.actors().add("operator");
        }
        try (Engine allowed = temp.open(temp.config(clock)
                        .allowCommands(CommandAllowList.of("touch *"))
                        .build());
                Engine other = temp.open(temp.config(clock)
                        .allowCommands(CommandAllowList.of("echo *"))
                        .build())) {
            Assignment x = allowed.runs().assign("operator", "command:touch " + marker);
            Assignment scripted = other.runs().assign("operator", "scripted:ms=0,outcome=completed");

            assertThatThrownBy(() -> other.runs().runAssignment(x.id()))
                    .isInstanceOfSatisfying(
                            Refusal.class,
                            r -> assertThat(r.getMessage()).contains("none of its --allow-command patterns [echo *]"));
            assertThat(marker).doesNotExist();
            assertThat(other.runs().runAssignment(scripted.id()).assignment().state())
                    .isEqualTo(AssignmentState.COMPLETED);

            assertThat(allowed.runs().runAssignment(x.id()).assignment().state())
                    .isEqualTo(AssignmentState.COMPLETED);
            assertThat(marker).exists();
        }
    }
}
