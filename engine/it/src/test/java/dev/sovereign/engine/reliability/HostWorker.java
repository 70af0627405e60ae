package dev.sovereign.engine.reliability;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.base.CommandAllowList;
import dev.sovereign.engine.base.EngineConfig;
import dev.sovereign.engine.base.Refusal;
import dev.sovereign.engine.lease.Lease;
import dev.sovereign.engine.run.RunResult;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * Child JVM of {@link PartitionOnPostgresTest}: one worker process on one "host" (started under
 * {@code ip netns exec}, or on loopback), its own engine on the server, obeying one command per line on stdin
 * and answering one line per command on stdout, so the test drives it step by step and waits on its answers:
 * <pre>
 *   acquire ACTOR TTL_MS        → ACQUIRE OK token=N | ACQUIRE REFUSED category ...
 *   run ASSIGNMENT TTL_MS       → (in the background) RUN OK state=S attempt=ID token=N | RUN REFUSED ... | RUN ERROR ...
 *   renew ACTOR TOKEN TTL_MS    → RENEW OK ... | RENEW REFUSED ...
 *   release ACTOR TOKEN         → RELEASE OK | RELEASE FALSE | RELEASE REFUSED ...
 *   quit
 * </pre>
 * Arguments: the ledger URL, the data directory, the process label, the one command it may run, the heartbeat
 * interval in ms. Prints {@code READY <process identity>} once open.
 */
public final class HostWorker {
    private HostWorker() {}

    public static void main(String[] args) throws Exception {
        EngineConfig config = EngineConfig.forDatabase(args[0])
                .dataDirectory(Path.of(args[1]))
                .heartbeat(true)
                .heartbeatInterval(Duration.ofMillis(Long.parseLong(args[4])))
                .busyBound(Duration.ofSeconds(2))
                .processKind("host-worker")
                .processLabel(args[2])
                .allowCommands(CommandAllowList.of(List.of(CommandAllowList.exactly(args[3]))))
                .build();
        try (Engine engine = Engine.open(config);
                BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
            say("READY " + engine.processIdentity());
            String line;
            while ((line = in.readLine()) != null && !line.equals("quit")) {
                String[] w = line.trim().split(" ");
                switch (w[0]) {
                    case "acquire" ->
                        answer("ACQUIRE", () -> {
                            Lease l = engine.leases().acquire(w[1], Duration.ofMillis(Long.parseLong(w[2])));
                            return "token=" + l.token() + " expires_at=" + l.expiresAt();
                        });
                    case "renew" ->
                        answer("RENEW", () -> {
                            Lease l = engine.leases()
                                    .renew(w[1], Long.parseLong(w[2]), Duration.ofMillis(Long.parseLong(w[3])));
                            return "token=" + l.token() + " expires_at=" + l.expiresAt();
                        });
                    case "release" -> {
                        try {
                            say(engine.leases().release(w[1], Long.parseLong(w[2])) ? "RELEASE OK" : "RELEASE FALSE");
                        } catch (Refusal r) {
                            say("RELEASE REFUSED " + r.category().code() + " " + r.getMessage());
                        } catch (RuntimeException e) {
                            say("RELEASE ERROR " + e);
                        }
                    }
                    case "run" -> {
                        Thread t = new Thread(
                                () -> answer("RUN", () -> {
                                    RunResult r =
                                            engine.runs().runAssignment(w[1], Duration.ofMillis(Long.parseLong(w[2])));
                                    return "state=" + r.assignment().state() + " attempt="
                                            + r.attempt().id() + " token="
                                            + r.attempt().token() + " receipt="
                                            + r.receipt().id();
                                }),
                                "run");
                        t.start();
                    }
                    default -> say("UNKNOWN " + line);
                }
            }
        }
    }

    private interface Call {
        String run();
    }

    private static void answer(String what, Call call) {
        try {
            say(what + " OK " + call.run());
        } catch (Refusal r) {
            say(what + " REFUSED " + r.category().code() + " presented=" + r.presentedToken() + " current="
                    + r.currentToken() + " " + r.getMessage());
        } catch (RuntimeException e) {
            say(what + " ERROR " + e);
        }
    }

    private static synchronized void say(String line) {
        System.out.println(line.replace('\n', ' '));
        System.out.flush();
    }
}
