package dev.sovereign.engine.lab;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.base.EngineConfig;
import dev.sovereign.engine.base.OwnerOnly;
import dev.sovereign.engine.lease.Lease;
import dev.sovereign.engine.run.AssignmentState;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.regex.Pattern;

/**
 * A live demonstration on a fresh database, for a newcomer who opens the console with no file: four
 * actors, real worker processes ({@link WorkerMain}) (two contending for {@code operator}, one for each
 * other actor) with short TTLs, a feeder that keeps sending messages and assigning scripted work, and
 * a little chaos now and then — a holder paused past its TTL (a takeover, then its refused late
 * write), a holder killed mid-run (a {@code worker_lost} recovery, if a supervisor runs), a worker
 * restarted. Everything it does is real: separate JVMs, real signals, the same fenced writes as in
 * production. The supervisor is not part of the demo: the console runs its own.
 *
 * <p>Lifecycle: {@link #start} (creates the database, adds the actors, starts the workers, the feeder
 * and the chaos) → {@link #close()} (stops the feeder and the chaos, then every worker: SIGTERM — after
 * SIGCONT if paused — and SIGKILL after 5 s; then the demo's own engine). A JVM shutdown hook kills
 * any worker still alive as a backstop; the workers also stop by themselves when their control channel
 * (standard input) closes, i.e. when this JVM dies. Thread-safe.
 */
public final class Demo implements AutoCloseable {
    /** The actors of the demo, in the order they are created. */
    public static final List<String> ACTORS = List.of("operator", "reviewer", "archivist", "planner");

    private static final List<String> SUBJECTS = List.of(
            "Deploy checklist",
            "Rotate the keys",
            "Review PR 42",
            "Archive March",
            "Plan the sprint",
            "Restart the cache",
            "Update the runbook",
            "Check the backups",
            "Triage the alerts",
            "Renew the certificate");

    /**
     * How the demo runs.
     *
     * @param database   the fresh database file (created; must not exist yet)
     * @param ttl        the workers' lease, attempt and claim TTL
     * @param feedEvery  how often the feeder looks whether to send a message or assign work
     * @param firstChaos when the first chaos scene starts
     * @param chaosEvery the pause between chaos scenes; null for no chaos at all
     */
    public record Settings(Path database, Duration ttl, Duration feedEvery, Duration firstChaos, Duration chaosEvery) {
        public Settings {
            Objects.requireNonNull(database, "database");
            Objects.requireNonNull(ttl, "ttl");
            Objects.requireNonNull(feedEvery, "feedEvery");
            Objects.requireNonNull(firstChaos, "firstChaos");
        }

        /** A 4 s TTL, feeding every second, the first chaos after 10 s and then every 20 s. */
        public static Settings defaults(Path database) {
            return new Settings(
                    database,
                    Duration.ofSeconds(4),
                    Duration.ofSeconds(1),
                    Duration.ofSeconds(10),
                    Duration.ofSeconds(20));
        }

        public Settings withoutChaos() {
            return new Settings(database, ttl, feedEvery, firstChaos, null);
        }
    }

    private final Settings settings;
    private final Engine engine;
    private final List<Slot> slots = new ArrayList<>();
    private final Set<Long> startedPids = ConcurrentHashMap.newKeySet();
    private final List<Consumer<String>> narrators = new CopyOnWriteArrayList<>();
    private final CountDownLatch stopping = new CountDownLatch(1);
    private final Thread shutdownHook;
    private Thread feeder;
    private Thread chaos;
    private volatile boolean closed;
    private long fed;

    /** One worker role: its actor and label; the process behind it is replaced when restarted. */
    private static final class Slot {
        final String actor;
        final String label;
        volatile WorkerProcess process;
        int restarts;

        Slot(String actor, String label) {
            this.actor = actor;
            this.label = label;
        }
    }

    private Demo(Settings settings, Engine engine) {
        this.settings = settings;
        this.engine = engine;
        this.shutdownHook = new Thread(this::killAllNow, "sovereign-demo-shutdown");
    }

