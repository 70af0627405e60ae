package dev.sovereign.engine.reliability;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.attack.standing.HostileSql;
import dev.sovereign.engine.base.EngineConfig;
import dev.sovereign.engine.run.Runs;
import dev.sovereign.engine.supervisor.TickReport;
import dev.sovereign.engine.testing.ChildJvm;
import dev.sovereign.engine.testing.RestartablePgServer;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Collectors;

/**
 * One torture run: N real worker processes ({@link TortureWorker}) do random operations on one
 * database for a bounded time while a nemesis (this JVM) injects faults — SIGSTOP/SIGCONT (capped),
 * SIGKILL at random points (and restarts the killed worker as a new process), clock jumps forward and
 * back per worker (through its control file), and a rogue connection ({@link RogueLock}) holding
 * {@code BEGIN IMMEDIATE} longer than the workers' busy bound. Then every worker is stopped, a
 * supervisor whose clock is a day ahead ticks (twice: the second must recover nothing), and
 * {@link HistoryChecker} holds every history against the ledger, and the output folders the receipts name
 * against their attempts ({@link OutputFolders}).
 *
 * <p>On PostgreSQL ({@link Settings#onPostgres()}, decision 0908) the workers are the same, given the server's
 * URL instead of a file; the nemesis adds backend kills and server restarts, the rogue lock is a {@code LOCK TABLE},
 * clock jumps move no expiry (the server's clock decides) and the final supervisor ticks once the server's clock
 * has passed every expiry, instead of with a clock a day ahead.
 *
 * <p>Everything stays in {@link Settings#dir()}: the database (or the server's {@code pgdata/}), the history
 * files, the worker logs and {@code report.md}.
 */
public final class TortureRun {
    /** Operation weights of the workers: everything, with stale tokens now and then. */
    public static final String MIXED = "acquire:12,renew:6,release:5,send:8,claim:14,complete:10,dead_letter:4,"
            + "assign:6,run:12,tick:3,retry:2,acknowledge:2,steal:1";
    /** Weights that make runs (and so stale terminal writes) frequent: for the broken-fence run. */
    public static final String RUN_HEAVY = "acquire:10,renew:3,release:6,send:2,claim:3,complete:3,dead_letter:1,"
            + "assign:10,run:24,tick:2,retry:2,acknowledge:1,steal:5";

    /**
     * @param workers        worker processes at any time
     * @param chaos          how long the workers work under faults
     * @param brokenFence    start the workers with {@code -Dsovereign.fault.ignoreTerminalFence=true}
     * @param busyBoundMs    the workers' busy bound; the rogue lock holds longer than this
     * @param maxPauseMs     the longest SIGSTOP (a paused writer blocks everyone, so it is capped)
     * @param faultGapMs     the longest gap between two faults (the shortest is a third of it)
     */
    public record Settings(
            Path dir,
            int workers,
            Duration chaos,
            long seed,
            boolean brokenFence,
            String weights,
            List<String> actors,
            long busyBoundMs,
            long heartbeatMs,
            long maxPauseMs,
            long faultGapMs,
            Backend backend) {

        public static Settings of(Path dir, int workers, Duration chaos, long seed) {
            return new Settings(
                    dir,
                    workers,
                    chaos,
                    seed,
                    false,
                    MIXED,
                    List.of("a0", "a1", "a2"),
                    1_000,
                    150,
                    2_000,
                    1_000,
                    Backend.SQLITE);
        }

        public Settings withBrokenFence(String weights) {
            return new Settings(
                    dir,
                    workers,
                    chaos,
                    seed,
                    true,
                    weights,
                    actors,
                    busyBoundMs,
                    heartbeatMs,
                    maxPauseMs,
                    faultGapMs,
                    backend);
        }

        /** The same run on a PostgreSQL server of its own, with the server's nemeses added (decision 0908). */
        public Settings onPostgres() {
            return new Settings(
                    dir,
                    workers,
                    chaos,
                    seed,
                    brokenFence,
                    weights,
                    actors,
                    busyBoundMs,
                    heartbeatMs,
                    maxPauseMs,
                    faultGapMs,
                    Backend.POSTGRES);
        }
    }

    /**
     * Where the ledger lives. The workers are the same either way: each is given a ledger location (a file
     * path or a {@code jdbc:postgresql:} URL) and {@code Engine.open} picks the backend.
     */
    public enum Backend {
        /** One SQLite file, {@code torture.db}. */
        SQLITE,
        /**
         * A PostgreSQL server started for this run ({@link RestartablePgServer}, data in {@code pgdata/}); besides
         * the SQLite nemeses: backend kills ({@code pg_terminate_backend} of a worker's connection, in the middle of
         * a transaction or between two) and server restarts (fast and immediate) while the workers run. The rogue
         * lock is {@code LOCK TABLE … IN ACCESS EXCLUSIVE MODE}. Clock jumps still move the workers' clocks, but
         * no expiry reads them: the server's clock decides.
         */
        POSTGRES
    }

