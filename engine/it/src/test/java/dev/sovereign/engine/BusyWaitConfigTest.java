package dev.sovereign.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sovereign.engine.base.EngineConfig;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The busy-wait settings (decision 0501) are validated eagerly and default to decision 0004's. */
class BusyWaitConfigTest {
    private static EngineConfig.Builder builder() {
        return EngineConfig.forDatabase(Path.of("x.db"));
    }

    @Test
    void theDefaultsAreDecisionFoursWait() {
        EngineConfig c = builder().build();
        assertThat(c.sqliteBusyTimeout()).isEqualTo(Duration.ofMillis(50));
        assertThat(c.busyRetryPauseMin()).isEqualTo(Duration.ofMillis(1));
        assertThat(c.busyRetryPauseMax()).isEqualTo(Duration.ofMillis(14));
    }

    @Test
    void shortPausesWithoutSqliteSleepingAreAccepted() {
        EngineConfig c = builder()
                .sqliteBusyTimeout(Duration.ZERO)
                .busyRetryPause(Duration.ofNanos(20_000), Duration.ofNanos(500_000))
                .build();
        assertThat(c.sqliteBusyTimeout()).isZero();
        assertThat(c.busyRetryPauseMax()).isEqualTo(Duration.ofNanos(500_000));
    }

    @Test
    void badBusySettingsAreRefusedByName() {
        assertThatThrownBy(
                        () -> builder().sqliteBusyTimeout(Duration.ofMillis(-1)).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("sqliteBusyTimeout");
        assertThatThrownBy(() -> builder()
                        .busyRetryPause(Duration.ofMillis(5), Duration.ofMillis(1))
                        .build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("busyRetryPause");
        assertThatThrownBy(() ->
                        builder().busyRetryPause(Duration.ZERO, Duration.ZERO).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("busyRetryPause");
        assertThatThrownBy(() -> builder()
                        .busyRetryPause(Duration.ofMillis(-1), Duration.ofMillis(1))
                        .build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("busyRetryPause");
    }
}