    /**
     * Where demo databases go: {@code $XDG_DATA_HOME/sovereign}, else {@code ~/.local/share/sovereign}
     * ({@code %LOCALAPPDATA%\Sovereign} on Windows, {@code ~/Library/Application Support/Sovereign} on macOS).
     */
    public static Path defaultFolder() {
        String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
        String home = System.getProperty("user.home", ".");
        if (os.contains("win")) {
            String local = System.getenv("LOCALAPPDATA");
            return Path.of(local != null ? local : home, "Sovereign");
        }
        if (os.contains("mac")) {
            return Path.of(home, "Library", "Application Support", "Sovereign");
        }
        String xdg = System.getenv("XDG_DATA_HOME");
        return xdg != null && !xdg.isBlank()
                ? Path.of(xdg, "sovereign")
                : Path.of(home, ".local", "share", "sovereign");
    }

    /** How many demo ledgers the demo folder keeps: a new demo removes the older ones beyond these. */
    public static final int DEMOS_KEPT = 3;

    private static final Pattern DEMO_NAME = Pattern.compile("demo-[0-9]{8}-[0-9]{6}(-[0-9]+)?\\.db");

    /** Whether {@code file} is named like a demo ledger {@link #newDatabase} makes. */
    public static boolean isDemoDatabase(Path file) {
        return file != null
                && file.getFileName() != null
                && DEMO_NAME.matcher(file.getFileName().toString()).matches();
    }

    /** A new, unused file name {@code demo-<yyyyMMdd-HHmmss>.db} in {@code folder} (a suffix if taken). */
    public static Path newDatabase(Path folder, Clock clock) {
        String stamp = DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss", Locale.ROOT)
                .withZone(ZoneId.systemDefault())
                .format(clock.instant());
        Path p = folder.resolve("demo-" + stamp + ".db");
        for (int i = 2; Files.exists(p); i++) {
            p = folder.resolve("demo-" + stamp + "-" + i + ".db");
        }
        return p;
    }

    /**
     * Creates the database and starts the demo. Returns once every worker process has been started
     * (not necessarily hosting yet).
     *
     * @throws IOException when the folder cannot be made or a worker cannot be started (whatever was
     *                     started is stopped again)
     */
    public static Demo start(Settings settings) throws IOException {
        if (Files.exists(settings.database())) {
            throw new IOException("the demo needs a fresh database, but " + settings.database() + " exists");
        }
        Path parent = settings.database().toAbsolutePath().getParent();
        if (parent != null) {
            OwnerOnly.createDirectories(parent); // a missing folder is made 0700 (decision 0801)
            if (parent.equals(defaultFolder().toAbsolutePath()) && OwnerOnly.posix(parent)) {
                // Sovereign's own folder: the user's only, also when an older version made it by the umask
                Files.setPosixFilePermissions(parent, OwnerOnly.FOLDER);
            }
            if (isDemoDatabase(settings.database())) {
                // one demo ledger per start would pile up: the newest few stay, older ones go unless in use (issue 29)
                Leftovers.keepNewest(parent, Demo::isDemoDatabase, DEMOS_KEPT - 1, Clock.systemUTC());
            }
        }
        Engine engine = Engine.open(EngineConfig.forDatabase(settings.database())
                .processKind("demo")
                .processLabel("demo feeder")
                .defaultTtl(settings.ttl())
                .build());
        Demo demo = new Demo(settings, engine);
        try {
            demo.begin();
        } catch (IOException | RuntimeException e) {
            demo.close();
            throw e;
        }
        return demo;
    }

    private void begin() throws IOException {
        for (String a : ACTORS) {
            engine.actors().add(a);
        }
        slots.add(new Slot("operator", "operator worker 1"));
        slots.add(new Slot("operator", "operator worker 2"));
        slots.add(new Slot("reviewer", "reviewer worker"));
        slots.add(new Slot("archivist", "archivist worker"));
        slots.add(new Slot("planner", "planner worker"));
        Runtime.getRuntime().addShutdownHook(shutdownHook);
        for (Slot s : slots) {
            launch(s);
        }
        feeder = daemon("sovereign-demo-feeder", this::feedLoop);
        if (settings.chaosEvery() != null) {
            chaos = daemon("sovereign-demo-chaos", this::chaosLoop);
        }
        say("Demo started on " + settings.database() + ": " + slots.size() + " worker processes for "
                + String.join(", ", ACTORS) + ", lease TTL " + settings.ttl().toMillis() / 1000.0 + " s.");
    }

