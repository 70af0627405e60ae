package dev.sovereign.engine.provider;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sovereign.engine.base.Refusal;
import dev.sovereign.engine.base.RefusalCategory;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class ProvidersTest {
    private final Providers providers = Providers.withBuiltIns();

    private static Job job(Cancellation c) {
        return new Job("asg_x", "att_x", 7, "operator", Path.of("/tmp"), Path.of("/tmp"), c);
    }

    @Test
    void theScriptedSpecIsParsedWithDefaults() {
        assertThat(providers.create("scripted")).isInstanceOfSatisfying(ScriptedProvider.class, p -> {
            assertThat(p.millis()).isZero();
            assertThat(p.outcome()).isEqualTo(Outcome.COMPLETED);
        });
        assertThat(providers.create("scripted:ms=2000,outcome=blocked"))
                .isInstanceOfSatisfying(ScriptedProvider.class, p -> {
                    assertThat(p.millis()).isEqualTo(2000);
                    assertThat(p.outcome()).isEqualTo(Outcome.BLOCKED);
                });
        assertThat(providers.create("command:echo a:b"))
                .isInstanceOfSatisfying(
                        CommandProvider.class, p -> assertThat(p.command()).isEqualTo("echo a:b"));
    }

    @Test
    void aBadSpecIsAnUnknownProviderRefusalNamingTheSpec() {
        assertThatThrownBy(() -> providers.create("teleport:now")).isInstanceOfSatisfying(Refusal.class, r -> {
            assertThat(r.category()).isEqualTo(RefusalCategory.UNKNOWN_PROVIDER);
            assertThat(r.getMessage()).contains("teleport").contains("command").contains("scripted");
        });
        assertThatThrownBy(() -> providers.create("scripted:ms=-1"))
                .isInstanceOfSatisfying(
                        Refusal.class, r -> assertThat(r.category()).isEqualTo(RefusalCategory.UNKNOWN_PROVIDER));
    }

    @Test
    void embeddersRegisterTheirOwnKinds() {
        providers.register("echo", arg -> job -> ProviderResult.completed(arg));
        assertThat(providers.kinds()).contains("echo", "scripted", "command");
        assertThatThrownBy(() -> providers.register("Bad Kind", arg -> job -> null))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aCancelledScriptedJobStopsAtOnceAsCancelled() throws Exception {
        Cancellation c = new Cancellation();
        c.cancel("the lease was lost");
        long start = System.nanoTime();
        ProviderResult r = new ScriptedProvider(60_000, Outcome.COMPLETED).run(job(c));
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
        assertThat(r.outcome()).isEqualTo(Outcome.FAILED);
        assertThat(r.failureCategory()).isEqualTo("cancelled");
        assertThat(r.summary()).contains("the lease was lost");
    }

    @Test
    void aCancellationCallbackRunsExactlyOnceWhetherRegisteredBeforeOrAfter() {
        Cancellation c = new Cancellation();
        int[] before = {0};
        int[] after = {0};
        c.onCancel(() -> before[0]++);
        c.cancel("first");
        c.cancel("second");
        c.onCancel(() -> after[0]++);
        assertThat(before[0]).isEqualTo(1);
        assertThat(after[0]).isEqualTo(1);
        assertThat(c.reason()).contains("first");
    }
}
