package dev.sovereign.engine.architecture;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sovereign.engine.EngineAccess;
import org.junit.jupiter.api.Test;

/** Nobody but Engine installs the accessor below an engine: code that loads first cannot hijack it. */
class EngineAccessInstallTest {
    @Test
    void installingFromAnyOtherClassIsRefused() {
        assertThatThrownBy(() -> EngineAccess.install(e -> null, e -> null))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("only Engine installs the accessor to its ledger");
    }
}
