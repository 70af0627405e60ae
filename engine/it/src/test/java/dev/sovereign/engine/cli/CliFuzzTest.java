package dev.sovereign.engine.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sovereign.engine.reliability.fuzz.CliTarget;
import dev.sovereign.engine.reliability.fuzz.Fuzzer;
import dev.sovereign.engine.reliability.fuzz.Verdict;
import dev.sovereign.engine.testing.SettableClock;
import dev.sovereign.engine.testing.TempDatabase;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Bad input to every command of contract §11 that takes input, through picocli in-process on a real
 * database: always exit 0, 1 (a refusal, at most one REJECTED row) or 2 (bad input, nothing
 * written), one sentence on stderr and never a stack trace; never a storage error for bad input, and
 * a refused call never changes the ledger. The calls act as one fixed {@code --process} identity, so
 * the process registry itself does not grow with every call. {@code -Dsovereign.fuzz.seed=N} replays.
 */
class CliFuzzTest {
    @RegisterExtension
    final TempDatabase temp = new TempDatabase();

    @Test
    void badInputToTheCliIsAUsageErrorOrARefusalThatChangesNothing() {
        long seed = Long.getLong("sovereign.fuzz.seed", System.nanoTime() % 1_000_000);
        int calls = Integer.getInteger("sovereign.fuzz.calls", 600);
        CliHarness cli = new CliHarness(temp.dir(), new SettableClock());
        cli.ok("init");
        cli.ok("actor", "add", "operator");
        cli.ok("--process", "proc_fuzzer", "lease", "acquire", "operator", "--ttl", "1h");

        CliTarget target = new CliTarget(
                args -> {
                    List<String> full =
                            new ArrayList<>(List.of("--db", temp.file().toString(), "--process", "proc_fuzzer"));
                    full.addAll(args);
                    CliHarness.Result r = cli.run(full.toArray(String[]::new));
                    return new CliTarget.Outcome(r.exit(), r.out(), r.err());
                },
                CliTarget.SPEC_COMMANDS);

        Fuzzer.Report report = Fuzzer.run(target, temp.file(), seed, calls);
        System.out.println(report.summary());

        assertThat(report.failures()).as(report.summary()).isEmpty();
        assertThat(report.counts()).containsKeys(Verdict.Kind.REFUSED);
    }
}
