package dev.sovereign.console.feature;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sovereign.console.shell.ShellViewModel;
import dev.sovereign.console.testing.ConsoleFixture;
import dev.sovereign.engine.Engine;
import dev.sovereign.engine.admin.JournalEntry;
import dev.sovereign.engine.base.EngineConfig;
import dev.sovereign.engine.lease.Lease;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Issue 31, item 5: a refusal whose presented token IS the current one ("1 vs 1") says the real reason — the
 * presenter was not the token's holder — and its detail has no stray ".; by --process".
 */
class SameTokenRefusalTest {
    @RegisterExtension
    final ConsoleFixture fx = new ConsoleFixture();

    private Engine cli(String identity) {
        return fx.track(Engine.open(EngineConfig.forDatabase(fx.file())
                .clock(fx.clock)
                .heartbeat(false)
                .processKind("cli")
                .processLabel("sovereign lease renew")
                .actAs(identity)
                .build()));
    }

    @Test
    void aRefusalOfTheCurrentTokenNamesItsHolder() {
        Engine alice = cli("proc_alice");
        alice.actors().add("operator");
        Lease lease = alice.leases().acquire("operator", Duration.ofMinutes(1));
        cli("proc_bob").close(); // proc_bob exists: the next call acts as it with --process
        Engine bob = cli("proc_bob");
        assertThatThrownBy(() -> bob.leases().renew("operator", lease.token(), Duration.ofMinutes(1)));

        ShellViewModel vm = fx.attachedShell();
        JournalEntry refusal = vm.rejections().rows().get(0);
        assertThat(refusal.presentedToken()).isEqualTo(refusal.currentToken());
        String sentence = vm.rejections().sentence(refusal);
        assertThat(sentence)
                .as(sentence)
                .doesNotContain("but " + lease.token() + " is current:")
                .contains("granted to", "proc_alice", "not to", "proc_bob");
        vm.rejections().selectedProperty().set(refusal);
        assertThat(vm.rejections().detailProperty().get())
                .contains("by --process")
                .doesNotContain(".;");
        assertThat(refusal.detail())
                .as("as journalled")
                .contains("by --process")
                .doesNotContain(".;");
    }
}
