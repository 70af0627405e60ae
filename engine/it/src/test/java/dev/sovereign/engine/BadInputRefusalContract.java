package dev.sovereign.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sovereign.engine.base.EngineConfig;
import dev.sovereign.engine.base.Refusal;
import dev.sovereign.engine.base.RefusalCategory;
import dev.sovereign.engine.mailbox.Message;
import dev.sovereign.engine.run.Assignment;
import dev.sovereign.engine.supervisor.SupervisorLoop;
import dev.sovereign.engine.testing.Contract;
import dev.sovereign.engine.testing.SettableClock;
import dev.sovereign.engine.testing.TempDatabase;
import dev.sovereign.engine.testing.TestBackend;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Bad inputs the API fuzzer (reliability/fuzz/ApiFuzzTest) found crashing the engine, each pinned
 * down: they must be clear refusals (or a plain "no"), never a NullPointerException or a storage
 * error, and must change nothing.
 */
@Contract
abstract class BadInputRefusalContract {
    /** The backend this class's ledgers are on: each backend's module has its subclass (decision 0015). */
    protected abstract TestBackend backend();

    @RegisterExtension
    final TempDatabase temp = new TempDatabase(this::backend);

    private final SettableClock clock = new SettableClock();
    private Engine engine;

    @BeforeEach
    void open() {
        engine = temp.open(clock);
        engine.actors().add("operator");
    }

    private static void assertInvalidArgument(Runnable call) {
        assertThatThrownBy(call::run)
                .isInstanceOfSatisfying(
                        Refusal.class, r -> assertThat(r.category()).isEqualTo(RefusalCategory.INVALID_ARGUMENT));
    }

    @Test
    void aLeaseTtlUnderOneMillisecondIsRefusedNotAStorageError() {
        assertInvalidArgument(() -> engine.leases().acquire("operator", Duration.ofNanos(999_999)));
        assertInvalidArgument(() -> engine.leases().acquireOrRenew("operator", Duration.ofNanos(1)));
        long token = engine.leases().acquire("operator", Duration.ofSeconds(5)).token();
        assertInvalidArgument(() -> engine.leases().renew("operator", token, Duration.ofNanos(1)));
        assertThat(engine.leases().current("operator"))
                .get()
                .extracting(l -> l.ttlMs())
                .isEqualTo(5_000L);
    }

    @Test
    void aClaimTtlUnderOneMillisecondIsRefusedNotAStorageError() {
        engine.leases().acquire("operator", Duration.ofSeconds(5));
        Message m = engine.mailbox().send("someone", "operator", "s", null);
        assertInvalidArgument(() -> engine.mailbox().claim(m.id(), "operator", Duration.ofNanos(500)));
        assertThat(engine.mailbox().find(m.id()))
                .get()
                .extracting(Message::claim)
                .isNull();
    }

    @Test
    void aRunTtlUnderOneMillisecondIsRefusedBeforeAnythingIsWritten() {
        Assignment x = engine.runs().assign("operator", "scripted:ms=0");
        long events = engine.journal().lastSeq();
        assertInvalidArgument(() -> engine.runs().runAssignment(x.id(), Duration.ofNanos(1)));
        assertThat(engine.journal().lastSeq()).isEqualTo(events);
        assertThat(engine.leases().current("operator")).isEmpty();
    }

    @Test
    void releasingTheLeaseOfANullActorIsANoNotANullPointerException() {
        assertThat(engine.leases().release(null, 1)).isFalse();
    }

    @Test
    void aConfigurationWithAnOverflowingOrSubMillisecondDurationIsRefusedByNameWhenBuilt() {
        EngineConfig.Builder b = EngineConfig.forDatabase(temp.dir().resolve("other.db"));
        assertThatThrownBy(() -> b.busyBound(Duration.ofSeconds(Long.MAX_VALUE)).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("busyBound");
        b.busyBound(Duration.ofSeconds(5));
        assertThatThrownBy(() -> b.heartbeatInterval(Duration.ofNanos(999_999)).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("heartbeatInterval");
        assertThatThrownBy(() -> b.heartbeatInterval(Duration.ofDays(400)).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("heartbeatInterval");
        b.heartbeatInterval(Duration.ofSeconds(1));
        assertThatThrownBy(() -> b.defaultTtl(Duration.ofNanos(1)).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("defaultTtl");
        b.defaultTtl(Duration.ofDays(365));
        assertThat(b.build().defaultTtl()).isEqualTo(Duration.ofDays(365));
    }

    @Test
    void aConfigurationWithoutADatabaseIsRefusedByNameLikeEveryOtherBadValue() {
        assertThatThrownBy(() -> EngineConfig.forDatabase((Path) null).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("database");
    }

    @Test
    void aSupervisorLoopIntervalThatWouldOverflowIsRefusedWhenTheLoopIsMade() {
        assertThatThrownBy(() ->
                        new SupervisorLoop(engine.supervisor(), Duration.ofSeconds(Long.MAX_VALUE), t -> {}, e -> {}))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("interval");
    }
}