    /** What the nemesis did. */
    public static final class Faults {
        final AtomicInteger pauses = new AtomicInteger();
        final AtomicInteger kills = new AtomicInteger();
        final AtomicInteger restarts = new AtomicInteger();
        final AtomicInteger clockForward = new AtomicInteger();
        final AtomicInteger clockBack = new AtomicInteger();
        final AtomicInteger clockReset = new AtomicInteger();
        final AtomicInteger rogueHolds = new AtomicInteger();
        final AtomicInteger rogueBusy = new AtomicInteger();
        final AtomicInteger unexpectedExits = new AtomicInteger();
        final AtomicInteger killedAtStop = new AtomicInteger();
        final AtomicInteger backendKillsInTransaction = new AtomicInteger();
        final AtomicInteger backendKillsBetween = new AtomicInteger();
        final AtomicInteger backendKillsMissed = new AtomicInteger();
        final AtomicInteger restartsFast = new AtomicInteger();
        final AtomicInteger restartsImmediate = new AtomicInteger();
        /** PostgreSQL: hand-written statements of another host's worker login, refused by the database. */
        final AtomicInteger handSqlRefused = new AtomicInteger();
        /** PostgreSQL: hand-written statements that found no row to act on (nothing for the guards to judge). */
        final AtomicInteger handSqlNoTarget = new AtomicInteger();
        /** PostgreSQL: hand-written statements the database ACCEPTED on rows it should have guarded: a hole. */
        final List<String> handSqlAccepted = Collections.synchronizedList(new ArrayList<>());

        long pausedMillis;
        volatile long serverDownMillis;
        long rogueMillis;

        public int unexpectedExits() {
            return unexpectedExits.get();
        }

        public int kills() {
            return kills.get();
        }

        public int pauses() {
            return pauses.get();
        }

        public int backendKills() {
            return backendKillsInTransaction.get() + backendKillsBetween.get();
        }

        public int backendKillsInTransaction() {
            return backendKillsInTransaction.get();
        }

        public int serverRestarts() {
            return restartsFast.get() + restartsImmediate.get();
        }

        public int handSqlRefused() {
            return handSqlRefused.get();
        }

        /** The hand-written statements the database accepted, each as sent: must be none. */
        public List<String> handSqlAccepted() {
            return List.copyOf(handSqlAccepted);
        }

        /** Every fault injected (a restart after a kill is part of the kill). */
        public int total() {
            return pauses.get()
                    + kills.get()
                    + clockForward.get()
                    + clockBack.get()
                    + clockReset.get()
                    + rogueHolds.get()
                    + backendKills()
                    + serverRestarts()
                    + handSqlRefused.get()
                    + handSqlAccepted.size();
        }
    }

    /** The outcome of a run: the checker's verdict and everything the report says. */
    public record Report(
            Settings settings,
            Faults faults,
            HistoryChecker.Result result,
            List<HistoryOp> ops,
            Ledger ledger,
            int incarnations,
            TickReport finalTick,
            int secondTickRecovered,
            Duration wallTime,
            String text) {}

    private final Settings s;
    private final Random random;
    private final Faults faults = new Faults();
    /** The ledger's location as the workers are given it: the file's path or the server's URL. */
    private String db;

    private final Path dataDirectory;
    private final Path stop;
    private RestartablePgServer server;
    private volatile Thread restarting;
    private volatile RuntimeException restartFailure;
    private final List<Worker> workers = new ArrayList<>();
    private long chaosEndsAt;

    private TortureRun(Settings s) {
        this.s = s;
        this.random = new Random(s.seed());
        this.dataDirectory = s.dir().resolve("torture.data");
        this.stop = s.dir().resolve("stop");
    }

    public static Report run(Settings settings) throws Exception {
        return new TortureRun(settings).run();
    }

    private final class Worker {
        final String name;
        final Path control;
        int incarnation;
        Process process;
        boolean paused;
        long pausedSince;
        long resumeAt;
        long restartAt = -1;

        Worker(String name) {
            this.name = name;
            this.control = s.dir().resolve("control-" + name);
        }

        Path history() {
            return s.dir().resolve("history-" + name + "-" + incarnation + ".jsonl");
        }

        void start() throws IOException {
            incarnation++;
            List<String> jvm = new ArrayList<>(List.of("-Xmx128m", "-XX:+UseSerialGC"));
            if (s.brokenFence()) {
                jvm.add("-D" + Runs.FAULT_IGNORE_TERMINAL_FENCE + "=true");
            }
            ProcessBuilder pb = ChildJvm.builder(
                    jvm,
                    TortureWorker.class,
                    "db=" + location(),
                    "data=" + dataDirectory,
                    "history=" + history(),
                    "control=" + control,
                    "stop=" + stop,
                    "worker=" + name,
                    "incarnation=" + incarnation,
                    "seed=" + (s.seed() * 1_000 + name.hashCode() * 31L + incarnation),
                    "until=" + (chaosEndsAt + 60_000),
                    "actors=" + String.join(",", s.actors()),
                    "weights=" + s.weights(),
                    "busy_ms=" + s.busyBoundMs(),
                    "heartbeat_ms=" + s.heartbeatMs());
            pb.redirectErrorStream(true);
            pb.redirectOutput(s.dir()
                    .resolve("worker-" + name + "-" + incarnation + ".log")
                    .toFile());
            process = pb.start();
            paused = false;
            restartAt = -1;
        }

