package dev.sovereign.engine.reliability.fuzz;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.testing.SettableClock;
import dev.sovereign.engine.testing.TempDatabase;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The fuzzer must be able to fail: a target that crashes, a "refusal" that wrote anyway, and a CLI
 * that prints a stack trace or answers bad input with a storage error are each reported; a
 * well-behaved CLI is not. The CLI targets here are stand-ins for the real CLI, which plugs in the
 * same way (a function from arguments to exit code, stdout and stderr).
 */
class FuzzerTest {
    @RegisterExtension
    final TempDatabase temp = new TempDatabase();

    private Engine engine;

    @BeforeEach
    void open() {
        engine = temp.open(new SettableClock());
        engine.actors().add("operator");
    }

    private Fuzzer.Report fuzz(FuzzTarget target) {
        return Fuzzer.run(target, temp.file(), 42, 40);
    }

    @Test
    void aTargetThatThrowsSomethingOtherThanARefusalIsReportedAsACrash() {
        Fuzzer.Report report = fuzz(new FuzzTarget() {
            @Override
            public String name() {
                return "crashes";
            }

            @Override
            public Verdict call(BadInputs in) {
                return Verdict.crashed("npe", "java.lang.NullPointerException");
            }
        });
        assertThat(report.failures()).hasSize(40).allSatisfy(f -> assertThat(f).contains("crashed"));
    }

    @Test
    void aRefusalThatChangedTheLedgerIsReported() {
        AtomicInteger n = new AtomicInteger();
        Fuzzer.Report report = fuzz(new FuzzTarget() {
            @Override
            public String name() {
                return "refuses but writes";
            }

            @Override
            public Verdict call(BadInputs in) {
                engine.actors().add("sneaky-" + n.incrementAndGet());
                return Verdict.refused("actors.add", "said no", 0);
            }
        });
        assertThat(report.failures()).hasSize(40).allSatisfy(f -> assertThat(f).contains("changed the ledger"));
    }

    @Test
    void aCliThatPrintsAStackTraceOrCallsBadInputAStorageErrorIsReported() {
        assertThat(fuzz(new CliTarget(
                                args -> new CliTarget.Outcome(
                                        1,
                                        "",
                                        "Exception in thread \"main\" java.lang.NullPointerException\n\tat Main.main(Main.java:1)"),
                                CliTarget.SPEC_COMMANDS))
                        .failures())
                .hasSize(40);
        assertThat(fuzz(new CliTarget(
                                args -> new CliTarget.Outcome(3, "", "The database is busy."), CliTarget.SPEC_COMMANDS))
                        .failures())
                .hasSize(40);
    }

    @Test
    void aWellBehavedCliPassesAndItsRefusalsAreHeldToAnUnchangedLedger() {
        Fuzzer.Report report = fuzz(new CliTarget(
                args -> new CliTarget.Outcome(2, "", "Bad input: '" + args.get(0) + "' is not acceptable."),
                CliTarget.SPEC_COMMANDS));
        assertThat(report.failures()).isEmpty();
        assertThat(report.counts()).containsOnlyKeys(Verdict.Kind.REFUSED);
    }
}
