package dev.sovereign.engine.lease;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.base.Durability;
import dev.sovereign.engine.base.EngineConfig;
import dev.sovereign.engine.testing.SettableClock;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;

/**
 * Child JVM for {@link BeatAgainstTakeoverAcrossProcessesContract}: one engine (one process) that holds leases and beats
 * when told, on its own settable clock (the parent moves it; on PostgreSQL the server's pinned clock decides anyway).
 * Args: ledger location, data directory, start time in epoch ms. Reads commands on stdin, one answer line each:
 * {@code clock T} → {@code OK}; {@code acquire ACTOR TTL_MS} (beats first) → {@code LEASE <token>}; {@code beat} →
 * {@code BEAT <lost actors, comma-separated>} or {@code FAILED <sentence>}; {@code held ACTOR} → {@code HELD <token or
 * 0>}; {@code release ACTOR TOKEN} → {@code OK}; {@code quit}. Prints {@code READY <identity>} first.
 */
public final class BeatingHolderMain {
    private BeatingHolderMain() {}

    public static void main(String[] args) throws Exception {
        SettableClock clock = new SettableClock(Long.parseLong(args[2]));
        Engine engine = Engine.open(EngineConfig.forDatabase(args[0])
                .dataDirectory(Path.of(args[1]))
                .clock(clock)
                .heartbeat(false)
                .durability(Durability.NORMAL)
                .busyBound(Duration.ofSeconds(10))
                .processKind("test-holder")
                .build());
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        answer("READY " + engine.processIdentity());
        for (String line = in.readLine(); line != null && !line.equals("quit"); line = in.readLine()) {
            String[] w = line.split(" ");
            switch (w[0]) {
                case "clock" -> {
                    clock.set(Long.parseLong(w[1]));
                    answer("OK");
                }
                case "acquire" -> {
                    engine.heartbeatNow();
                    answer("LEASE "
                            + engine.leases()
                                    .acquire(w[1], Duration.ofMillis(Long.parseLong(w[2])))
                                    .token());
                }
                case "beat" -> {
                    try {
                        answer("BEAT "
                                + String.join(
                                        ",", engine.heartbeatNow().lostLeases().keySet()));
                    } catch (RuntimeException e) {
                        answer("FAILED " + String.valueOf(e.getMessage()).replace('\n', ' '));
                    }
                }
                case "held" ->
                    answer("HELD "
                            + engine.leases().held().stream()
                                    .filter(l -> l.actor().equals(w[1]))
                                    .mapToLong(Lease::token)
                                    .findFirst()
                                    .orElse(0));
                case "release" -> {
                    engine.leases().release(w[1], Long.parseLong(w[2]));
                    answer("OK");
                }
                default -> answer("UNKNOWN " + line);
            }
        }
        engine.close();
    }

    private static void answer(String line) {
        System.out.println(line);
        System.out.flush();
    }
}
