package dev.sovereign.engine.cli;

import java.io.InputStream;
import java.nio.file.Path;
import java.time.Clock;
import java.time.ZoneId;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * What the CLI takes from the world around it, gathered in one place so tests can hand it a
 * different world: environment variables, the working directory, the clock and time zone, where the
 * desktop console jar is, how long-running commands hear SIGINT/SIGTERM, and standard input (which
 * {@code serve --stdio} reads its requests from). Immutable.
 */
public final class CliEnvironment {
    /** Environment variable naming the database when {@code --db} is not given. */
    public static final String DB_VARIABLE = "SOVEREIGN_DB";
    /** System property, set by the launcher, naming the desktop console jar. */
    public static final String CONSOLE_JAR_PROPERTY = "sovereign.console.jar";

    private final Map<String, String> variables;
    private final Path workingDirectory;
    private final Clock clock;
    private final ZoneId zone;
    private final Path consoleJar;
    private final Path java;
    private final StopSignals stopSignals;
    private final InputStream input;

    private CliEnvironment(Builder b) {
        this.variables = Map.copyOf(b.variables);
        this.workingDirectory = b.workingDirectory.toAbsolutePath().normalize();
        this.clock = b.clock;
        this.zone = b.zone;
        this.consoleJar = b.consoleJar;
        this.java = b.java;
        this.stopSignals = b.stopSignals;
        this.input = b.input;
    }

    /** The real world of this JVM. */
    public static CliEnvironment system() {
        String jar = System.getProperty(CONSOLE_JAR_PROPERTY);
        return builder()
                .variables(System.getenv())
                .workingDirectory(Path.of(""))
                .consoleJar(jar == null || jar.isBlank() ? null : Path.of(jar))
                .stopSignals(StopSignals.posix())
                .input(System.in)
                .build();
    }

    public static Builder builder() {
        return new Builder();
    }

    public Optional<String> variable(String name) {
        return Optional.ofNullable(variables.get(name)).filter(v -> !v.isBlank());
    }

    public Path workingDirectory() {
        return workingDirectory;
    }

    public Clock clock() {
        return clock;
    }

    public ZoneId zone() {
        return zone;
    }

    /** The desktop console jar, when the launcher said where it is. */
    public Optional<Path> consoleJar() {
        return Optional.ofNullable(consoleJar);
    }

    /** The {@code java} executable used to start the console (the one running this CLI). */
    public Path java() {
        return java;
    }

    public StopSignals stopSignals() {
        return stopSignals;
    }

    /** Standard input: the requests of {@code serve --stdio}. */
    public InputStream input() {
        return input;
    }

    /** This world with other stop signals (a {@code serve} hands its requests its own stop). */
    CliEnvironment withStopSignals(StopSignals signals) {
        Builder b = builder()
                .variables(variables)
                .workingDirectory(workingDirectory)
                .clock(clock)
                .zone(zone)
                .consoleJar(consoleJar)
                .java(java)
                .stopSignals(signals)
                .input(input);
        return b.build();
    }

    /** Mutable builder; not thread-safe. */
    public static final class Builder {
        private Map<String, String> variables = Map.of();
        private Path workingDirectory = Path.of("");
        private Clock clock = Clock.systemUTC();
        private ZoneId zone = ZoneId.systemDefault();
        private Path consoleJar;
        private Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        private StopSignals stopSignals = () -> new StopSignals.Stop();
        private InputStream input = InputStream.nullInputStream();

        public Builder variables(Map<String, String> variables) {
            this.variables = Objects.requireNonNull(variables);
            return this;
        }

        public Builder workingDirectory(Path dir) {
            this.workingDirectory = Objects.requireNonNull(dir);
            return this;
        }

        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock);
            return this;
        }

        public Builder zone(ZoneId zone) {
            this.zone = Objects.requireNonNull(zone);
            return this;
        }

        public Builder consoleJar(Path jar) {
            this.consoleJar = jar;
            return this;
        }

        public Builder java(Path java) {
            this.java = Objects.requireNonNull(java);
            return this;
        }

        public Builder stopSignals(StopSignals signals) {
            this.stopSignals = Objects.requireNonNull(signals);
            return this;
        }

        public Builder input(InputStream input) {
            this.input = Objects.requireNonNull(input);
            return this;
        }

        public CliEnvironment build() {
            return new CliEnvironment(this);
        }
    }
}
