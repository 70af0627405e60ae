package dev.sovereign.engine.run;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.base.CommandAllowList;
import dev.sovereign.engine.base.EngineConfig;
import dev.sovereign.engine.base.Refusal;
import dev.sovereign.engine.testing.AnnounceProvider;
import java.nio.file.Path;
import java.time.Duration;

/**
 * Child JVM: runs one assignment with the background heartbeat on, knowing the test provider kind
 * {@code announce}. Args: database, assignment, ttlMs, heartbeatMs[, an allowed command pattern]. Prints {@code PROCESS <identity>},
 * then (from the provider) {@code PROVIDER_STARTED ...}, then {@code RESULT <state>} or
 * {@code REFUSED <category> <sentence>}.
 */
public final class RunnerMain {
    private RunnerMain() {}

    public static void main(String[] args) {
        EngineConfig config = EngineConfig.forDatabase(Path.of(args[0]))
                .heartbeat(true)
                .heartbeatInterval(Duration.ofMillis(Long.parseLong(args[3])))
                .processKind("test-runner")
                .allowCommands(args.length > 4 ? CommandAllowList.of(args[4]) : CommandAllowList.none())
                .build();
        try (Engine engine = Engine.open(config)) {
            engine.providers().register(AnnounceProvider.KIND, AnnounceProvider::parse);
            System.out.println("PROCESS " + engine.processIdentity());
            System.out.flush();
            try {
                RunResult r = engine.runs().runAssignment(args[1], Duration.ofMillis(Long.parseLong(args[2])));
                System.out.println("RESULT " + r.assignment().state());
            } catch (Refusal r) {
                System.out.println("REFUSED " + r.category().code() + " " + r.getMessage());
            }
            System.out.flush();
        }
    }
}