    private void launch(Slot s) throws IOException {
        String label = s.restarts == 0 ? s.label : s.label + " (restart " + s.restarts + ")";
        WorkerProcess w = WorkerProcess.start(
                new WorkerProcess.Spec(settings.database(), s.actor, settings.ttl(), null, label),
                "-Xms16m",
                "-Xmx96m");
        startedPids.add(w.pid());
        s.process = w;
    }

    public Path database() {
        return settings.database();
    }

    public Settings settings() {
        return settings;
    }

    /** The worker processes running now (one per role; a restarted one replaces its predecessor). */
    public List<WorkerProcess> workers() {
        List<WorkerProcess> out = new ArrayList<>();
        for (Slot s : slots) {
            if (s.process != null) {
                out.add(s.process);
            }
        }
        return out;
    }

    /** The PID of every worker process this demo ever started, restarted ones included. */
    public Set<Long> startedPids() {
        return Set.copyOf(startedPids);
    }

    /** Tells {@code narrator} what the demo does, one sentence at a time, on the demo's own threads. */
    public void addNarrator(Consumer<String> narrator) {
        narrators.add(narrator);
    }

    private void say(String sentence) {
        for (Consumer<String> n : narrators) {
            try {
                n.accept(sentence);
            } catch (RuntimeException ignored) {
                // a narrator's trouble is not the demo's
            }
        }
    }

    // ---- the feeder ----

    private void feedLoop() {
        while (!pause(settings.feedEvery())) {
            try {
                feedOnce();
            } catch (RuntimeException e) {
                // busy past the bound, or closing: the next round tries again
            }
        }
    }

    /** Keeps every inbox and work queue a little busy, never piling up. */
    private void feedOnce() {
        long n = fed++;
        String to = ACTORS.get((int) (n % ACTORS.size()));
        String from = ACTORS.get((int) ((n + 1) % ACTORS.size()));
        if (n % 2 == 0 && engine.mailbox().inbox(to).size() < 3) {
            engine.mailbox().send(from, to, SUBJECTS.get((int) (n / 2 % SUBJECTS.size())), "sent by the demo feeder");
        }
        if (n % 3 == 0 && engine.runs().runnable(to, 3).size() < 2) {
            long job = n / 3;
            String spec;
            if (job % 5 == 3) {
                spec = "scripted:ms=1500,outcome=failed";
            } else if (job % 7 == 5) {
                spec = "scripted:ms=2000,outcome=blocked";
            } else if (to.equals("operator") && job % 3 == 0) {
                spec = "scripted:ms=6000,outcome=completed";
            } else {
                spec = "scripted:ms=2500,outcome=completed";
            }
            engine.runs().assign(to, spec);
        }
    }

    // ---- the chaos ----

    private void chaosLoop() {
        if (pause(settings.firstChaos())) {
            return;
        }
        int scene = 0;
        while (!closed) {
            try {
                restartTheDead();
                switch (scene++ % 3) {
                    case 0 -> pauseTheOperatorHolder();
                    case 1 -> killTheBusyPlanner();
                    default -> killTheOperatorHolder();
                }
            } catch (InterruptedException e) {
                return;
            } catch (IOException | RuntimeException e) {
                if (!closed) {
                    say("A demo step failed (" + e.getMessage() + "); the demo goes on.");
                }
            }
            if (pause(settings.chaosEvery())) {
                return;
            }
        }
    }

    /** SIGSTOP past the TTL: the other operator worker takes over; the resumed one's writes are refused. */
    private void pauseTheOperatorHolder() throws IOException, InterruptedException {
        engine.runs().assign("operator", "scripted:ms=5000,outcome=completed");
        awaitRunning("operator", Duration.ofSeconds(8));
        Optional<Slot> holder = holderOf("operator");
        if (holder.isEmpty() || closed) {
            return;
        }
        Slot s = holder.get();
        WorkerProcess w = s.process;
        Duration pause = settings.ttl().plusSeconds(3);
        w.pause();
        say("Paused " + s.label + " (pid " + w.pid() + ") for " + pause.toSeconds() + " s, as a long GC pause would:"
                + " its lease runs out and the other operator worker takes over.");
        boolean stop = pause(pause);
        if (w.isAlive()) {
            w.resume();
        }
        if (!stop) {
            say("Resumed " + s.label + " (pid " + w.pid() + "): it still believes it holds operator; its late writes"
                    + " are refused by the fence (see Rejections).");
        }
    }

