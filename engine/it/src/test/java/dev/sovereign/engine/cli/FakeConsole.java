package dev.sovereign.engine.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/** Stands in for the desktop console jar: records its arguments in its working directory, exits 7. */
public final class FakeConsole {
    static final String RECORD = "console-args.txt";
    /** Where it records the {@code SOVEREIGN_DB} it was started with (absent: none). */
    static final String ENV_RECORD = "console-env.txt";
    /** Where it records the options its JVM was started with, one per line. */
    static final String JVM_RECORD = "console-jvm.txt";

    static final int EXIT = 7;

    private FakeConsole() {}

    /** When this file exists in the working directory, the fake console writes its pid there and stays up. */
    static final String LINGER = "linger-pid.txt";

    public static void main(String[] args) throws IOException, InterruptedException {
        Files.writeString(Path.of(RECORD), String.join("\n", args));
        Files.writeString(
                Path.of(JVM_RECORD),
                String.join(
                        "\n",
                        java.lang.management.ManagementFactory.getRuntimeMXBean()
                                .getInputArguments()));
        String db = System.getenv("SOVEREIGN_DB");
        if (db != null) {
            Files.writeString(Path.of(ENV_RECORD), db);
        }
        if (Files.exists(Path.of(LINGER))) {
            Files.writeString(
                    Path.of(LINGER), Long.toString(ProcessHandle.current().pid()));
            // Parked until the test signals it (what it is there to show); the bound only keeps a
            // forgotten child from outliving the test run.
            new CountDownLatch(1).await(2, TimeUnit.MINUTES);
        }
        System.exit(EXIT);
    }
}
