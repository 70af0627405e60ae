package dev.sovereign.engine.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.base.LedgerLocation;
import dev.sovereign.engine.testing.PgTestBackend;
import dev.sovereign.engine.testing.SettableClock;
import dev.sovereign.engine.testing.TempDatabase;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code sovereign prune} and {@code sovereign retention} on PostgreSQL (decisions 0018 and 0020): the operator prunes
 * and sets the policy; a worker login is refused in one sentence, with nothing removed and no stack trace.
 */
class CliPruneOnPostgresTest {
    @RegisterExtension
    final TempDatabase temp = new TempDatabase(() -> PgTestBackend.INSTANCE);

    private final SettableClock clock = new SettableClock();

    @Test
    void aWorkerLoginMayNeitherPruneNorSetTheRetentionAndIsToldSoInOneSentence() {
        Engine owner = temp.open(clock);
        owner.actors().add("x");
        owner.leases()
                .release("x", owner.leases().acquire("x", Duration.ofSeconds(5)).token());
        clock.advance(Duration.ofDays(31));
        owner.leases().acquire("x", Duration.ofSeconds(5));
        LedgerLocation worker = temp.backend().workerLogin(temp.location(), "hostw");
        CliHarness cli = new CliHarness(temp.dir(), clock);

        CliHarness.Result prune = cli.run("--db", worker.text(), "prune");
        assertThat(prune.exit()).as(prune.err()).isEqualTo(3);
        assertThat(prune.errLines())
                .as(prune.err())
                .singleElement()
                .asString()
                .startsWith("storage error (read_only): The PostgreSQL role may not write to the ledger")
                .doesNotContain("Exception");
        CliHarness.Result keep = cli.run("--db", worker.text(), "retention", "--keep-runs", "7d");
        assertThat(keep.exit()).as(keep.err()).isEqualTo(3);
        assertThat(keep.errLines())
                .as(keep.err())
                .singleElement()
                .asString()
                .startsWith("storage error (read_only): The PostgreSQL role may not write to the ledger")
                .doesNotContain("Exception");
        assertThat(owner.retention().prunedRows()).isZero();
        assertThat(owner.retention().keepRuns()).isEqualTo(Duration.ofDays(30));

        // the owner may: the same commands, and the old rows go
        assertThat(cli.ok("--db", temp.location().text(), "prune").out()).startsWith("Pruned ");
        assertThat(owner.retention().prunedRows()).isPositive();
        cli.ok("--db", temp.location().text(), "retention", "--keep-runs", "7d");
        assertThat(owner.retention().keepRuns()).isEqualTo(Duration.ofDays(7));
    }
}
