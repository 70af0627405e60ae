package dev.sovereign.engine.lease;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.base.Durability;
import dev.sovereign.engine.base.Refusal;
import dev.sovereign.engine.base.RefusalCategory;
import dev.sovereign.engine.testing.ChildJvm;
import dev.sovereign.engine.testing.Contract;
import dev.sovereign.engine.testing.SettableClock;
import dev.sovereign.engine.testing.TempDatabase;
import dev.sovereign.engine.testing.TestBackend;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@link BeatAgainstTakeoverRaceContract} across two JVMs (issue 26 item 3 saw 18 double beliefs in 60 tries this way on
 * PostgreSQL): holder A is a real child process ({@link BeatingHolderMain}) that beats when told, B this test's engine,
 * which acquires as soon as it has told A to beat. Long runs only ({@code -Dsovereign.long=true}, 300 tries per
 * backend; docs/reliability.md): in {@code verify} the one-JVM test covers the same race for a fraction of the time.
 */
@Contract
abstract class BeatAgainstTakeoverAcrossProcessesContract {
    /** The backend this class's ledgers are on: each backend's module has its subclass (decision 0015). */
    protected abstract TestBackend backend();

    private static final int TRIES = 300;
    private static final long TTL_MS = 1_000;

    @RegisterExtension
    final TempDatabase temp = new TempDatabase(this::backend);

    @Test
    void aBeatInOneProcessAndATakeoverInAnotherNeverBothBelieveTheyHoldTheLease() throws Exception {
        assumeTrue(Boolean.getBoolean("sovereign.long"), "a long run: -Dsovereign.long=true");
        SettableClock clock = new SettableClock();
        Engine b = temp.open(temp.config(clock).durability(Durability.NORMAL).build());
        ProcessBuilder pb = ChildJvm.builder(
                List.of("-Dsovereign.test.pinnedServerClock=true"),
                BeatingHolderMain.class,
                temp.location().text(),
                temp.dir().resolve("holder.data").toString(),
                Long.toString(clock.millis()));
        pb.redirectError(temp.dir().resolve("holder.err").toFile());
        Process child = pb.start();
        int takenOver = 0;
        int refused = 0;
        List<String> violations = new ArrayList<>();
        try (BufferedReader from =
                        new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
                PrintWriter to = new PrintWriter(child.getOutputStream(), true, StandardCharsets.UTF_8)) {
            String a = expect(from, "READY ");
            for (int i = 0; i < TRIES; i++) {
                String actor = "across-" + i;
                String at = "try " + i + ": ";
                b.actors().add(actor);
                to.println("clock " + clock.millis());
                expect(from, "OK");
                to.println("acquire " + actor + " " + TTL_MS);
                long held = Long.parseLong(expect(from, "LEASE "));
                clock.advance(Duration.ofMillis(TTL_MS + i % 3)); // at its effective expiry + 0..2 ms
                to.println("clock " + clock.millis());
                expect(from, "OK");
                to.println("beat"); // A beats in its own JVM while B acquires here
                Object acquired = BeatAgainstTakeoverRaceContract.outcomeOf(
                        () -> b.leases().acquire(actor, Duration.ofMillis(TTL_MS)));
                String beat = from.readLine();
                if (beat == null || !beat.startsWith("BEAT")) {
                    violations.add(at + "A's beat failed: " + beat);
                }
                to.println("held " + actor);
                boolean aBelieves = Long.parseLong(expect(from, "HELD ")) == held;
                Lease row = b.leases().current(actor).orElseThrow();
                if (acquired instanceof Lease taken) {
                    takenOver++;
                    if (aBelieves) {
                        violations.add(at + "both believe: B holds token " + taken.token() + ", A still " + held);
                    }
                    b.leases().release(actor, taken.token());
                } else if (acquired instanceof Refusal r && r.category() == RefusalCategory.ACTOR_LEASE_HELD) {
                    refused++;
                    if (!row.process().equals(a) || !aBelieves) {
                        violations.add(at + "B was refused, yet A does not hold the lease: " + row);
                    }
                    to.println("release " + actor + " " + held);
                    expect(from, "OK");
                } else {
                    violations.add(at + "B's acquire ended neither in a takeover nor in actor_lease_held: " + acquired);
                }
            }
            to.println("quit");
        } finally {
            if (!child.waitFor(20, TimeUnit.SECONDS)) {
                ChildJvm.destroy(child);
            }
        }
        System.out.println(
                "beat against takeover across two JVMs on " + backend().name() + ": " + TRIES + " tries, " + takenOver
                        + " takeovers, " + refused + " refusals, " + violations.size() + " violations");
        assertThat(violations)
                .as("%d tries: %d takeovers, %d refusals", TRIES, takenOver, refused)
                .isEmpty();
    }

    /** The rest of the child's next line after {@code prefix}; fails on anything else. */
    private static String expect(BufferedReader from, String prefix) throws Exception {
        String line = from.readLine();
        if (line == null || !line.startsWith(prefix)) {
            throw new AssertionError("the holder answered " + line + " where " + prefix.strip() + " was expected");
        }
        return line.substring(prefix.length());
    }
}
