package dev.sovereign.engine.lab;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.base.EngineConfig;
import dev.sovereign.engine.base.LedgerLocation;
import dev.sovereign.engine.base.OwnerOnly;
import dev.sovereign.engine.base.Refusal;
import dev.sovereign.engine.base.RefusalCategory;
import dev.sovereign.engine.base.StorageException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
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

    /** How many sandboxes a folder keeps: a new one removes the older ones beyond these (docs/operations.md). */
    public static final int SANDBOXES_KEPT = 5;

    private static final Pattern SANDBOX_NAME = Pattern.compile("sandbox-[0-9-]+\\.db");

    private Lab() {}

    private static Map<String, Supplier<Scenario>> orderedScenarios() {
        LinkedHashMap<String, Supplier<Scenario>> m = new LinkedHashMap<>();
        for (Supplier<Scenario> s : List.<Supplier<Scenario>>of(
                TwoRacers::new,
                GcPause::new,
                HardKill::new,
                ExpiredSelfReclaim::new,
                StolenFence::new,
                ClockSkew::new)) {
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
     * Scenario {@code name} as it runs on {@code location}: on a server (PostgreSQL) the server's clock
     * decides every expiry, and {@code clock-skew} then explains why a skewed worker cannot take over.
     */
    public static Optional<ScenarioInfo> scenario(String name, LedgerLocation location) {
        return Optional.ofNullable(SCENARIOS.get(name)).map(s -> s.get().info(!location.isFile()));
    }

    /** Every scenario as it runs on {@code location}, in teaching order. */
    public static List<ScenarioInfo> scenarios(LedgerLocation location) {
        return SCENARIOS.values().stream()
                .map(s -> s.get().info(!location.isFile()))
                .toList();
    }

    /**
     * For each step of {@code info} (as {@link #scenario(String, LedgerLocation)} gave it), whether a
     * {@linkplain LabRun#gate(LabGate) gate} may hold the run before it (decision 0117): the same answer as
     * {@link LabRun#holdsBefore}, before any run.
     */
    public static List<Boolean> holds(ScenarioInfo info) {
        Supplier<Scenario> s = SCENARIOS.get(info.name());
        if (s == null) {
            throw new IllegalArgumentException("There is no lab scenario '" + info.name() + "'.");
        }
        Scenario scenario = s.get();
        int last = info.steps().size() - 1;
        List<Boolean> holds = new ArrayList<>();
        for (int i = 0; i <= last; i++) {
            holds.add(i == last || scenario.holdsBefore(i));
        }
        return List.copyOf(holds);
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
            Leftovers.requireOwnFolder(directory);
            // the newest few stay for inspection; older ones go, unless a scenario still writes to them (issue 29)
            Leftovers.keepNewest(directory, Lab::isSandbox, SANDBOXES_KEPT - 1, Clock.systemUTC());
            String stamp = LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss-SSS"));
            Path file = directory.resolve("sandbox-" + stamp + ".db");
            for (int n = 2; Files.exists(file); n++) {
                file = directory.resolve("sandbox-" + stamp + "-" + n + ".db");
            }
            try (Engine e = Engine.open(EngineConfig.forDatabase(file)
                    .processKind("lab")
                    .processLabel("lab sandbox setup")
                    .heartbeat(false)
                    .createAsLabSandbox(true)
                    .build())) {
                e.actors().add("operator");
                e.actors().add("reviewer");
            }
            return file.toAbsolutePath().normalize();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create a lab sandbox in " + directory + ": " + e.getMessage(), e);
        }
    }

    /**
     * The lab's sandbox on a server (decision 0909): {@code location} must name a database (or, with
     * {@code ?currentSchema=NAME}, a schema) that is either <b>empty</b> — then a ledger is created there,
     * marked as a lab sandbox ({@code ledger_mark}) by the same open, with actors {@code operator} and
     * {@code reviewer} — or that already holds a <b>lab sandbox</b>, which is used again. Anything else is
     * refused, before anything is written: a real ledger is never made a sandbox (the schema's guard refuses
     * that too) and the lab never adds its actors and processes to one. Creating the ledger needs what
     * {@code sovereign init} needs: CREATE on the schema (its owner has it).
     *
     * @return {@code location}, now a lab sandbox
     * @throws Refusal          {@code invalid_argument}: a ledger that is not a sandbox, or a schema holding
     *                          other tables
     * @throws StorageException the server cannot be reached, refuses the login, or the ledger is too new
     */
    public static LedgerLocation serverSandbox(LedgerLocation location) {
        if (location.isFile()) {
            throw new IllegalArgumentException(location + " is a file: use createSandbox for a file");
        }
        EngineConfig.Builder probe = EngineConfig.forDatabase(location)
                .processKind("lab")
                .processLabel("lab sandbox check")
                .heartbeat(false)
                .registerLazily(true);
        try (Engine e = Engine.openExisting(probe.build())) {
            if (e.isLabSandbox()) {
                return location;
            }
            throw notASandbox(location, "holds a Sovereign ledger that is not a lab sandbox");
        } catch (StorageException e) {
            if (e.problem() == StorageException.Problem.NOT_OURS) {
                throw notASandbox(location, "holds tables that are not a Sovereign ledger");
            }
            if (e.problem() != StorageException.Problem.MISSING_FILE) {
                throw e;
            }
        }
        // Empty: this open creates the ledger and marks it a sandbox (PgMigrator marks only what it creates).
        try (Engine e = Engine.open(EngineConfig.forDatabase(location)
                .processKind("lab")
                .processLabel("lab sandbox setup")
                .heartbeat(false)
                .createAsLabSandbox(true)
                .build())) {
            if (!e.isLabSandbox()) {
                // someone else created a real ledger there in the same moment
                throw notASandbox(location, "received a Sovereign ledger that is not a lab sandbox");
            }
            for (String actor : List.of("operator", "reviewer")) {
                if (e.actors().find(actor).isEmpty()) {
                    e.actors().add(actor);
                }
            }
        } catch (StorageException e) {
            if (e.problem() == StorageException.Problem.NOT_OURS) {
                throw notASandbox(location, "holds tables that are not a Sovereign ledger");
            }
            throw e;
        }
        return location;
    }

    private static Refusal notASandbox(LedgerLocation location, String what) {
        return Refusal.of(
                        RefusalCategory.INVALID_ARGUMENT,
                        "The lab runs on a server only in a lab sandbox, and "
                                + location + " " + what
                                + "; it was left untouched. Point --db at an empty database, or at an empty"
                                + " schema of one (create it: CREATE SCHEMA lab; then add ?currentSchema=lab to the URL).")
                .build();
    }

    /**
     * The folder sandboxes go in unless told another: {@code sovereign.lab.dir}, else
     * {@code <tmp>/sovereign-lab-<user>}, one per user, the console's lab and {@code sovereign lab} alike. It must be
     * the user's alone ({@link #createSandbox} checks), and it keeps the newest {@link #SANDBOXES_KEPT} sandboxes.
     */
    public static Path defaultSandboxFolder() {
        String dir = System.getProperty("sovereign.lab.dir");
        if (dir != null && !dir.isBlank()) {
            return Path.of(dir);
        }
        return Path.of(
                System.getProperty("java.io.tmpdir"), "sovereign-lab-" + System.getProperty("user.name", "user"));
    }

    /** Whether {@code file} is named like a sandbox {@link #createSandbox} makes. */
    public static boolean isSandbox(Path file) {
        return file != null
                && file.getFileName() != null
                && SANDBOX_NAME.matcher(file.getFileName().toString()).matches();
    }

    /** The most recently created sandbox in {@code directory}, if there is one. */
    public static Optional<Path> latestSandbox(Path directory) {
        if (!Files.isDirectory(directory)) {
            return Optional.empty();
        }
        try (Stream<Path> files = Files.list(directory)) {
            return files.filter(Lab::isSandbox)
                    .filter(Files::isRegularFile)
                    .max(Comparator.comparing(Path::toString))
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
        Leftovers.deleteLedger(file);
    }
}
