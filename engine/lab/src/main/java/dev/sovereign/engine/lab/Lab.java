package dev.sovereign.engine.lab;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.base.EngineConfig;
import dev.sovereign.engine.internal.OwnerOnly;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The lab: teaching scenarios that start real worker processes against a database, drive them into
 * the situations fencing exists for (a race, a frozen holder, a killed holder, an expired claim, a
 * stolen fence, a skewed clock), and decide from the journal and the ledger whether the fence held.
 *
 * <pre>
 *   LabRun run = Lab.prepare("gc-pause", new LabOptions(Lab.createSandbox(dir), false), step -&gt; ...);
 *   LabVerdict v = run.run();   // blocks for a few seconds; every process it started is gone after
 * </pre>
 *
 * <p>Each scenario is described by its {@link ScenarioInfo}; see docs/teaching.md for what to say
 * while it runs. Thread-safe (stateless).
 */
public final class Lab {
    /** The scenarios, in teaching order. */
    private static final Map<String, Supplier<Scenario>> SCENARIOS = orderedScenarios();
    private static final Pattern SANDBOX_NAME = Pattern.compile("sandbox-[0-9-]+\\.db");

    private Lab() {
    }

    private static Map<String, Supplier<Scenario>> orderedScenarios() {
        LinkedHashMap<String, Supplier<Scenario>> m = new LinkedHashMap<>();
        for (Supplier<Scenario> s : List.<Supplier<Scenario>>of(TwoRacers::new, GcPause::new, HardKill::new,
                ExpiredSelfReclaim::new, StolenFence::new, ClockSkew::new)) {
            m.put(s.get().info().name(), s);
        }
        return Collections.unmodifiableMap(m);
    }

    /** Every scenario, in teaching order. */
    public static List<ScenarioInfo> scenarios() {
        return SCENARIOS.values().stream().map(s -> s.get().info()).toList();
    }

    public static Optional<ScenarioInfo> scenario(String name) {
        return Optional.ofNullable(SCENARIOS.get(name)).map(s -> s.get().info());
    }

    /**
     * A run of scenario {@code name}, ready to {@link LabRun#run()}.
     *
     * @throws IllegalArgumentException when there is no such scenario
     */
    public static LabRun prepare(String name, LabOptions options, LabListener listener) {
        Supplier<Scenario> s = SCENARIOS.get(name);
        if (s == null) {
            throw new IllegalArgumentException("There is no lab scenario '" + name + "'; the scenarios are "
                    + String.join(", ", SCENARIOS.keySet()) + ".");
        }
        return new LabRun(s.get(), options, listener);
    }

    /**
     * Creates a fresh sandbox database in {@code directory} (created if needed), named
     * {@code sandbox-<date>-<time>.db}, with two actors ({@code operator}, {@code reviewer}) for
     * trying things by hand. Scenarios add their own actors.
     *
     * @return the new file
     */
    public static Path createSandbox(Path directory) {
        try {
            OwnerOnly.createDirectories(directory);
            String stamp = LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss-SSS"));
            Path file = directory.resolve("sandbox-" + stamp + ".db");
            for (int n = 2; Files.exists(file); n++) {
                file = directory.resolve("sandbox-" + stamp + "-" + n + ".db");
            }
            try (Engine e = Engine.open(EngineConfig.forDatabase(file).processKind("lab")
                    .processLabel("lab sandbox setup").heartbeat(false).createAsLabSandbox(true).build())) {
                e.actors().add("operator");
                e.actors().add("reviewer");
            }
            return file.toAbsolutePath().normalize();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create a lab sandbox in " + directory + ": " + e.getMessage(), e);
        }
    }

    /** Whether {@code file} is named like a sandbox {@link #createSandbox} makes. */
    public static boolean isSandbox(Path file) {
        return file != null && file.getFileName() != null
                && SANDBOX_NAME.matcher(file.getFileName().toString()).matches();
    }

    /** The most recently created sandbox in {@code directory}, if there is one. */
    public static Optional<Path> latestSandbox(Path directory) {
        if (!Files.isDirectory(directory)) {
            return Optional.empty();
        }
        try (Stream<Path> files = Files.list(directory)) {
            return files.filter(Lab::isSandbox).filter(Files::isRegularFile).max(Comparator.comparing(Path::toString))
                    .map(p -> p.toAbsolutePath().normalize());
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    /**
     * Deletes a sandbox: its database file, the SQLite side files ({@code -wal}, {@code -shm}) and its
     * data directory (workspaces). Only unlinks (never opens) the database file. Call it only when no
     * process uses the sandbox any more.
     *
     * @throws IllegalArgumentException when {@code file} is not named like a sandbox
     */
    public static void deleteSandbox(Path file) throws IOException {
        if (!isSandbox(file)) {
            throw new IllegalArgumentException(file + " is not a lab sandbox");
        }
        String name = file.getFileName().toString();
        Path dir = file.toAbsolutePath().getParent();
        Path data = dir.resolve(name.substring(0, name.length() - 3) + ".data");
        if (Files.isDirectory(data)) {
            try (Stream<Path> s = Files.walk(data)) {
                for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
                    Files.deleteIfExists(p);
                }
            }
        }
        for (String suffix : List.of("-wal", "-shm", "-journal", "")) {
            Files.deleteIfExists(dir.resolve(name + suffix));
        }
    }
}
