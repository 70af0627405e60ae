package dev.sovereign.engine.lab;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * A real {@code sovereign worker} OS process started against a database, for the lab and the
 * console's demo: a separate JVM with its own process identity, heartbeat and lease, controlled the
 * way an operator would — signals ({@code SIGSTOP}/{@code SIGCONT}/{@code SIGKILL}/{@code SIGTERM})
 * where the OS has them, and a small control channel on its standard input for what signals cannot
 * do (skew its clock; a cooperative pause where there is no SIGSTOP).
 *
 * <p>Every line the worker prints is kept and passed to the listener. Thread-safe.
 */
public final class WorkerProcess implements AutoCloseable {
    /** The CLI entry point, named (not linked) so the engine does not depend on the CLI package. */
    static final String CLI_MAIN = "dev.sovereign.engine.cli.Main";

    private final Process process;
    private final String actor;
    private final Writer control;
    private final List<String> lines = new CopyOnWriteArrayList<>();
    private final List<Consumer<String>> listeners = new CopyOnWriteArrayList<>();
    private volatile String processIdentity;
    private volatile boolean paused;
    private volatile boolean outputEnded;

    private WorkerProcess(Process process, String actor) {
        this.process = process;
        this.actor = actor;
        this.control = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
        Thread reader = new Thread(this::pump, "worker-output-" + process.pid());
        reader.setDaemon(true);
        reader.start();
    }

    /** How to start one worker. */
    public record Spec(Path database, String actor, Duration ttl, Duration clockOffset, String label) {
        public Spec {
            Objects.requireNonNull(database, "database");
            Objects.requireNonNull(actor, "actor");
            Objects.requireNonNull(ttl, "ttl");
            clockOffset = clockOffset == null ? Duration.ZERO : clockOffset;
        }
    }

    /** Starts a worker JVM on this JVM's own class path (which holds the CLI). */
    public static WorkerProcess start(Spec spec, String... extraJvmOptions) throws IOException {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.add("-XX:TieredStopAtLevel=1");
        cmd.add("-Xss512k");
        cmd.add("-XX:+UseSerialGC");
        cmd.addAll(List.of(extraJvmOptions));
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(CLI_MAIN);
        cmd.add("--db");
        cmd.add(spec.database().toString());
        cmd.add("worker");
        cmd.add("--actor");
        cmd.add(spec.actor());
        cmd.add("--ttl");
        cmd.add(spec.ttl().toMillis() + "ms");
        if (!spec.clockOffset().isZero()) {
            cmd.add("--clock-offset=" + spec.clockOffset().toMillis() + "ms");
        }
        if (spec.label() != null) {
            cmd.add("--label");
            cmd.add(spec.label());
        }
        cmd.add("--control-stdin");
        ProcessBuilder pb = new ProcessBuilder(cmd);
        pb.redirectErrorStream(true);
        return new WorkerProcess(pb.start(), spec.actor());
    }

    private void pump() {
        try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getInputStream(),
                StandardCharsets.UTF_8))) {
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

    /** Whether this OS can pause a process (SIGSTOP); elsewhere {@link #pause()} is cooperative. */
    public static boolean hasStopSignals() {
        return !System.getProperty("os.name", "").toLowerCase(Locale.ROOT).contains("win");
    }

    /**
     * Pauses the process as a long GC pause would: SIGSTOP where available (it stops mid-whatever,
     * heartbeat included), else a cooperative pause over the control channel.
     */
    public void pause() throws IOException, InterruptedException {
        if (hasStopSignals()) {
            signal("STOP");
        } else {
            send("pause");
        }
        paused = true;
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
                .redirectErrorStream(true).start();
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