        /** What this incarnation is told: on a server, its connection carries its name, for the backend kills. */
        String location() {
            return s.backend() == Backend.POSTGRES ? db + "&ApplicationName=" + applicationName() : db;
        }

        String applicationName() {
            return "torture-" + name + "-" + incarnation;
        }

        boolean started() throws IOException {
            Path h = history();
            return Files.exists(h) && Files.size(h) > 0;
        }
    }

    private Report run() throws Exception {
        Files.createDirectories(s.dir());
        if (s.backend() == Backend.POSTGRES) {
            server = RestartablePgServer.start(s.dir().resolve("pgdata"), false);
            db = server.createDatabase("torture");
        } else {
            db = s.dir().resolve("torture.db").toString();
        }
        try {
            return runOn();
        } finally {
            if (server != null) {
                server.close();
            }
        }
    }

    private Report runOn() throws Exception {
        long began = System.nanoTime();
        // A broken-fence run needs a lab sandbox: on any other ledger the switch is ignored (contract §14).
        try (Engine setup = Engine.open(EngineConfig.forDatabase(db)
                .dataDirectory(dataDirectory)
                .heartbeat(false)
                .processKind("torture-setup")
                .createAsLabSandbox(s.brokenFence())
                .build())) {
            s.actors().forEach(a -> setup.actors().add(a));
        }
        if (s.backend() == Backend.POSTGRES) {
            createHandSqlLogin();
        }
        Process rogue = ChildJvm.builder(List.of("-Xmx64m", "-XX:+UseSerialGC"), RogueLock.class, db)
                .redirectErrorStream(true)
                .start();
        Thread rogueReader = readRogue(rogue);
        chaosEndsAt = System.currentTimeMillis() + 120_000 + s.chaos().toMillis(); // provisional, for the start
        try {
            for (int i = 0; i < s.workers(); i++) {
                Worker w = new Worker("w" + i);
                workers.add(w);
                w.start();
            }
            awaitStarted();
            chaosEndsAt = System.currentTimeMillis() + s.chaos().toMillis();
            nemesis(rogue.getOutputStream());
        } finally {
            for (Worker w : workers) {
                if (w.paused && w.process.isAlive()) {
                    ChildJvm.signal(w.process, "CONT");
                    w.paused = false;
                }
            }
            if (generated != null) {
                generated.close();
            }
            rogue.destroyForcibly(); // SIGKILL: the OS drops its lock at once
            rogue.waitFor(10, TimeUnit.SECONDS);
            rogueReader.join(5_000);
            Files.writeString(stop, "stop");
            Thread restart = restarting;
            if (restart != null) {
                restart.join(120_000); // a restart in progress finishes before the workers are told to stop
            }
            stopWorkers();
        }
        if (restartFailure != null) {
            throw new IllegalStateException("the server did not come back after a restart", restartFailure);
        }

        TickReport finalTick;
        int secondTickRecovered;
        long finalNow;
        Clock clock;
        if (s.backend() == Backend.POSTGRES) {
            // The server's clock decides every expiry: no client clock can be set a day ahead. Wait (on the
            // condition, reading the server) until it has passed every expiry in the ledger.
            finalNow = PgLedgerReader.awaitEverythingExpired(db, Duration.ofSeconds(90));
            clock = Clock.systemUTC();
        } else {
            clock = Clock.offset(Clock.systemUTC(), Duration.ofDays(1));
            finalNow = clock.millis();
        }
        try (Engine supervisor = Engine.open(EngineConfig.forDatabase(db)
                .dataDirectory(dataDirectory)
                .clock(clock)
                .heartbeat(false)
                .busyBound(Duration.ofSeconds(30))
                .processKind("torture-final-supervisor")
                .build())) {
            finalTick = supervisor.supervisor().tick();
            secondTickRecovered = supervisor.supervisor().tick().recovered().size();
        }

        Ledger ledger = s.backend() == Backend.POSTGRES ? PgLedgerReader.read(db) : Ledger.read(Path.of(db));
        List<HistoryReader.ProcessHistory> histories = HistoryReader.readAll(s.dir());
        List<HistoryOp> ops = histories.stream().flatMap(h -> h.ops().stream()).toList();
        OutputFolders outputs = OutputFolders.read(dataDirectory, ledger);
        HistoryChecker.Result result = HistoryChecker.check(
                ledger, ops, finalNow, outputs, expectedInfo(), s.backend() == Backend.POSTGRES ? 64 : 1);
        Duration wall = Duration.ofNanos(System.nanoTime() - began);
        String text = report(ledger, histories, ops, result, finalTick, secondTickRecovered, wall, outputs);
        Files.writeString(s.dir().resolve("report.md"), text);
        return new Report(s, faults, result, ops, ledger, histories.size(), finalTick, secondTickRecovered, wall, text);
    }