    /** SIGKILL mid-run with nobody to take over: the supervisor recovers the run as worker_lost. */
    private void killTheBusyPlanner() throws IOException, InterruptedException {
        engine.runs().assign("planner", "scripted:ms=20000,outcome=completed");
        if (!awaitRunning("planner", Duration.ofSeconds(10))) {
            return;
        }
        Slot s = slots.stream()
                .filter(x -> x.actor.equals("planner"))
                .findFirst()
                .orElseThrow();
        WorkerProcess w = s.process;
        w.kill();
        say("Killed " + s.label + " (pid " + w.pid() + ") with SIGKILL in the middle of a run: nothing renews its"
                + " attempt, so the supervisor recovers the run as failed / worker_lost.");
        if (pause(settings.ttl().plusSeconds(4))) {
            return;
        }
        restart(s);
    }

    /** SIGKILL of the operator holder: the other operator worker takes the lease over once it expires. */
    private void killTheOperatorHolder() throws IOException, InterruptedException {
        Optional<Slot> holder = holderOf("operator");
        if (holder.isEmpty()) {
            return;
        }
        Slot s = holder.get();
        WorkerProcess w = s.process;
        w.kill();
        say("Killed " + s.label + " (pid " + w.pid() + ") with SIGKILL: its lease expires and the other operator"
                + " worker takes over.");
        if (pause(settings.ttl().plusSeconds(2))) {
            return;
        }
        restart(s);
    }

    private void restartTheDead() throws IOException {
        for (Slot s : slots) {
            if (!closed && s.process != null && !s.process.isAlive()) {
                restart(s);
            }
        }
    }

    private synchronized void restart(Slot s) throws IOException {
        if (closed) {
            return;
        }
        s.restarts++;
        launch(s);
        say("Restarted " + s.label + " as a new process (pid " + s.process.pid() + ", a new identity).");
    }

    private Optional<Slot> holderOf(String actor) {
        long now = engine.config().clock().millis();
        Optional<Lease> lease = engine.leases().current(actor).filter(l -> !l.isExpiredAt(now));
        if (lease.isEmpty()) {
            return Optional.empty();
        }
        return slots.stream()
                .filter(s -> s.process != null && lease.get().process().equals(s.process.processIdentity()))
                .findFirst();
    }

    /** Waits until some assignment of {@code actor} is RUNNING; false when none did in time. */
    private boolean awaitRunning(String actor, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            boolean running = engine.runs().list().stream()
                    .limit(50)
                    .anyMatch(a -> a.actorId().equals(actor) && a.state() == AssignmentState.RUNNING);
            if (running) {
                return true;
            }
            if (pause(Duration.ofMillis(200))) {
                throw new InterruptedException("the demo is closing");
            }
        }
        return false;
    }

    /** Waits; true when the demo is closing (so the caller stops). */
    private boolean pause(Duration d) {
        try {
            return stopping.await(d.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return true;
        }
    }

    private static Thread daemon(String name, Runnable body) {
        Thread t = new Thread(body, name);
        t.setDaemon(true);
        t.start();
        return t;
    }

    // ---- stopping ----

    /**
     * Stops the feeder and the chaos, then every worker process (SIGTERM, after SIGCONT when paused;
     * SIGKILL when one does not end within 5 s), all at once, then the demo's engine. Blocks until they
     * are gone; idempotent.
     */
    @Override
    public void close() {
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
        }
        stopping.countDown();
        join(feeder);
        join(chaos);
        List<Thread> stoppers = new ArrayList<>();
        for (WorkerProcess w : workers()) {
            stoppers.add(daemon("sovereign-demo-stop-" + w.pid(), w::close));
        }
        stoppers.forEach(Demo::join);
        try {
            Runtime.getRuntime().removeShutdownHook(shutdownHook);
        } catch (IllegalStateException shuttingDown) {
            // the hook is running or about to: it finds nothing alive
        }
        engine.close();
    }

    /** The shutdown hook: no time for manners, every worker still alive is killed. */
    private void killAllNow() {
        for (Slot s : slots) {
            WorkerProcess w = s.process;
            if (w != null && w.isAlive()) {
                try {
                    w.kill();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }

    private static void join(Thread t) {
        if (t == null) {
            return;
        }
        try {
            t.join(TimeUnit.SECONDS.toMillis(15));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public String toString() {
        return "Demo[" + settings.database() + ", " + slots.size() + " workers]";
    }
}
