package dev.sovereign.engine.reliability.fuzz;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.base.EngineConfig;
import dev.sovereign.engine.base.Refusal;
import dev.sovereign.engine.base.StorageException;
import dev.sovereign.engine.testing.SettableClock;
import dev.sovereign.engine.testing.TempDatabase;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Bad input to the public engine API: random and hostile strings, huge values, negative and
 * overflowing tokens and durations, unicode, empty ids and nulls, on two engines over one file. Every
 * call must end as a clear {@code Refusal} (or succeed when the input happens to be valid), never as
 * another exception, and a refused call must leave the ledger exactly as it was (apart from its own
 * REJECTED row). {@code -Dsovereign.fuzz.seed=N} replays a run, {@code -Dsovereign.fuzz.calls=N}
 * makes it longer.
 */
class ApiFuzzTest {
    @RegisterExtension
    final TempDatabase temp = new TempDatabase();

    @Test
    void badInputToThePublicEngineApiIsAClearRefusalThatChangesNothing() {
        long seed = Long.getLong("sovereign.fuzz.seed", System.nanoTime() % 1_000_000);
        // 1,500 calls: the ledger is read whole after every call, so the cost grows with the square of the calls
        // (3,000 took 12-17 s on a quiet machine, 40 s in the full suite); each run draws a new seed.
        int calls = Integer.getInteger("sovereign.fuzz.calls", 1_500);
        SettableClock clock = new SettableClock();
        Engine one = temp.open(clock);
        Engine two = temp.open(clock);
        one.actors().add("operator");
        one.actors().add("reviewer", "persistent");

        Fuzzer.Report report = Fuzzer.run(new EngineApiTarget(List.of(one, two), clock), temp.file(), seed, calls);
        System.out.println(report.summary());

        assertThat(report.failures()).as(report.summary()).isEmpty();
        assertThat(report.counts()).containsKeys(Verdict.Kind.REFUSED, Verdict.Kind.ACCEPTED, Verdict.Kind.READ);
    }

    /**
     * A bad configuration is refused by name when it is built ({@code IllegalArgumentException}, as
     * EngineConfig documents), or it opens an engine that works; a bad database path is a
     * {@code StorageException} (documented for {@code Engine.open}). Nothing else, ever.
     */
    @Test
    void aBadConfigurationIsRefusedByNameOrOpensAWorkingEngine() throws Exception {
        long seed = Long.getLong("sovereign.fuzz.seed", System.nanoTime() % 1_000_000);
        BadInputs in = new BadInputs(seed);
        Random r = in.random();
        Path dir = temp.dir();
        Files.createDirectories(dir.resolve("a-directory.db"));
        List<String> crashes = new ArrayList<>();
        Map<String, Integer> outcomes = new TreeMap<>();
        for (int i = 0; i < 150; i++) {
            boolean goodPath = r.nextInt(4) > 0;
            Path db = goodPath
                    ? dir.resolve("config-" + i + ".db")
                    : List.of(dir.resolve("missing-dir").resolve("x.db"), dir.resolve("a-directory.db"), Path.of(""))
                            .get(r.nextInt(3));
            EngineConfig.Builder b =
                    EngineConfig.forDatabase(r.nextInt(30) == 0 ? null : db).heartbeat(r.nextBoolean());
            StringBuilder what = new StringBuilder("config " + i + " db=" + db);
            if (r.nextBoolean()) {
                Duration d = in.duration();
                b.busyBound(d);
                what.append(" busyBound=").append(d);
            }
            if (r.nextBoolean()) {
                Duration d = in.duration();
                b.heartbeatInterval(d);
                what.append(" heartbeatInterval=").append(d);
            }
            if (r.nextBoolean()) {
                Duration d = in.duration();
                b.defaultTtl(d);
                what.append(" defaultTtl=").append(d);
            }
            if (r.nextInt(4) == 0) {
                String kind = in.string();
                b.processKind(kind);
                what.append(" processKind=").append(EngineApiTarget.show(new Object[] {kind}));
            }
            if (r.nextInt(4) == 0) {
                String label = in.string();
                b.processLabel(label);
                what.append(" processLabel=").append(EngineApiTarget.show(new Object[] {label}));
            }
            if (r.nextInt(6) == 0) {
                String actAs = r.nextBoolean() ? in.string() : "proc_never-registered";
                b.actAs(actAs);
                what.append(" actAs=").append(EngineApiTarget.show(new Object[] {actAs}));
            }
            if (r.nextInt(15) == 0) {
                b.clock(null);
                what.append(" clock=null");
            }
            if (r.nextInt(15) == 0) {
                b.durability(null);
                what.append(" durability=null");
            }
            String outcome;
            try {
                EngineConfig config = b.build();
                try (Engine e = Engine.open(config)) {
                    e.actors().add("a");
                    e.leases().acquire("a", Duration.ofSeconds(1));
                    e.mailbox().send("s", "a", "subject", null);
                    outcome = "opened";
                } catch (StorageException storage) {
                    outcome = "storage error";
                    if (goodPath) {
                        crashes.add(what + ": " + storage);
                    }
                } catch (Refusal refusal) {
                    outcome = "refused: " + refusal.category().code();
                }
            } catch (IllegalArgumentException refused) {
                outcome = "refused when built";
            } catch (RuntimeException | Error e) {
                outcome = "crashed";
                crashes.add(what + ": " + e);
            }
            outcomes.merge(outcome, 1, Integer::sum);
        }
        System.out.println("engine config fuzzed with seed " + seed + ": " + outcomes);
        assertThat(crashes).as("seed %d", seed).isEmpty();
    }
}
