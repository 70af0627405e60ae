package dev.sovereign.engine.docs;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.base.EngineConfig;
import dev.sovereign.engine.base.Refusal;
import dev.sovereign.engine.provider.ProviderResult;
import dev.sovereign.engine.run.Assignment;
import dev.sovereign.engine.run.RunResult;
import java.lang.System.Logger.Level;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

/** An agent that embeds the engine headlessly, hosts an actor and runs one assignment. */
public final class EmbeddingExample {
    private static final System.Logger LOG = System.getLogger("agent");

    private EmbeddingExample() {}

    /** Runs one job as actor "summariser" and says how it ended. */
    public static String runOnce(Path database) {
        EngineConfig config = EngineConfig.forDatabase(database)
                .processKind("agent")
                .defaultTtl(Duration.ofSeconds(10)) // lease and attempt TTL of a run
                .heartbeatInterval(Duration.ofSeconds(2)) // renews both long before they expire
                .build();
        try (Engine engine = Engine.open(config)) {
            // A provider of our own: work in the workspace, honour cancellation.
            engine.providers().register("summarise", argument -> job -> {
                for (int step = 0; step < 3; step++) {
                    if (job.cancellation().await(Duration.ofMillis(50))) {
                        return ProviderResult.cancelled(
                                job.cancellation().reason().orElse("cancelled"));
                    }
                }
                Files.writeString(job.output().resolve("summary.txt"), "summary of " + argument + "\n");
                return ProviderResult.completed("summarised " + argument);
            });
            // Told at once (on the heartbeat thread) when a renewal finds a lease or attempt lost;
            // the engine itself cancels the provider of a run that lost its grant.
            engine.addGrantLossListener(lost ->
                    LOG.log(Level.WARNING, "lost " + lost.kind() + " " + lost.resourceId() + "; stopping that work"));

            if (engine.actors().find("summariser").isEmpty()) {
                engine.actors().add("summariser");
            }
            Assignment assignment = engine.runs().assign("summariser", "summarise:quarterly-report");
            try {
                RunResult result = engine.runs().runAssignment(assignment.id());
                return result.assignment().state() + ": " + result.receipt().summary();
            } catch (Refusal refusal) {
                switch (refusal.category()) {
                    case ACTOR_LEASE_HELD:
                        // Another process hosts the actor: nothing ran, the assignment is still CREATED.
                        return "not run, try later: " + refusal.getMessage();
                    case ACTOR_LEASE_LOST:
                    case EXECUTION_ATTEMPT_LOST:
                        // We lost the lease or the attempt: our result is not canonical, and the
                        // refusal is already in the fence journal. Do not report success.
                        return "lost: " + refusal.getMessage();
                    default:
                        throw refusal;
                }
            }
        }
    }
}
