package dev.sovereign.engine.provider;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Stream;

/**
 * A {@code command:} provider's shell in a process group of its own, and how it is stopped.
 *
 * <p>Start: with util-linux {@code setsid} the shell becomes the leader of a new session, and so of a
 * new process group whose id is the shell's pid (the JVM's child is never a group leader, so
 * {@code setsid} calls {@code setsid(2)} and execs; it does not fork). Every process the command starts
 * stays in that group unless it moves itself out on purpose, also after its parent died and it was
 * re-parented — which {@link ProcessHandle#descendants()} can no longer see. Without {@code setsid}
 * the shell runs in the engine's own group and stopping falls back to the process tree.
 *
 * <p>Stop ({@link #stop()}), idempotent: SIGTERM to the whole group (and to the shell), then, when
 * something of the group is still alive after {@link #GRACE}, SIGKILL to the group; the tree walk of
 * {@link ProcessHandle#descendants()} is applied too, for what {@code setsid} could not reach. Signals
 * to a group go through the {@code kill} command (Java has no call for it). The engine's own group is
 * never signalled. See docs/decisions/0108-per-attempt-workspaces.md. Thread-safe.
 */
final class CommandProcess {
    /** How long the command's group has between SIGTERM and SIGKILL. */
    static final Duration GRACE = Duration.ofSeconds(2);

    private static final String SETSID = executable("setsid");
    private static final String KILL = executable("kill");
    private static final long POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(20);

    private final Process process;
    private final boolean ownGroup;
    private boolean stopped;

    private CommandProcess(Process process, boolean ownGroup) {
        this.process = process;
        this.ownGroup = ownGroup;
    }

    /** Whether commands get a process group of their own on this machine. */
    static boolean groupsSupported() {
        return SETSID != null && KILL != null && Files.isDirectory(Path.of("/proc"));
    }

    /** The argv that runs {@code command} with {@code sh -c}, in a new session when supported. */
    static List<String> argv(String command) {
        List<String> argv = new ArrayList<>();
        if (groupsSupported()) {
            argv.add(SETSID);
        }
        argv.addAll(List.of("sh", "-c", command));
        return argv;
    }

    /** Starts {@code pb} (built from {@link #argv}). */
    static CommandProcess start(ProcessBuilder pb) throws IOException {
        boolean group = pb.command().size() > 0 && pb.command().get(0).equals(SETSID);
        return new CommandProcess(pb.start(), group);
    }

    Process process() {
        return process;
    }

    /** The process group id of the command, or -1 when it has none of its own. */
    long groupId() {
        return ownGroup ? process.pid() : -1;
    }

    /**
     * Sends SIGTERM to the group now (cheap: one short {@code kill}), and escalates on a daemon thread:
     * for a {@link Cancellation} callback, which must not block for the grace period.
     */
    void stopInBackground() {
        signalGroup("TERM"); // without a group of its own, the tree is walked first, by stop()
        Thread t = new Thread(this::stop, "sovereign-stop-" + process.pid());
        t.setDaemon(true);
        t.start();
    }

    /**
     * Stops the command's whole group: SIGTERM, up to {@link #GRACE} for it to end, then SIGKILL. Returns
     * when nothing of the group is left alive (or after the SIGKILL). A second call waits for the first.
     * Does not throw, and keeps the calling thread's interrupt status.
     */
    synchronized void stop() {
        if (stopped) {
            return;
        }
        boolean interrupted = Thread.interrupted(); // the waits below must not be cut short by it
        try {
            List<ProcessHandle> tree = family();
            signalGroup("TERM");
            process.destroy();
            long deadline = System.nanoTime() + GRACE.toNanos();
            while (anythingAlive(tree) && System.nanoTime() < deadline) {
                LockSupport.parkNanos(POLL_NANOS);
            }
            if (anythingAlive(tree)) {
                tree = family();
                signalGroup("KILL");
                process.destroyForcibly();
                tree.forEach(ProcessHandle::destroyForcibly);
                family().forEach(ProcessHandle::destroyForcibly); // forked meanwhile
            }
            stopped = true;
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private List<ProcessHandle> family() {
        List<ProcessHandle> tree =
                new ArrayList<>(process.toHandle().descendants().toList());
        tree.add(process.toHandle());
        return tree;
    }

    private boolean anythingAlive(List<ProcessHandle> tree) {
        if (ownGroup && groupHasLiveMembers(process.pid())) {
            return true;
        }
        return tree.stream().anyMatch(CommandProcess::runnable);
    }

    private void signalGroup(String signal) {
        long group = groupId();
        if (group <= 1 || group == ownGroupId()) {
            return; // never the engine's own group
        }
        boolean interrupted = Thread.interrupted();
        try {
            Process k = new ProcessBuilder(KILL, "-" + signal, "--", "-" + group)
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                    .start();
            if (!k.waitFor(5, TimeUnit.SECONDS)) {
                k.destroyForcibly();
            }
        } catch (IOException | InterruptedException e) {
            // no kill to run: the tree walk of stop() is the fallback
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** A process that exists and is not a zombie (a zombie has ended; it only waits to be reaped). */
    private static boolean runnable(ProcessHandle h) {
        return h.isAlive() && !"Z".equals(state(h.pid()));
    }

    /** Whether a process of group {@code pgid} is alive (not a zombie), by the process table in /proc. */
    static boolean groupHasLiveMembers(long pgid) {
        try (Stream<Path> procs = Files.list(Path.of("/proc"))) {
            return procs.map(p -> p.getFileName().toString())
                    .filter(n -> n.chars().allMatch(Character::isDigit))
                    .map(CommandProcess::stat)
                    .anyMatch(st ->
                            st != null && st.length > 2 && Long.toString(pgid).equals(st[2]) && !"Z".equals(st[0]));
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    /** {@code state, ppid, pgrp, ...} of /proc/PID/stat (the fields after the command name), or null. */
    private static String[] stat(String pid) {
        try {
            String s = Files.readString(Path.of("/proc", pid, "stat"));
            int close = s.lastIndexOf(')');
            return close < 0 ? null : s.substring(close + 2).split(" ");
        } catch (IOException | RuntimeException e) {
            return null; // ended meanwhile
        }
    }

    private static String state(long pid) {
        String[] st = stat(Long.toString(pid));
        return st == null ? "Z" : st[0];
    }

    private static long ownGroupId() {
        String[] st = stat(Long.toString(ProcessHandle.current().pid()));
        return st == null ? -1 : Long.parseLong(st[2]);
    }

    private static String executable(String name) {
        for (String dir : new String[] {"/usr/bin", "/bin", "/usr/local/bin"}) {
            Path p = Path.of(dir, name);
            if (Files.isExecutable(p)) {
                return p.toString();
            }
        }
        return null;
    }
}