    private void awaitStarted() throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
        for (Worker w : workers) {
            while (!w.started()) {
                if (!w.process.isAlive()) {
                    throw new IllegalStateException("worker " + w.name + " died on start: "
                            + Files.readString(s.dir().resolve("worker-" + w.name + "-" + w.incarnation + ".log")));
                }
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("worker " + w.name + " did not start within 90 s");
                }
                pace(20);
            }
        }
    }

    private Thread readRogue(Process rogue) {
        Thread t = new Thread(
                () -> {
                    try (BufferedReader in =
                            new BufferedReader(new InputStreamReader(rogue.getInputStream(), StandardCharsets.UTF_8))) {
                        String line;
                        while ((line = in.readLine()) != null) {
                            if (line.startsWith("LOCKED ")) {
                                faults.rogueHolds.incrementAndGet();
                            } else if (line.equals("BUSY")) {
                                faults.rogueBusy.incrementAndGet();
                            }
                        }
                    } catch (IOException ended) {
                        // the rogue was killed
                    }
                },
                "rogue-reader");
        t.setDaemon(true);
        t.start();
        return t;
    }

    // ---- the nemesis ----

    /** The faults the nemesis injects. */
    private enum Fault {
        PAUSE,
        CLOCK_FORWARD,
        CLOCK_BACK,
        CLOCK_ANY,
        KILL,
        ROGUE_LOCK,
        /** PostgreSQL: {@code pg_terminate_backend} of a worker's connection inside a transaction, or between two. */
        BACKEND_KILL_IN_TRANSACTION,
        BACKEND_KILL_BETWEEN,
        BACKEND_KILL,
        /** PostgreSQL: stop the server (fast or immediate) and start it again on the same port and data. */
        SERVER_RESTART,
        /**
         * PostgreSQL: a hand-written statement from another host's WORKER login (issue 26): a session moved, a counter
         * wound, a live lease deleted, a claim or attempt expired, an unfinished run acknowledged.
         */
        HAND_SQL
    }

    /** What a compromised worker host types (each in its own transaction), against whatever the workers hold now. */
    private static final List<String> HAND_SQL = List.of(
            "UPDATE processes SET heartbeat_at = 0 WHERE identity IN (SELECT process_identity FROM actor_leases)",
            "UPDATE processes SET heartbeat_at = 4000000000000000 WHERE identity IN (SELECT process_identity FROM actor_leases)",
            "UPDATE token_counter SET last_token = 9223372036854775807",
            "UPDATE lease_change_counter SET last_change = 9223372036854775806",
            "DELETE FROM actor_leases WHERE actor_id IN (SELECT actor_id FROM actor_leases LIMIT 1)",
            "UPDATE actor_leases SET expires_at = 0, renewed_at = 0, attached = false",
            "UPDATE messages SET claim_expires_at = 0 WHERE state = 'CLAIMED'",
            "UPDATE messages SET claim_expires_at = 9000000000000 WHERE state = 'CLAIMED'",
            "UPDATE execution_attempts SET expires_at = 0 WHERE state = 'ACTIVE'",
            "UPDATE assignments SET acknowledged_at = 1 WHERE state IN ('RUNNING', 'COMPLETED')");

    /** The worker login the hand-written statements come from (PostgreSQL), created once the ledger exists. */
    private String handSqlUrl;
    /**
     * The standing attack suite's generated strikes (decision 0013), from a worker login of their own with a session
     * row of its own: every other hand-written statement is one of them rather than one of {@link #HAND_SQL}.
     */
    private HostileSql generated;

    /** Restarts are spaced out: the workers must also get work done between them. */
    private static final long MIN_GAP_BETWEEN_RESTARTS_MS = 12_000;

    private Fault nextFault(List<Fault> firstRound) {
        if (!firstRound.isEmpty()) {
            return firstRound.remove(0);
        }
        int dice = random.nextInt(100);
        if (s.backend() == Backend.POSTGRES) {
            return dice < 28
                    ? Fault.PAUSE
                    : dice < 40
                            ? Fault.CLOCK_ANY
                            : dice < 50
                                    ? Fault.KILL
                                    : dice < 58
                                            ? Fault.ROGUE_LOCK
                                            : dice < 70
                                                    ? Fault.HAND_SQL
                                                    : dice < 94 ? Fault.BACKEND_KILL : Fault.SERVER_RESTART;
        }
        return dice < 40 ? Fault.PAUSE : dice < 70 ? Fault.CLOCK_ANY : dice < 84 ? Fault.KILL : Fault.ROGUE_LOCK;
    }

    private void nemesis(OutputStream rogue) throws Exception {
        long nextFaultAt = System.currentTimeMillis() + gap();
        long rogueFreeAt = 0;
        // every kind of fault at least once, early and in a random order; then at random
        List<Fault> firstRound = new ArrayList<>(
                List.of(Fault.PAUSE, Fault.CLOCK_FORWARD, Fault.CLOCK_BACK, Fault.KILL, Fault.ROGUE_LOCK));
        if (s.backend() == Backend.POSTGRES) {
            firstRound.addAll(List.of(
                    Fault.BACKEND_KILL_IN_TRANSACTION,
                    Fault.BACKEND_KILL_BETWEEN,
                    Fault.SERVER_RESTART,
                    Fault.HAND_SQL));
        }
        Collections.shuffle(firstRound, random);
        long nextRestartAllowedAt = 0;
        while (System.currentTimeMillis() < chaosEndsAt) {
            long now = System.currentTimeMillis();
            for (Worker w : workers) {
                if (w.paused && now >= w.resumeAt) {
                    if (w.process.isAlive()) {
                        ChildJvm.signal(w.process, "CONT");
                    }
                    w.paused = false;
                    faults.pausedMillis += now - w.pausedSince;
                }
                if (w.restartAt >= 0 && now >= w.restartAt) {
                    w.start();
                    faults.restarts.incrementAndGet();
                } else if (w.restartAt < 0 && !w.paused && !w.process.isAlive()) {
                    faults.unexpectedExits.incrementAndGet(); // it ended by itself: restart it, the report says so
                    w.restartAt = now + 200;
                }
            }
            if (now >= nextFaultAt) {
                switch (nextFault(firstRound)) {
                    case PAUSE -> pause(now);
                    case CLOCK_FORWARD -> jumpClock(1);
                    case CLOCK_BACK -> jumpClock(-1);
                    case CLOCK_ANY -> jumpClock(0);
                    case KILL -> kill(now);
                    case BACKEND_KILL_IN_TRANSACTION -> killBackend(true);
                    case BACKEND_KILL_BETWEEN -> killBackend(false);
                    case BACKEND_KILL -> killBackend(random.nextInt(3) > 0);
                    case HAND_SQL -> {
                        if (!handSql() && faults.handSqlRefused.get() + faults.handSqlAccepted.size() == 0) {
                            firstRound.add(Fault.HAND_SQL); // until one statement was judged: again at the next fault
                        }
                    }
                    case SERVER_RESTART -> {
                        if (now >= nextRestartAllowedAt && restarting == null) {
                            restartServer(random.nextBoolean());
                            nextRestartAllowedAt = now + MIN_GAP_BETWEEN_RESTARTS_MS;
                        }
                    }
                    case ROGUE_LOCK -> {
                        if (now >= rogueFreeAt) {
                            long hold = s.busyBoundMs() + 300 + random.nextInt(900);
                            rogue.write(("hold " + hold + "\n").getBytes(StandardCharsets.UTF_8));
                            rogue.flush();
                            faults.rogueMillis += hold;
                            rogueFreeAt = now + hold + 3_000;
                        }
                    }
                }
                nextFaultAt = now + gap();
            }
            pace(10);
        }
    }

    private long gap() {
        long min = s.faultGapMs() / 3;
        return min + random.nextInt((int) (s.faultGapMs() - min));
    }

    private Worker anyWorker(boolean mustBeRunning) {
        List<Worker> candidates = workers.stream()
                .filter(w -> !mustBeRunning || (w.restartAt < 0 && !w.paused && w.process.isAlive()))
                .toList();
        return candidates.isEmpty() ? null : candidates.get(random.nextInt(candidates.size()));
    }

    private void pause(long now) throws Exception {
        Worker w = anyWorker(true);
        if (w == null) {
            return;
        }
        ChildJvm.signal(w.process, "STOP");
        w.paused = true;
        w.pausedSince = now;
        w.resumeAt = now + 100 + random.nextInt((int) s.maxPauseMs() - 100);
        faults.pauses.incrementAndGet();
    }

    private void kill(long now) throws Exception {
        Worker w = anyWorker(false);
        if (w == null || w.restartAt >= 0 || !w.process.isAlive()) {
            return;
        }
        ChildJvm.signal(w.process, "KILL");
        w.process.waitFor(10, TimeUnit.SECONDS);
        if (w.paused) {
            faults.pausedMillis += now - w.pausedSince;
        }
        w.paused = false;
        w.restartAt = now + 200 + random.nextInt(1_300);
        faults.kills.incrementAndGet();
    }

    /**
     * Ends a running worker's server connection with {@code pg_terminate_backend}: with {@code inTransaction}
     * when its backend is inside a transaction (a write in flight, up to its COMMIT), otherwise when it is idle
     * between two, so the worker's next call finds it gone. Watches {@code pg_stat_activity} for up to 400 ms for
     * the wanted state; a worker that never shows it is left alone (counted as missed).
     */
    /**
     * One hand-written statement, sent by another host's worker login in its own transaction — half the time one of
     * {@link #HAND_SQL}, half the time a strike the standing attack suite generates ({@code HostileSql}: a bare
     * DELETE, a row deleted and forged again, a fence column moved to the past, years ahead or a wrong type, aimed
     * at a row a live worker uses): refused by the database (SV001 or 42501) is what the guards promise; a
     * statement that acted on a row is a hole, recorded for the test to name; one that found no row (nothing held at
     * that moment) judges nothing.
     */
    private boolean handSql() {
        if (handSqlUrl == null || restarting != null) {
            return false;
        }
        if (generated != null && random.nextBoolean()) {
            var result = generated.strike();
            switch (result.outcome()) {
                case REFUSED -> faults.handSqlRefused.incrementAndGet();
                case ACCEPTED -> faults.handSqlAccepted.add("generated: " + result.what());
                case NOTHING -> faults.handSqlNoTarget.incrementAndGet();
            }
            return result.outcome() != HostileSql.Outcome.NOTHING;
        }
        String sql = HAND_SQL.get(random.nextInt(HAND_SQL.size()));
        try (Connection c = DriverManager.getConnection(handSqlUrl);
                Statement st = c.createStatement()) {
            st.execute("SET statement_timeout = 2000"); // a row a worker holds locked must not stall the nemesis
            int rows = st.executeUpdate(sql);
            if (rows > 0) {
                faults.handSqlAccepted.add(sql + " (" + rows + " rows)");
                return true;
            }
            faults.handSqlNoTarget.incrementAndGet();
            return false;
        } catch (SQLException e) {
            String state = String.valueOf(e.getSQLState());
            if (state.equals("SV001") || state.equals("42501") || state.equals("22003")) {
                faults.handSqlRefused.incrementAndGet(); // 22003: the counter's bigint range itself
                return true;
            }
            faults.handSqlNoTarget.incrementAndGet(); // the server restarting, a timeout: judged nothing
            return false;
        }
    }

    /** A worker login of the ledger's own worker role, as a compromised host holds one (decision 0902). */
    private void createHandSqlLogin() throws SQLException {
        try (Connection c = DriverManager.getConnection(db);
                Statement st = c.createStatement()) {
            st.execute("CREATE ROLE torture_nemesis LOGIN PASSWORD 'torture_nemesis' IN ROLE sovereign_torture_worker");
        }
        handSqlUrl = db.substring(0, db.indexOf('?')) + "?user=torture_nemesis&password=torture_nemesis";
        generated = HostileSql.onPostgres(db, "torture", s.actors(), s.seed());
    }

    private void killBackend(boolean inTransaction) {
        Worker w = anyWorker(true);
        if (w == null || restarting != null) {
            return;
        }
        String app = w.applicationName();
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(400);
        try (Connection c = DriverManager.getConnection(db);
                PreparedStatement find = c.prepareStatement("SELECT pid FROM pg_stat_activity"
                        + " WHERE application_name = ? AND pid <> pg_backend_pid() AND "
                        + (inTransaction ? "xact_start IS NOT NULL" : "state = 'idle'"));
                PreparedStatement kill = c.prepareStatement("SELECT pg_terminate_backend(?)")) {
            find.setString(1, app);
            while (System.nanoTime() < deadline) {
                Integer pid = null;
                try (ResultSet rs = find.executeQuery()) {
                    if (rs.next()) {
                        pid = rs.getInt(1);
                    }
                }
                if (pid != null) {
                    kill.setInt(1, pid);
                    try (ResultSet rs = kill.executeQuery()) {
                        if (rs.next() && rs.getBoolean(1)) {
                            (inTransaction ? faults.backendKillsInTransaction : faults.backendKillsBetween)
                                    .incrementAndGet();
                            return;
                        }
                    }
                }
                pace(1);
            }
            faults.backendKillsMissed.incrementAndGet();
        } catch (SQLException serverAway) {
            faults.backendKillsMissed.incrementAndGet(); // the server is restarting: nothing to kill
        }
    }

    /**
     * Stops the server (fast, or immediate: no checkpoint, crash recovery on start) and starts it again on the
     * same port and data directory, in a thread of its own so pauses keep being resumed on time meanwhile.
     */
    private void restartServer(boolean immediate) {
        (immediate ? faults.restartsImmediate : faults.restartsFast).incrementAndGet();
        Thread t = new Thread(
                () -> {
                    long down = System.nanoTime();
                    try {
                        server.stop(immediate);
                        pace(100 + random.nextInt(900)); // the server stays away for a moment: the workers notice
                        server.start();
                    } catch (RuntimeException e) {
                        restartFailure = e;
                    } finally {
                        faults.serverDownMillis += TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - down);
                        restarting = null;
                    }
                },
                "server-restart");
        restarting = t;
        t.setDaemon(true);
        t.start();
    }

    /** What an info outcome may be without being a crash: busy always; a lost connection on a server. */
    private Set<String> expectedInfo() {
        return s.backend() == Backend.POSTGRES
                ? Set.of("busy", "storage_IO", "storage_COMMIT_OUTCOME_UNKNOWN")
                : Set.of("busy");
    }

    /** Moves one worker's clock: {@code direction} 1 forward, -1 back, 0 at random (forward, back or reset). */
    private void jumpClock(int direction) throws IOException {
        Worker w = anyWorker(false);
        long offset;
        int dice = direction > 0 ? 0 : direction < 0 ? 2 : random.nextInt(5);
        if (dice < 2) {
            offset = 1_000L + random.nextInt(19_000);
            faults.clockForward.incrementAndGet();
        } else if (dice < 4) {
            offset = -(1_000L + random.nextInt(19_000));
            faults.clockBack.incrementAndGet();
        } else {
            offset = 0;
            faults.clockReset.incrementAndGet();
        }
        Path tmp = w.control.resolveSibling(w.control.getFileName() + ".tmp");
        Files.writeString(tmp, Long.toString(offset));
        Files.move(tmp, w.control, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    private void stopWorkers() throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(45);
        for (Worker w : workers) {
            if (w.restartAt >= 0 || w.process == null) {
                continue; // killed, not restarted: nothing to stop
            }
            long left = Math.max(0, deadline - System.nanoTime());
            if (!w.process.waitFor(left, TimeUnit.NANOSECONDS)) {
                ChildJvm.signal(w.process, "KILL");
                w.process.waitFor(10, TimeUnit.SECONDS);
                faults.killedAtStop.incrementAndGet();
            }
        }
    }

    /** Paces the nemesis loop; it never waits for a result this way. */
    private static void pace(long millis) {
        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(millis));
    }

    // ---- the report ----

    private String report(
            Ledger ledger,
            List<HistoryReader.ProcessHistory> histories,
            List<HistoryOp> ops,
            HistoryChecker.Result result,
            TickReport finalTick,
            int secondTickRecovered,
            Duration wall,
            OutputFolders outputs) {
        StringBuilder b = new StringBuilder();
        b.append("## Torture run ")
                .append(Instant.now())
                .append(
                        s.backend() == Backend.POSTGRES
                                ? " on PostgreSQL " + PgLedgerReader.serverVersion(db)
                                : " on SQLite")
                .append("\n\n");
        b.append("- workers: ")
                .append(s.workers())
                .append(" at a time, ")
                .append(histories.size())
                .append(" worker processes in all (restarts after kills included); actors ")
                .append(s.actors())
                .append('\n');
        b.append("- chaos: ")
                .append(s.chaos().toSeconds())
                .append(" s; wall time ")
                .append(wall.toSeconds())
                .append(" s; seed ")
                .append(s.seed())
                .append("; busy bound ")
                .append(s.busyBoundMs())
                .append(" ms; heartbeat ")
                .append(s.heartbeatMs())
                .append(" ms")
                .append(s.brokenFence() ? "; **terminal fence switched off (fault injection)**" : "")
                .append('\n');
        b.append("- faults: ")
                .append(faults.pauses.get())
                .append(" SIGSTOP/SIGCONT pauses (")
                .append(faults.pausedMillis / 1000)
                .append(" s paused in all, each at most ")
                .append(s.maxPauseMs())
                .append(" ms), ")
                .append(faults.kills.get())
                .append(" SIGKILLs (")
                .append(faults.restarts.get())
                .append(" restarts), clock jumps ")
                .append(faults.clockForward.get())
                .append(" forward / ")
                .append(faults.clockBack.get())
                .append(" back / ")
                .append(faults.clockReset.get())
                .append(" reset (1-20 s each), ")
                .append(faults.rogueHolds.get())
                .append(
                        s.backend() == Backend.POSTGRES
                                ? " rogue LOCK TABLE … IN ACCESS EXCLUSIVE MODE holds ("
                                : " rogue BEGIN IMMEDIATE holds (")
                .append(faults.rogueMillis / 1000)
                .append(" s in all, each longer than the busy bound)");
        if (s.backend() == Backend.POSTGRES) {
            b.append("; on PostgreSQL: ")
                    .append(faults.backendKills())
                    .append(" backend kills (pg_terminate_backend: ")
                    .append(faults.backendKillsInTransaction.get())
                    .append(" inside a transaction, ")
                    .append(faults.backendKillsBetween.get())
                    .append(" between two; ")
                    .append(faults.backendKillsMissed.get())
                    .append(" found no connection in the wanted state), ")
                    .append(faults.serverRestarts())
                    .append(" server restarts (")
                    .append(faults.restartsFast.get())
                    .append(" fast, ")
                    .append(faults.restartsImmediate.get())
                    .append(" immediate; ")
                    .append(String.format(Locale.ROOT, "%.1f", faults.serverDownMillis / 1000.0))
                    .append(" s down in all), ")
                    .append(faults.handSqlRefused())
                    .append(" hand-written statements of" + " another host's worker login refused by the database (")
                    .append(faults.handSqlNoTarget.get())
                    .append(" found nothing to act on, ")
                    .append(faults.handSqlAccepted.size())
                    .append(" accepted)")
                    .append("; the clock jumps moved only the workers' own clocks: every expiry decision reads the"
                            + " server's clock (decision 0908)");
        }
        b.append(" — ").append(faults.total()).append(" faults");
        if (faults.unexpectedExits.get() > 0 || faults.killedAtStop.get() > 0) {
            b.append("; ")
                    .append(faults.unexpectedExits.get())
                    .append(" workers exited by themselves, ")
                    .append(faults.killedAtStop.get())
                    .append(" had to be killed at the stop");
        }
        b.append("\n\n");

        long ok = ops.stream().filter(o -> o.outcome() == HistoryOp.Outcome.OK).count();
        long fail =
                ops.stream().filter(o -> o.outcome() == HistoryOp.Outcome.FAIL).count();
        long info =
                ops.stream().filter(o -> o.outcome() == HistoryOp.Outcome.INFO).count();
        long unknown = ops.stream()
                .filter(o -> o.outcome() == HistoryOp.Outcome.UNKNOWN)
                .count();
        b.append("Operations: ")
                .append(ops.size())
                .append(" (ok ")
                .append(ok)
                .append(", fail ")
                .append(fail)
                .append(", info ")
                .append(info)
                .append(", unknown ")
                .append(unknown)
                .append(")\n\n");
        b.append("| operation | ok | fail (by category) | info (by reason) | unknown |\n");
        b.append("| --- | ---: | --- | --- | ---: |\n");
        Map<String, List<HistoryOp>> byOp = new TreeMap<>(ops.stream().collect(Collectors.groupingBy(HistoryOp::op)));
        byOp.forEach((name, list) -> b.append("| ")
                .append(name)
                .append(" | ")
                .append(list.stream()
                        .filter(o -> o.outcome() == HistoryOp.Outcome.OK)
                        .count())
                .append(" | ")
                .append(counts(list, HistoryOp.Outcome.FAIL, "category"))
                .append(" | ")
                .append(counts(list, HistoryOp.Outcome.INFO, "reason"))
                .append(" | ")
                .append(list.stream()
                        .filter(o -> o.outcome() == HistoryOp.Outcome.UNKNOWN)
                        .count())
                .append(" |\n"));

        Map<String, Long> kinds = ledger.events().stream()
                .collect(Collectors.groupingBy(Ledger.Event::kind, TreeMap::new, Collectors.counting()));
        b.append("\nLedger: ")
                .append(ledger.events().size())
                .append(" journal events, last token ")
                .append(ledger.lastToken())
                .append("; ")
                .append(kinds.getOrDefault("LEASE_TAKEN_OVER", 0L))
                .append(" lease takeovers, ")
                .append(kinds.getOrDefault("REJECTED", 0L))
                .append(" REJECTED rows, ")
                .append(ledger.receipts().size())
                .append(" receipts (")
                .append(ledger.receipts().stream()
                        .filter(r -> "worker_lost".equals(r.failureCategory()))
                        .count())
                .append(" worker_lost), messages ")
                .append(countBy(
                        ledger.messages().stream().map(Ledger.MessageRow::state).toList()))
                .append(", assignments ")
                .append(countBy(ledger.assignments().stream()
                        .map(Ledger.AssignmentRow::state)
                        .toList()))
                .append(
                        s.backend() == Backend.POSTGRES
                                ? ".\nFinal supervisor tick (once the server's clock had passed every expiry): recovered "
                                : ".\nFinal supervisor tick (clock a day ahead): recovered ")
                .append(finalTick.recovered().size())
                .append(", retired ")
                .append(finalTick.retired().size())
                .append(", swept ")
                .append(finalTick.sweptClaims().size())
                .append(" claims; a second tick recovered ")
                .append(secondTickRecovered)
                .append(".\n\n");
        b.append("Output folders: ")
                .append(outputs.folders().size())
                .append(" named by receipts, ")
                .append(outputs.folders().stream()
                        .filter(OutputFolders.Folder::exists)
                        .count())
                .append(" on disk, ")
                .append(outputs.markCount())
                .append(" attempt markers checked (each must be the receipt's own).\n\n");
        long reportedMissing = ops.stream()
                .filter(o -> "true".equals(o.result("journal_missing")))
                .count();
        b.append("Refusals that told their caller their REJECTED row could not be written (its write met a storage"
                        + " error: busy past the bound, or on a server a lost connection; decision 0109): ")
                .append(reportedMissing)
                .append(".\n\n");
        if (s.backend() == Backend.POSTGRES) {
            b.append("Calls that lost their connection or could not reach the server (info: held to no outcome, allowed"
                            + " to explain writes): ")
                    .append(counts(
                            ops.stream()
                                    .filter(o -> !"busy".equals(o.result("reason")))
                                    .toList(),
                            HistoryOp.Outcome.INFO,
                            "reason"))
                    .append(".\n\n");
        }
        b.append("**Violations: ").append(result.violations().size()).append("**");
        if (!result.clean()) {
            Map<HistoryChecker.Rule, Long> byRule = result.violations().stream()
                    .collect(
                            Collectors.groupingBy(HistoryChecker.Violation::rule, TreeMap::new, Collectors.counting()));
            b.append(" ")
                    .append(byRule)
                    .append("\n\n```\n")
                    .append(result.summary(25))
                    .append("\n```");
        }
        b.append("\n\nReproduce (same seed, same choices; the timing of a real run is never the same twice):\n\n")
                .append("```\nmvn -B -ntp -pl engine/it -am test -Dsurefire.failIfNoSpecifiedTests=false -Dtest=")
                .append(s.backend() == Backend.POSTGRES ? "TortureOnPostgresTest" : "TortureTest")
                .append(" -Dsovereign.torture.seconds=")
                .append(s.chaos().toSeconds())
                .append(" -Dsovereign.torture.workers=")
                .append(s.workers())
                .append(" -Dsovereign.torture.seed=")
                .append(s.seed())
                .append("\n```\n");
        return b.toString();
    }

    private static String counts(List<HistoryOp> ops, HistoryOp.Outcome outcome, String key) {
        Map<String, Long> m = ops.stream()
                .filter(o -> o.outcome() == outcome)
                .collect(
                        Collectors.groupingBy(o -> String.valueOf(o.result(key)), TreeMap::new, Collectors.counting()));
        return m.isEmpty()
                ? ""
                : m.entrySet().stream()
                        .map(e -> e.getKey() + " " + e.getValue())
                        .collect(Collectors.joining(", "));
    }

    private static String countBy(List<String> values) {
        Map<String, Long> m = new LinkedHashMap<>(
                values.stream().collect(Collectors.groupingBy(v -> v, TreeMap::new, Collectors.counting())));
        return m.toString();
    }
}
