package dev.sovereign.engine.lab;

import dev.sovereign.engine.base.LedgerLocation;
import dev.sovereign.engine.run.Runs;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * A real worker OS process ({@link WorkerMain}, which behaves like {@code sovereign worker}) started against a database, for the lab and the
 * console's demo: a separate JVM with its own process identity, heartbeat and lease, controlled the
 * way an operator would — signals ({@code SIGSTOP}/{@code SIGCONT}/{@code SIGKILL}/{@code SIGTERM})
 * where the OS has them, and a small control channel on its standard input for what signals cannot
 * do (skew its clock; a cooperative pause where there is no SIGSTOP).
 *
 * <p>Every line the worker prints is kept and passed to the listener. Thread-safe.
 */
public final class WorkerProcess implements AutoCloseable {
    /**
     * The JVM option that starts a worker with the terminal fence switched off (docs/decisions/0106):
     * for the lab's "break the fence" runs only.
     */
    public static final String FAULT_JVM_OPTION = "-D" + Runs.FAULT_IGNORE_TERMINAL_FENCE + "=true";

    /** The environment variable a worker on a server reads its URL from (as {@code sovereign console}, 0423). */
    public static final String DB_VARIABLE = "SOVEREIGN_DB";
    /** What a worker on a server is given on its command line instead of the URL. */
    static final String FROM_ENVIRONMENT = "env:" + DB_VARIABLE;

    private final Process process;
    private final Spec spec;
    private final String actor;
    private final boolean faultInjected;
    private final Writer control;
    private final List<String> lines = new CopyOnWriteArrayList<>();
    private final List<Consumer<String>> listeners = new CopyOnWriteArrayList<>();
    private volatile String processIdentity;
    private volatile boolean paused;
    private volatile boolean outputEnded;
    private volatile Duration clockOffset;

    private WorkerProcess(Process process, Spec spec, boolean faultInjected) {
        this.process = process;
        this.spec = spec;
        this.actor = spec.actor();
        this.faultInjected = faultInjected;
        this.clockOffset = spec.clockOffset();
        this.control = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
        Thread reader = new Thread(this::pump, "worker-output-" + process.pid());
        reader.setDaemon(true);
        reader.start();
    }

    /**
     * How to start one worker. {@code allowedCommands} are its {@code --allow-command} patterns: empty (the lab
     * and the demo, which assign only {@code scripted:} work) means it runs no {@code command:} spec.
     * {@code location} is a file or a server's URL; a URL reaches the worker through its environment
     * ({@link #DB_VARIABLE}), never its command line, where every local user could read a password.
     */
    public record Spec(
            LedgerLocation location,
            String actor,
            Duration ttl,
            Duration clockOffset,
            String label,
            List<String> allowedCommands) {
        public Spec {
            Objects.requireNonNull(location, "location");
            Objects.requireNonNull(actor, "actor");
            Objects.requireNonNull(ttl, "ttl");
            clockOffset = clockOffset == null ? Duration.ZERO : clockOffset;
            allowedCommands = allowedCommands == null ? List.of() : List.copyOf(allowedCommands);
        }

        public Spec(
                Path database,
                String actor,
                Duration ttl,
                Duration clockOffset,
                String label,
                List<String> allowedCommands) {
            this(
                    LedgerLocation.file(Objects.requireNonNull(database, "database")),
                    actor,
                    ttl,
                    clockOffset,
                    label,
                    allowedCommands);
        }

        /** A worker that runs no {@code command:} spec. */
        public Spec(Path database, String actor, Duration ttl, Duration clockOffset, String label) {
            this(database, actor, ttl, clockOffset, label, List.of());
        }

        /** A worker that runs no {@code command:} spec, on a file or a server. */
        public Spec(LedgerLocation location, String actor, Duration ttl, Duration clockOffset, String label) {
            this(location, actor, ttl, clockOffset, label, List.of());
        }

        /**
         * The ledger's file.
         *
         * @throws IllegalStateException on a server: use {@link #location()}
         */
        public Path database() {
            return location.file().orElseThrow(() -> new IllegalStateException(location + " is a server, not a file"));
        }
    }

