package dev.sovereign.engine.supervisor;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.base.EngineConfig;
import java.nio.file.Path;
import java.time.Duration;

/**
 * Child JVM: a supervisor loop as a host (the CLI) would run it: SIGINT and SIGTERM reach a shutdown
 * hook that stops the loop, waits for the tick in progress, closes the engine and ends the process
 * with status 0 and one line, never a stack trace. Args: database, intervalMs. Prints
 * {@code READY <process>} and {@code TICK <recovered>} per tick.
 */
public final class SupervisorLoopMain {
    private SupervisorLoopMain() {}

    public static void main(String[] args) {
        Engine engine = Engine.open(EngineConfig.forDatabase(Path.of(args[0]))
                .heartbeat(true)
                .processKind("test-supervisor")
                .build());
        SupervisorLoop loop = new SupervisorLoop(
                engine.supervisor(),
                Duration.ofMillis(Long.parseLong(args[1])),
                report -> {
                    System.out.println("TICK " + report.recovered().size());
                    System.out.flush();
                },
                failure -> System.out.println("TICK FAILED " + failure.getMessage()));
        Runtime.getRuntime()
                .addShutdownHook(new Thread(
                        () -> {
                            loop.stop();
                            try {
                                loop.awaitStopped(Duration.ofSeconds(10));
                            } catch (InterruptedException e) {
                                Thread.currentThread().interrupt();
                            }
                            engine.close();
                            System.out.println("STOPPED");
                            System.out.flush();
                            // A signal-initiated JVM exit reports 128+signal; a supervisor that stopped cleanly exits
                            // 0.
                            Runtime.getRuntime().halt(0);
                        },
                        "supervisor-shutdown"));
        System.out.println("READY " + engine.processIdentity());
        System.out.flush();
        loop.run();
    }
}