    /**
     * Starts a worker JVM ({@link WorkerMain}) on this JVM's own class path, which holds the lab, the engine
     * core and a backend: the CLI jar, the console jar, or a test class path. The CLI is not needed.
     */
    public static WorkerProcess start(Spec spec, String... extraJvmOptions) throws IOException {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.add("-XX:TieredStopAtLevel=1");
        cmd.add("-Xss512k");
        cmd.add("-XX:+UseSerialGC");
        cmd.addAll(List.of(extraJvmOptions));
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(WorkerMain.class.getName());
        // A file's path is no secret; a server's URL may hold a password: it goes by the environment
        // (readable only by this user and root), the command line names only the variable.
        cmd.add(spec.location().isFile() ? spec.location().text() : FROM_ENVIRONMENT);
        cmd.add(spec.actor());
        cmd.add(Long.toString(spec.ttl().toMillis()));
        cmd.add(Long.toString(spec.clockOffset().toMillis()));
        cmd.add(spec.label() != null ? spec.label() : "");
        cmd.addAll(spec.allowedCommands()); // each a pattern of the worker's command allow-list (decision 0800)
        ProcessBuilder pb = new ProcessBuilder(cmd);
        if (spec.location().isFile()) {
            pb.environment().remove(DB_VARIABLE);
        } else {
            pb.environment().put(DB_VARIABLE, spec.location().text());
        }
        pb.redirectErrorStream(true);
        boolean fault = List.of(extraJvmOptions).contains(FAULT_JVM_OPTION);
        return new WorkerProcess(pb.start(), spec, fault);
    }

    private void pump() {
        try (BufferedReader r =
                new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = r.readLine()) != null) {
                if (line.startsWith("started ") && processIdentity == null) {
                    String[] f = line.split("\\s+");
                    for (String part : f) {
                        if (part.startsWith("proc_")) {
                            processIdentity = part;
                        }
                    }
                }
                lines.add(line);
                for (Consumer<String> l : listeners) {
                    l.accept(line);
                }
                synchronized (lines) {
                    lines.notifyAll();
                }
            }
        } catch (IOException ignored) {
            // the process ended
        } finally {
            synchronized (lines) {
                outputEnded = true;
                lines.notifyAll();
            }
        }
    }

    public void addListener(Consumer<String> listener) {
        listeners.add(listener);
    }

    public long pid() {
        return process.pid();
    }

    /** How it was started. */
    public Spec spec() {
        return spec;
    }

    /** Its label ({@code --label}), or {@code worker <pid>} when none was given. */
    public String label() {
        return spec.label() != null ? spec.label() : "worker " + process.pid();
    }

    /** Whether it was started with the terminal fence switched off ({@link #FAULT_JVM_OPTION}). */
    public boolean isFaultInjected() {
        return faultInjected;
    }

    /** The clock offset it was last told to use (ahead when positive). */
    public Duration clockOffset() {
        return clockOffset;
    }

    /** Completes when the OS process has ended (whatever ended it). */
    public CompletableFuture<WorkerProcess> onExit() {
        return process.onExit().thenApply(p -> this);
    }

    public String actor() {
        return actor;
    }

    /** The worker's fencing identity, once it has printed its {@code started} line; else null. */
    public String processIdentity() {
        return processIdentity;
    }

    public List<String> lines() {
        return List.copyOf(lines);
    }

    public boolean isAlive() {
        return process.isAlive();
    }

    public boolean isPaused() {
        return paused;
    }

    /**
     * Waits until a printed line matches, or the timeout passes, or the process ends.
     *
     * @return the first matching line, or null
     */
    public String awaitLine(Predicate<String> match, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        synchronized (lines) {
            while (true) {
                for (String l : lines) {
                    if (match.test(l)) {
                        return l;
                    }
                }
                long left = deadline - System.nanoTime();
                if (left <= 0 || outputEnded) {
                    return null;
                }
                lines.wait(Math.max(1, Math.min(TimeUnit.NANOSECONDS.toMillis(left), 100)));
            }
        }
    }

    /**
     * Set to {@code true} to pause cooperatively even where SIGSTOP exists: to show (or test) on Linux
     * or macOS what a trainer on Windows sees.
     */
    public static final String COOPERATIVE_PAUSE_PROPERTY = "sovereign.lab.cooperativePause";

    /**
     * Whether this OS can pause a process (SIGSTOP) and the lab uses it; elsewhere {@link #pause()}
     * is cooperative (see {@link #COOPERATIVE_PAUSE_PROPERTY}).
     */
    public static boolean hasStopSignals() {
        return !System.getProperty("os.name", "").toLowerCase(Locale.ROOT).contains("win")
                && !Boolean.getBoolean(COOPERATIVE_PAUSE_PROPERTY);
    }

    /**
     * Pauses the process as a long GC pause would: SIGSTOP where available (it stops mid-whatever,
     * heartbeat included), else a cooperative pause over the control channel.
     */
    public void pause() throws IOException, InterruptedException {
        if (hasStopSignals()) {
            signal("STOP");
            awaitStopped(Duration.ofSeconds(2));
        } else {
            send("pause");
        }
        paused = true;
    }

    /**
     * After SIGSTOP: waits until the OS reports the process stopped (Linux: state {@code T} in
     * {@code /proc/PID/stat}; elsewhere {@code ps -o stat=}), so a caller that next checks the
     * database knows the process can no longer take its write lock.
     */
    private void awaitStopped(Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline && process.isAlive()) {
            String state = osState();
            if (state == null) {
                Thread.sleep(50); // no way to ask: give the signal a moment to land
                return;
            }
            if (state.startsWith("T") || state.startsWith("t")) {
                return;
            }
            Thread.sleep(5);
        }
    }

    /** The OS's one-letter process state, or null when it cannot be read. */
    String osState() {
        Path stat = Path.of("/proc", Long.toString(process.pid()), "stat");
        try {
            if (Files.isReadable(stat)) {
                String text = Files.readString(stat);
                int close = text.lastIndexOf(')');
                return close < 0 || close + 2 >= text.length() ? null : text.substring(close + 2, close + 3);
            }
            Process ps = new ProcessBuilder("ps", "-o", "stat=", "-p", Long.toString(process.pid()))
                    .redirectErrorStream(true)
                    .start();
            String out = new String(ps.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
            return ps.waitFor(5, TimeUnit.SECONDS) && ps.exitValue() == 0 && !out.isEmpty() ? out : null;
        } catch (IOException e) {
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    public void resume() throws IOException, InterruptedException {
        if (hasStopSignals()) {
            signal("CONT");
        } else {
            send("resume");
        }
        paused = false;
    }

    /** SIGKILL: no shutdown hook, no release; its lease and attempt simply expire. */
    public void kill() throws InterruptedException {
        process.destroyForcibly();
        if (process.waitFor(10, TimeUnit.SECONDS)) {
            awaitOutputEnd();
        }
    }

    /** SIGTERM: the worker releases its lease and exits 0. */
    public boolean terminate(Duration timeout) throws InterruptedException, IOException {
        if (paused) {
            resume();
        }
        // Not Process.destroy(): it also closes our ends of the pipes, and the worker's last lines
        // (what it released) would be lost. A real SIGTERM, or a stop over the control channel.
        if (hasStopSignals()) {
            signal("TERM");
        } else {
            send("stop");
        }
        boolean ended = process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
        if (ended) {
            awaitOutputEnd();
        }
        return ended;
    }

    /** After the process ended, waits (briefly) until every line it printed has been read. */
    private void awaitOutputEnd() throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        synchronized (lines) {
            while (!outputEnded && System.nanoTime() < deadline) {
                lines.wait(50);
            }
        }
    }

    /** Sets the worker's clock offset (ahead when positive). */
    public void skew(Duration offset) throws IOException {
        send("skew " + offset.toMillis() + "ms");
        clockOffset = offset;
    }

    /**
     * Asks a waiting worker to try to acquire its actor's lease once now, although another process's
     * lease is live: the engine refuses it ({@code actor_lease_held}) and journals the refusal.
     */
    public void contend() throws IOException {
        send("contend");
    }

    public int exitValue() {
        return process.exitValue();
    }

    private void send(String command) throws IOException {
        synchronized (control) {
            control.write(command + "\n");
            control.flush();
        }
    }

    private void signal(String name) throws IOException, InterruptedException {
        Process k = new ProcessBuilder("kill", "-" + name, Long.toString(process.pid()))
                .redirectErrorStream(true)
                .start();
        if (!k.waitFor(10, TimeUnit.SECONDS) || k.exitValue() != 0) {
            throw new IOException("kill -" + name + " " + process.pid() + " failed");
        }
    }

    /** Ends the process for good: resumes it if paused, then SIGTERM, then SIGKILL after 5 s. */
    @Override
    public void close() {
        try {
            if (process.isAlive() && !terminate(Duration.ofSeconds(5))) {
                kill();
            }
        } catch (IOException | InterruptedException e) {
            process.destroyForcibly();
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
